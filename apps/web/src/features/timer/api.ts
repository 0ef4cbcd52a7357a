import type { TicketTimeAnswer, TimeEntry, TimeEntryChange, TimeRangeAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

/** The browser's offset from UTC in minutes east (UTC+2 is 120): the day a started timer counts for. */
const tz = () => -new Date().getTimezoneOffset();

export const timerApi = {
  /** A ticket's time; `skew` is the server's clock minus the browser's, so a running clock ticks true. */
  ticket: (id: number) =>
    api<TicketTimeAnswer>('GET', `/api/timer/ticket/${id}`).then((r) => ({ ...r, skew: r.now - Date.now() })),
  start: (ticketId: number) =>
    api<{ entry: TimeEntry; stopped: TimeEntry | null }>('POST', '/api/timer/start', { ticket_id: ticketId, tz: tz() }),
  stop: () => api<{ entry: TimeEntry | null }>('POST', '/api/timer/stop'),
  add: (ticketId: number, input: TimeEntryChange) =>
    api<{ entry: TimeEntry }>('POST', '/api/timer/entries', { ticket_id: ticketId, ...input }),
  change: (id: number, input: TimeEntryChange) => api<{ entry: TimeEntry }>('PUT', `/api/timer/entries/${id}`, input),
  remove: (id: number) => api('DELETE', `/api/timer/entries/${id}`),
  range: (from: string, to: string, userId: number | null) =>
    api<TimeRangeAnswer>(
      'GET',
      `/api/timer/entries?${new URLSearchParams({ from, to, ...(userId === null ? {} : { user_id: String(userId) }) })}`,
    ),
};
