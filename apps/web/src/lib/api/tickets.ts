import {
  type Campaign,
  type DepartmentAutoAssign,
  type Label,
  type TicketBulkAnswer,
  type TicketBulkInput,
  type TicketInfo,
  type TicketListItem,
  type TicketLoadAnswer,
  TicketLoadQuery,
  type TicketSettings,
  type TicketUpdated,
  type TicketViewCounts,
  type UnreadCount,
} from '@parley/contracts';
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { api } from '../http';
import { ticketKeys } from '../queryKeys';
import { type AdvRow, advConditions } from './advConditions';

/** What the list screen asks for; everything but `status` maps onto the load call's query (TICKET-30). */
export interface TicketFilters {
  status: string;
  channels: string[];
  labels: string[];
  departments: string[];
  priorities: string[];
  sort: string;
  search: string;
  /**
   * TICKET-30 `field`: what the search reads: '' title, or the exact ticket number when only digits are
   * typed; else name, email or phone (contains).
   */
  searchField: SearchField;
  /** TICKET-10: one campaign id, '' for any. */
  campaign: string;
  /** TICKET-50: one username, '' for anyone. */
  agent: string;
  /** `withReply`: '' any, '1' answered by an agent, '0' not yet. */
  reply: string;
  /** TICKET-05, TICKET-08: quick date ranges; one of updated/created at a time (one `start`/`end` pair). */
  updated: DateSel;
  created: DateSel;
  appointment: DateSel;
  /** TICKET-62: only tickets whose appointment is under 2 days away (shown red). */
  apptLessTwoDays: boolean;
  /** TICKET-05, TICKET-62 `appt`: '' any, '1' has an appointment date, '0' has none. */
  appt: '' | '0' | '1';
  /** TICKET-06 `automatic`: '' any, '1' assigned automatically, '0' by a person or not assigned. */
  automatic: '' | '0' | '1';
  /** TICKET-06, TICKET-07: who set the status: '' any, 'auto' (`automaticStatus`), 'person' (`noAutomaticStatus`). */
  statusBy: '' | 'auto' | 'person';
  /** TICKET-06 `replyTAT`: first reply later than this many minutes ('' none). */
  replyTAT: string;
  /** TICKET-06 `advFilter`: the condition rows as edited; the complete ones are sent. */
  adv: AdvRow[];
  /** `assigned`: '0' only tickets assigned to nobody (the Unassigned view); set by the view, not the panel. */
  assigned?: '' | '0' | '1';
}

/** The search's field choices; '' is the title (or the ticket number when only digits are typed). */
export const SEARCH_FIELDS = ['', 'name', 'email', 'phone'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** TICKET-08: the preset's date values; '' is no range. */
export const DATE_SELS = ['current', 'yesterday', '1week'] as const;
export type DateSel = '' | (typeof DATE_SELS)[number];

/**
 * A quick range as unix seconds, inclusive, on the viewer's calendar: current = today, yesterday, 1week =
 * the last 7 days with today. Appointments look ahead, so their 1week is today and the next 6 days, and
 * their bounds name calendar days (the server reads the UTC day of each second, so midnight UTC of the
 * local date is sent).
 */
export function dateRange(sel: DateSel, kind: 'updated' | 'created' | 'appointment', now = Date.now()) {
  if (!sel) return null;
  const d = new Date(now);
  const day = (offset: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + offset);
  const [from, to] =
    sel === 'current'
      ? [day(0), day(0)]
      : sel === 'yesterday'
        ? [day(-1), day(-1)]
        : kind === 'appointment'
          ? [day(0), day(6)]
          : [day(-6), day(0)];
  if (kind === 'appointment')
    return {
      sd: Date.UTC(from.getFullYear(), from.getMonth(), from.getDate()) / 1000,
      ed: Date.UTC(to.getFullYear(), to.getMonth(), to.getDate()) / 1000,
    };
  const end = new Date(to.getFullYear(), to.getMonth(), to.getDate() + 1).getTime() - 1000;
  return { sd: Math.floor(from.getTime() / 1000), ed: Math.floor(end / 1000) };
}

export const DEFAULT_FILTERS: TicketFilters = {
  status: '0',
  channels: [],
  labels: [],
  departments: [],
  priorities: [],
  sort: 'updated',
  search: '',
  searchField: '',
  campaign: '',
  agent: '',
  reply: '',
  updated: '',
  created: '',
  appointment: '',
  apptLessTwoDays: false,
  appt: '',
  automatic: '',
  statusBy: '',
  replyTAT: '',
  adv: [],
};

function query(f: TicketFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.channels.length) q.set('channelFilter', f.channels.join(','));
  if (f.labels.length) q.set('labelFilter', f.labels.join(','));
  if (f.departments.length) q.set('depFilter', f.departments.join(','));
  if (f.priorities.length) q.set('priorityFilter', f.priorities.join(','));
  if (f.sort !== 'updated') q.set('sort', f.sort);
  if (f.campaign) q.set('campaignId', f.campaign);
  if (f.agent.trim()) q.set('agent', f.agent.trim());
  if (f.assigned) q.set('assigned', f.assigned);
  if (f.reply) q.set('withReply', f.reply);
  const received = f.created ? dateRange(f.created, 'created') : dateRange(f.updated, 'updated');
  if (received) {
    if (f.created) q.set('received', 'created');
    q.set('start', String(received.sd));
    q.set('end', String(received.ed));
  }
  const appt = dateRange(f.appointment, 'appointment');
  if (appt) {
    q.set('apptStart', String(appt.sd));
    q.set('apptEnd', String(appt.ed));
  }
  if (f.apptLessTwoDays) q.set('apptLessTwoDays', '1');
  if (f.appt) q.set('appt', f.appt);
  if (f.automatic) q.set('automatic', f.automatic);
  if (f.statusBy === 'auto') q.set('automaticStatus', '1');
  if (f.statusBy === 'person') q.set('noAutomaticStatus', '1');
  const tat = Number(f.replyTAT);
  if (f.replyTAT.trim() && Number.isInteger(tat) && tat >= 1 && tat <= 525_600) q.set('replyTAT', String(tat));
  const adv = advConditions(f.adv);
  if (adv.length) q.set('advFilter', JSON.stringify(adv));
  if (f.search.trim()) {
    const s = f.search.trim();
    q.set('field', f.searchField || (/^\d+$/.test(s) ? 'ticket_number' : 'title'));
    q.set('fieldValue', s);
  }
  return q;
}

