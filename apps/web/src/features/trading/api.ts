import type { AnalystAnswer, InsightAnswer, Instrument, InstrumentInput, MentionsAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

/** Query keys of the trading desk (this feature's own). */
export const tradingKeys = {
  all: ['trading'] as const,
  instruments: ['trading', 'instruments'] as const,
  analyst: (id: number, from: string, to: string) => ['trading', 'analyst', id, from, to] as const,
  mentions: (channel: string, id: number, from: string, to: string) =>
    ['trading', 'mentions', channel, id, from, to] as const,
  insight: (from: string, to: string) => ['trading', 'insight', from, to] as const,
};

const range = (from: string, to: string) => new URLSearchParams({ from, to });

export const tradingApi = {
  instruments: () => api<{ data: Instrument[] }>('GET', '/api/trading/instruments').then((r) => r.data),
  add: (body: InstrumentInput) => api('POST', '/api/trading/instruments', body),
  edit: (id: number, body: InstrumentInput) => api('PUT', `/api/trading/instruments/${id}`, body),
  remove: (id: number) => api('DELETE', `/api/trading/instruments/${id}`),
  analyst: (id: number, from: string, to: string) => {
    const q = range(from, to);
    q.set('instrument', String(id));
    return api<AnalystAnswer>('GET', `/api/trading/analyst?${q}`);
  },
  mentions: (channel: string, id: number, from: string, to: string, offset: number) => {
    const q = range(from, to);
    q.set('offset', String(offset));
    return api<MentionsAnswer>('GET', `/api/trading/analyst/${encodeURIComponent(channel)}/${id}?${q}`);
  },
  insight: (from: string, to: string) => api<InsightAnswer>('GET', `/api/trading/insight?${range(from, to)}`),
};
