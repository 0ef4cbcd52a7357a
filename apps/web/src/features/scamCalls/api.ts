import type { ScamCallsAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

/** Query keys of the Scam Calls feed (this feature's own). */
export const scamCallKeys = {
  all: ['scamCalls'] as const,
  feed: (kind: string, number: string) => ['scamCalls', 'feed', kind, number] as const,
};

export const scamCallsApi = {
  /** CALL-46: a page of flagged calls (and, on the first page, the most flagged numbers). */
  feed: (offset: number, kind: string, number: string) => {
    const q = new URLSearchParams({ offset: String(offset) });
    if (kind) q.set('kind', kind);
    if (number) q.set('number', number);
    return api<ScamCallsAnswer>('GET', `/api/call_verification?${q}`);
  },
};
