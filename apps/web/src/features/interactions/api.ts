import type { InteractionsAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

/** The filters of the screen as the request sends them ('' means none). */
export interface InteractionFilters {
  kind: string;
  channel: string;
  agent: string;
  /** YYYY-MM-DD days in the browser's time zone, both inclusive. */
  from: string;
  to: string;
  q: string;
}

export const NO_FILTERS: InteractionFilters = { kind: '', channel: '', agent: '', from: '', to: '', q: '' };

/** Local midnight of a YYYY-MM-DD day, in epoch ms; null when not a day. */
const dayStart = (day: string): number | null => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const t = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
  return Number.isNaN(t) ? null : t;
};

/** The query string of one page: the days become local day boundaries, `to` its next midnight. */
export function interactionsQuery(f: InteractionFilters, before: string | null): string {
  const p = new URLSearchParams();
  if (f.kind) p.set('kind', f.kind);
  if (f.channel) p.set('channel', f.channel);
  if (f.agent) p.set('agent', f.agent);
  const from = dayStart(f.from);
  if (from !== null) p.set('from', String(from));
  const to = dayStart(f.to);
  if (to !== null) {
    const next = new Date(to);
    next.setDate(next.getDate() + 1);
    p.set('to', String(next.getTime()));
  }
  if (f.q.trim()) p.set('q', f.q.trim());
  if (before) p.set('before', before);
  return p.toString();
}

export const interactionsApi = {
  /** One page of the timeline, newest first, after the cursor `before`. */
  page: (f: InteractionFilters, before: string | null) => {
    const qs = interactionsQuery(f, before);
    return api<InteractionsAnswer>('GET', `/api/interactions${qs ? `?${qs}` : ''}`);
  },
};
