import type { CallDetail, ImcUser, RecordingsAnswer, TicketLoadAnswer, VoiceAnalysis } from '@parley/contracts';
import { api, HttpError } from '../../lib/http';

/** Query string of the set values only. */
export const queryOf = (o: Record<string, string | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v) q.set(k, v);
  return q.toString();
};

export const callsApi = {
  /** CALL-29, CALL-30: a page of the call list, the load call with type call2. */
  list: (query: string, offset: number) =>
    api<TicketLoadAnswer>('GET', `/api/ticket/load/me/all/call2/${offset}${query ? `?${query}` : ''}`),
  detail: (id: number) => api<{ data: CallDetail }>('GET', `/api/call/${id}`).then((r) => r.data),
  /** CALL-35: what a DID is; fails (404) when the account has not described it. */
  did: (did: string) => api<{ data: ImcUser }>('GET', `/api/proxy/imc_user?${queryOf({ did })}`).then((r) => r.data),
  /** REC-07: a page of recordings. */
  recordings: (query: string, offset: number) =>
    api<RecordingsAnswer>('GET', `/api/recordings?${queryOf({ offset: String(offset) })}${query ? `&${query}` : ''}`),
  /** CALL-50: the voice reading of an audio file (multipart field `attachment`). */
  voice: async (file: File): Promise<{ raw: string; data: VoiceAnalysis }> => {
    const form = new FormData();
    form.append('attachment', file, file.name);
    const res = await fetch('/api/upload/voice', { method: 'POST', body: form, credentials: 'include' });
    const raw = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(raw);
    } catch {
      body = null;
    }
    if (!res.ok || !body)
      throw new HttpError(res.status, (body as { description?: string } | null)?.description || 'Failed', body);
    return { raw, data: body as VoiceAnalysis };
  },
};
