import type {
  Campaign,
  DepartmentAutoAssign,
  Label,
  TicketListItem,
  TicketLoadAnswer,
  TicketSettings,
  TicketUpdated,
  UnreadCount,
} from '@parley/contracts';
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
  /** TICKET-10: one campaign id, '' for any. */
  campaign: string;
  /** TICKET-50: one username, '' for anyone. */
  agent: string;
  /** `withReply`: '' any, '1' answered by an agent, '0' not yet. */
  reply: string;
}

export const DEFAULT_FILTERS: TicketFilters = {
  status: '0',
  channels: [],
  labels: [],
  departments: [],
  priorities: [],
  sort: 'updated',
  search: '',
  campaign: '',
  agent: '',
  reply: '',
};

function query(f: TicketFilters): string {
  const q = new URLSearchParams();
  if (f.channels.length) q.set('channelFilter', f.channels.join(','));
  if (f.labels.length) q.set('labelFilter', f.labels.join(','));
  if (f.departments.length) q.set('depFilter', f.departments.join(','));
  if (f.priorities.length) q.set('priorityFilter', f.priorities.join(','));
  if (f.sort !== 'updated') q.set('sort', f.sort);
  if (f.campaign) q.set('campaignId', f.campaign);
  if (f.agent.trim()) q.set('agent', f.agent.trim());
  if (f.reply) q.set('withReply', f.reply);
  if (f.search.trim()) {
    const s = f.search.trim();
    q.set('field', /^\d+$/.test(s) ? 'ticket_number' : 'title');
    q.set('fieldValue', s);
  }
  const text = q.toString();
  return text ? `?${text}` : '';
}

type Ok<T> = { result: 'success'; data: T };

/**
 * The web app is signed in by its HttpOnly cookie, which the server reads first; the `{token}` segment of
 * these paths is for token clients, so the app sends `me` there.
 */
export const ticketsApi = {
  load: (f: TicketFilters, offset: number) =>
    api<TicketLoadAnswer>('GET', `/api/ticket/load/me/${f.status}/ticket/${offset}${query(f)}`),
  load2: (tab: 'department' | 'label', status: string, id: number, offset: number) =>
    api<TicketLoadAnswer>('GET', `/ticket/load2/${tab}/${status}/ticket/${offset}/${id}`),
  labels: () => api<Ok<Label[]>>('GET', '/api/label/get').then((r) => r.data),
  setPriority: (id: number, priority: string) =>
    api<Ok<TicketListItem>>('POST', '/api/ticket/priority', { id, priority, type: 'ticket' }),
  setStatus: (id: number, status: number) => api<Ok<TicketListItem>>('POST', '/api/ticket/status', { id, status }),
  create: (body: { title: string; name?: string; email?: string; phone?: string; priority?: string }) =>
    api<Ok<TicketListItem>>('POST', '/api/ticket/create', body),
  read: (id: number) => api<{ result: 'success'; unread: UnreadCount[] }>('POST', '/api/ticket/read', { id }),
  unread: () => api<Ok<UnreadCount[]>>('GET', '/api/unread').then((r) => r.data),
  settings: () => api<Ok<TicketSettings>>('GET', '/api/ticket/settings').then((r) => r.data),
  saveSettings: (s: TicketSettings) => api<Ok<TicketSettings>>('POST', '/api/ticket/settings', s),
  campaigns: (page: number) =>
    api<{ data: Campaign[]; total: number }>('GET', `/api/campaign/list?pagination=5&page=${page}`),
  autoAssign: () =>
    api<Ok<{ department_id: number; strategy: string }[]>>('GET', '/api/ticket/autoassign/settings').then(
      (r) => r.data,
    ),
  setAutoAssign: (s: DepartmentAutoAssign) => api<Ok<unknown>>('POST', '/api/ticket/autoassign/settings', s),
};

export const ticketKeys = {
  all: ['tickets'] as const,
  list: (f: TicketFilters) => ['tickets', 'list', f] as const,
  tab: (tab: string, status: string, id: number) => ['tickets', tab, status, id] as const,
  kanban: (status: string) => ['tickets', 'kanban', status] as const,
  labels: ['labels', 'list'] as const,
  unread: ['ticketUnread'] as const,
  settings: ['ticketSettings'] as const,
  campaigns: (page: number) => ['campaigns', page] as const,
  autoAssign: ['ticketAutoAssign'] as const,
};

type Pages = InfiniteData<TicketLoadAnswer, number>;

/**
 * Applies a live `updateTicket` to every cached list that holds the ticket, keeping the caller's own flags;
 * a later customer message (`last_message_at` moved) makes it news for this user (TICKET-42).
 */
export function applyTicketUpdate(qc: QueryClient, t: TicketUpdated): void {
  qc.setQueriesData<Pages>({ queryKey: ticketKeys.all }, (data) => {
    if (!data?.pages) return data;
    return {
      ...data,
      pages: data.pages.map((p) => ({
        ...p,
        data: p.data.map((item) =>
          item.id === t.id
            ? { ...item, ...t, newMessage: item.newMessage || t.last_message_at > item.last_message_at }
            : item,
        ),
      })),
    };
  });
}

/** TICKET-41: the caller read a ticket: clear its news in every cached list. */
export function applyRead(qc: QueryClient, id: number): void {
  qc.setQueriesData<Pages>({ queryKey: ticketKeys.all }, (data) => {
    if (!data?.pages) return data;
    return {
      ...data,
      pages: data.pages.map((p) => ({
        ...p,
        data: p.data.map((item) => (item.id === id ? { ...item, read: true, newMessage: false } : item)),
      })),
    };
  });
}