/** The load call's query string of a filter set ('' or `?...`). */
export function loadQueryString(f: TicketFilters): string {
  const text = query(f).toString();
  return text ? `?${text}` : '';
}

/** The same query as the server reads it (TICKET-39: the arrival rules match new tickets against it). */
export function loadQuery(f: TicketFilters): TicketLoadQuery | null {
  const parsed = TicketLoadQuery.safeParse(Object.fromEntries(query(f)));
  return parsed.success ? parsed.data : null;
}

type Ok<T> = { result: 'success'; data: T };

/**
 * The web app is signed in by its HttpOnly cookie, which the server reads first; the `{token}` segment of
 * these paths is for token clients, so the app sends `me` there.
 */
export const ticketsApi = {
  /** A ticket's satisfaction survey link token (made on first ask; plans with surveys). */
  surveyLink: (ticketId: number) => api<{ token: string }>('POST', `/api/ticket/${ticketId}/survey`),
  load: (f: TicketFilters, offset: number) =>
    api<TicketLoadAnswer>('GET', `/api/ticket/load/me/${f.status}/ticket/${offset}${loadQueryString(f)}`),
  load2: (tab: 'department' | 'label', status: string, id: number, offset: number) =>
    api<TicketLoadAnswer>('GET', `/ticket/load2/${tab}/${status}/ticket/${offset}/${id}`),
  labels: () => api<Ok<Label[]>>('GET', '/api/label/get').then((r) => r.data),
  setPriority: (id: number, priority: string) =>
    api<Ok<TicketListItem>>('POST', '/api/ticket/priority', { id, priority, type: 'ticket' }),
  setStatus: (id: number, status: number) => api<Ok<TicketListItem>>('POST', '/api/ticket/status', { id, status }),
  /** TICKET-64: one of the account's campaigns, or null for none. */
  setCampaign: (id: number, campaign_id: number | null) =>
    api<Ok<TicketListItem>>('POST', '/api/ticket/campaign', { id, campaign_id }),
  create: (body: {
    title: string;
    name?: string;
    email?: string;
    phone?: string;
    priority?: string;
    department_id?: number | null;
    other?: Record<string, string>;
    message?: string;
    assignee?: string[];
    label?: number[];
    /** CRYPT-01: 'aes' or 'rsa' for an encrypted conversation; `message` is then already an envelope. */
    encryption_method?: '' | 'aes' | 'rsa';
  }) => api<Ok<TicketListItem>>('POST', '/api/ticket/create', body),
  /** TICKET-36, TICKET-37: one ticket in full (the info panel). */
  info: (id: number) => api<Ok<TicketInfo>>('GET', `/ticket/info/me/${id}`).then((r) => r.data),
  assign: (id: number, assignee: string[]) => api<Ok<TicketListItem>>('POST', '/api/ticket/assign', { id, assignee }),
  setLabels: (id: number, label: number[]) => api<Ok<TicketListItem>>('POST', '/api/ticket/labels', { id, label }),
  setDepartment: (id: number, department_id: number | null) =>
    api<Ok<TicketListItem>>('POST', '/api/ticket/department', { id, department_id }),
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
  /** The ticket list's views (Mine, Unassigned, All) counted under a status filter. */
  views: (status: string) =>
    api<Ok<TicketViewCounts>>('GET', `/api/ticket/views?filter=${encodeURIComponent(status)}`).then((r) => r.data),
  /** One action on many tickets in one transaction (ids, or every ticket matching a filter). */
  bulk: (body: TicketBulkInput) => api<TicketBulkAnswer>('POST', '/api/ticket/bulk', body),
  setAutoAssign: (s: DepartmentAutoAssign) => api<Ok<unknown>>('POST', '/api/ticket/autoassign/settings', s),
};

/** The load call's query of a filter set as an object (a bulk request's `filter.query`). */
export function loadQueryObject(f: TicketFilters): Record<string, string> {
  return Object.fromEntries(query(f));
}

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
