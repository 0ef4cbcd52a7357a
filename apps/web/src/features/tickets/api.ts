import type { Label, TicketListItem, TicketLoadAnswer, TicketUpdated } from '@parley/contracts';
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { api } from '../../lib/http';

/** What the list screen asks for; everything but `status` maps onto the load call's query (TICKET-30). */
export interface TicketFilters {
  status: string;
  channels: string[];
  labels: string[];
  departments: string[];
  priorities: string[];
  sort: string;
  search: string;
}

export const DEFAULT_FILTERS: TicketFilters = {
  status: '0',
  channels: [],
  labels: [],
  departments: [],
  priorities: [],
  sort: 'updated',
  search: '',
};

function query(f: TicketFilters): string {
  const q = new URLSearchParams();
  if (f.channels.length) q.set('channelFilter', f.channels.join(','));
  if (f.labels.length) q.set('labelFilter', f.labels.join(','));
  if (f.departments.length) q.set('depFilter', f.departments.join(','));
  if (f.priorities.length) q.set('priorityFilter', f.priorities.join(','));
  if (f.sort !== 'updated') q.set('sort', f.sort);
  if (f.search.trim()) {
    const s = f.search.trim();
    q.set('field', /^\d+$/.test(s) ? 'ticket_number' : 'title');
    q.set('fieldValue', s);
  }
  const text = q.toString();
  return text ? `?${text}` : '';
}

/**
 * The web app is signed in by its HttpOnly cookie, which the server reads first; the `{token}` segment of
 * these paths is for token clients, so the app sends `me` there.
 */
export const ticketsApi = {
  load: (f: TicketFilters, offset: number) =>
    api<TicketLoadAnswer>('GET', `/api/ticket/load/me/${f.status}/ticket/${offset}${query(f)}`),
  load2: (tab: 'department' | 'label', status: string, id: number, offset: number) =>
    api<TicketLoadAnswer>('GET', `/ticket/load2/${tab}/${status}/ticket/${offset}/${id}`),
  labels: () => api<{ result: 'success'; data: Label[] }>('GET', '/api/label/get').then((r) => r.data),
  setPriority: (id: number, priority: string) =>
    api<{ result: 'success'; data: TicketListItem }>('POST', '/api/ticket/priority', { id, priority, type: 'ticket' }),
};

export const ticketKeys = {
  all: ['tickets'] as const,
  list: (f: TicketFilters) => ['tickets', 'list', f] as const,
  tab: (tab: string, status: string, id: number) => ['tickets', tab, status, id] as const,
  labels: ['labels', 'list'] as const,
};

type Pages = InfiniteData<TicketLoadAnswer, number>;

/** Applies a live `updateTicket` to every cached list that holds the ticket, keeping the caller's own flags. */
export function applyTicketUpdate(qc: QueryClient, t: TicketUpdated): void {
  qc.setQueriesData<Pages>({ queryKey: ticketKeys.all }, (data) => {
    if (!data?.pages) return data;
    return {
      ...data,
      pages: data.pages.map((p) => ({
        ...p,
        data: p.data.map((item) => (item.id === t.id ? { ...item, ...t } : item)),
      })),
    };
  });
}
