import type { CalendarAnswer, CalendarEvent, EventInput } from '@parley/contracts';
import { api } from '../../lib/http';

export const calendarApi = {
  /** Days YYYY-MM-DD, both included (at most 62 days). */
  range: (from: string, to: string, contact?: number) =>
    api<CalendarAnswer>('GET', `/api/calendar?from=${from}&to=${to}${contact ? `&contact=${contact}` : ''}`),
  event: (id: number) => api<{ event: CalendarEvent }>('GET', `/api/calendar/events/${id}`).then((r) => r.event),
  create: (e: Partial<EventInput>) =>
    api<{ event: CalendarEvent }>('POST', '/api/calendar/events', e).then((r) => r.event),
  update: (id: number, e: Partial<EventInput>) =>
    api<{ event: CalendarEvent }>('PUT', `/api/calendar/events/${id}`, e).then((r) => r.event),
  remove: (id: number) => api('DELETE', `/api/calendar/events/${id}`),
  feed: (renew: boolean) => api<{ token: string }>(renew ? 'POST' : 'GET', '/api/calendar/feed').then((r) => r.token),
};
