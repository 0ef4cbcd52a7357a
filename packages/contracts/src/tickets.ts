import { z } from 'zod';
import { CallFilterQueryFields } from './calls.js';
import { CHANNELS, type Channel, LIVECHAT_CODES, TICKET_STATUS } from './constants.js';
import { TICKET_FILTER_STRINGS, TicketFilterQueryFields } from './ticketFilters.js';

/** TICKET-23: names of the default status codes; 4 means "all" in filters. */
export const TICKET_STATUS_NAMES: Record<number, string> = { 0: 'Open', 1: 'Pending', 2: 'Resolved', 3: 'Closed' };

/** TICKET-23: the name of a status code; a custom status by its code, any other code "?". */
export function ticketStatusName(code: number, custom: { status_code: number; name: string }[] = []): string {
  return TICKET_STATUS_NAMES[code] ?? custom.find((c) => c.status_code === code)?.name ?? '?';
}

/**
 * TICKET-26, TICKET-67 (design): the chat filter words and the code each stands for. "closed" is code 3
 * only; "solved" is Resolved (2), the spec's own name for that code (TICKET-22).
 */
export const TICKET_FILTER_WORDS = {
  open: TICKET_STATUS.open,
  pending: TICKET_STATUS.pending,
  solved: TICKET_STATUS.resolved,
  closed: TICKET_STATUS.closed,
  all: TICKET_STATUS.all,
} as const;
export type TicketFilterWord = keyof typeof TICKET_FILTER_WORDS;

/**
 * The `{filter}` of the load calls: a status code 0 to 4, a custom status code (5 and up; the
 * server checks the account has it) or a chat word; null for anything else.
 */
export function parseTicketFilter(v: string): number | null {
  if (/^[0-4]$/.test(v)) return Number(v);
  if (/^([5-9]|[1-9]\d{1,5})$/.test(v)) return Number(v);
  return Object.hasOwn(TICKET_FILTER_WORDS, v) ? TICKET_FILTER_WORDS[v as TicketFilterWord] : null;
}

export const TICKET_STRINGS = {
  /** A customer wrote to a Pending ticket (one waiting for the customer): it is the team's turn again. */
  customerReopened: 'The customer wrote again: the status is back to Open.',
  badFilter: 'Unknown filter: use a status code 0 to 4, a custom status code or open, pending, solved, closed or all.',
  badType: 'Unknown list type: use ticket, chat, livechat, call2 or call.',
  badOffset: 'The offset must be a whole number of 0 or more.',
  badLabel: 'Unknown label in labelFilter.',
  badDepartment: 'Unknown department in depFilter.',
  notFound: 'Ticket not found.',
  departmentNotFound: 'No such department.',
  labelNotFound: 'Label not found.',
} as const;

/** TICKET-19: lower-case `livechat` is stored by some sources and means LIVECHAT. */
export const CHANNEL_ALIASES: Record<string, Channel> = { livechat: 'LIVECHAT' };

/** TICKET-19: a live chat's ticket, under either stored spelling (`LIVECHAT` or `livechat`). */
export const isLiveChatChannel = (channel: string) => (LIVECHAT_CODES as readonly string[]).includes(channel);

/** TICKET-18: the display name of a channel code; an unknown code shows as it is. */
export function channelName(code: string): string {
  const c = CHANNEL_ALIASES[code] ?? code;
  return Object.hasOwn(CHANNELS, c) ? CHANNELS[c as Channel] : code;
}

/**
 * Where channels are picked from a list (the ticket filter), two codes sharing one display name would show
 * twice alike; the Microsoft 365 mailbox says which it is, in words (never the code).
 */
export function channelPickName(code: string): string {
  return code === 'GRAPH_EMAIL' ? 'Microsoft 365 Email' : channelName(code);
}

/**
 * TICKET-30, TICKET-32 (design): which channels each `{type}` of the load call lists.
 * - `ticket`: the ticket inbox, every channel but the two conversation pages (internal `chat` and
 *   LIVECHAT); CALL tickets are included (TICKET-58: call tickets sit in the ticket list).
 * - `chat`: internal Workspace conversations (`chat`), the list the chat filter words serve.
 * - `livechat`: website visitor chats (LIVECHAT, also stored as `livechat`).
 * - `call2`: call tickets (CALL) as ticket-list items, for the call log.
 * - `call`: the older name of the same list, kept so old clients work; it selects exactly what call2 does.
 * `null` means "every channel except the listed ones" (see `excluded`).
 */
export const TICKET_LIST_TYPES = {
  ticket: { only: null, excluded: ['chat', 'LIVECHAT', 'livechat'] },
  chat: { only: ['chat'], excluded: [] },
  livechat: { only: ['LIVECHAT', 'livechat'], excluded: [] },
  call2: { only: ['CALL'], excluded: [] },
  call: { only: ['CALL'], excluded: [] },
} as const satisfies Record<string, { only: readonly string[] | null; excluded: readonly string[] }>;
export type TicketListType = keyof typeof TICKET_LIST_TYPES;

/** TICKET-20: severity/priority; '' is "none". */
export const TICKET_PRIORITIES = ['H', 'M', 'L', ''] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];
/** TICKET-13: the priority sort order, H, then none, then M, then L. */
export const PRIORITY_SORT_ORDER = ['H', '', 'M', 'L'] as const;
export const prioritySortRank = (p: string): number => {
  const i = (PRIORITY_SORT_ORDER as readonly string[]).indexOf(p);
  return i < 0 ? PRIORITY_SORT_ORDER.length : i;
};

/** TICKET-38: rows per page of the ticket, chat and call lists; more exist while a page comes back full. */
export const TICKET_PAGE_SIZE = 30;
/** TICKET-35: rows per step of the Department and Label tabs. */
export const TICKET_LOAD2_STEP = 10;
/** TICKET-10: campaigns per page of the campaign picker. */
export const CAMPAIGN_PAGE_SIZE = 5;

/** TICKET-15: a call ticket's direction; '' when the ticket is not a call. */
export const CALL_DIRECTIONS = ['', 'inbound', 'outbound'] as const;
/** CRYPT-01, TICKET-14: how an encrypted ticket is encrypted; '' when it is not. */
export const ENCRYPTION_METHODS = ['', 'rsa', 'aes'] as const;

/** TICKET-15: one row of a ticket list, as the caller sees it. */
export const TicketListItem = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  /** Status code (TICKET-14 `closed`). */
  closed: z.number(),
  /** The caller has opened this ticket at least once. */
  read: z.boolean(),
  severity: z.enum(TICKET_PRIORITIES),
  case_type: z.string(),
  /** Label ids. */
  label: z.array(z.number()),
  /** TICKET-21: the assignees' usernames, comma-separated ('' when nobody); `assigneeList` splits it. */
  assignee: z.string(),
  department_id: z.number().nullable(),
  campaign_id: z.number().nullable(),
  /** Milliseconds since the epoch. */
  created_at: z.number(),
  updated_at: z.number(),
  /** `updated_at` in unix seconds (TICKET-14). */
  ts: z.number(),
  hasResponded: z.boolean(),
  /** When the last customer message came in (ms), 0 when none has; clients compare it to mark news live. */
  last_message_at: z.number(),
  /** A message came in after the caller last read the ticket (or they never did). */
  newMessage: z.boolean(),
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  /** TICKET-15, TICKET-60: an end-to-end encrypted conversation (it cannot be opened in a popup). */
  encryption: z.boolean(),
  /** Free-form JSON (TICKET-15), e.g. a "Preferred Appointment Date". */
  other: z.record(z.string(), z.unknown()),
  /** TICKET-14, TICKET-15 (design): the conversation holds a file (set when its first file message is stored). */
  attachment: z.boolean(),
  /** TICKET-15 (design): the source's own reference for the conversation (e-mail Message-ID, post or call id). */
  ref: z.string(),
  /** TICKET-15 (design): which of the account's addresses an e-mail ticket came to; '' for other channels. */
  receiver_email: z.string(),
  /** TICKET-15 (design): the emotion last detected in the customer's messages (AI hints); '' when none. */
  emotion: z.string(),
  /** TICKET-14, TICKET-15: emotion name -> how many of the ticket's messages showed it. */
  emotion_2: z.record(z.string(), z.number()),
  /** TICKET-15: a call ticket's direction; '' for other channels. */
  call_direction: z.enum(CALL_DIRECTIONS),
  /** TICKET-15: the number (DID) a call came in on or went out from; '' for other channels. */
  did: z.string(),
});
export type TicketListItem = z.infer<typeof TicketListItem>;

/**
 * TICKET-14, TICKET-37 (design): `GET /ticket/info`, the Ticket: the list item plus who read it, who is
 * typing in it now, and the fields only the conversation needs.
 */
export const TicketInfo = TicketListItem.extend({
  statusName: z.string(),
  reader: z.array(z.string()),
  /** The name of the ticket's campaign (`campaign_id`), '' when it has none. */
  campaignName: z.string(),
  /**
   * TICKET-66, RT-11, RT-39: usernames typing in the ticket now (a `sendTyping` in the last 5 s without a
   * `removeTyping`), read from the live sockets, never stored.
   */
  typing: z.array(z.string()),
  /** TICKET-14: the live chat session of a LIVECHAT ticket; null for other channels. */
  session_id: z.number().nullable(),
  /** Design: the state of a LIVECHAT ticket's live chat (queued, chatting, ended, ...); null for other channels. */
  livechat_state: z.string().nullable(),
  /** TICKET-14, MSG-52: the language replies are translated into, and the customer's own; '' when unset. */
  language: z.string(),
  source_lang: z.string(),
  /** TICKET-14, CRYPT-01: rsa or aes; '' when not encrypted. */
  encryption_method: z.enum(ENCRYPTION_METHODS),
  /** TICKET-14 (design): the customer's default conversation on its channel (new messages of theirs join it). */
  default_chat: z.boolean(),
  /** TICKET-14 (design): the user who opened the ticket (by hand or a Workspace chat); null when a customer did. */
  userId: z.number().nullable(),
  /** The contact the conversation is with (see docs/contacts.md) and how many conversations it has; null without one. */
  contact: z.object({ id: z.number(), name: z.string(), conversations: z.number() }).nullable(),
});
export type TicketInfo = z.infer<typeof TicketInfo>;
export const TicketInfoAnswer = z.object({ result: z.literal('success'), data: TicketInfo });

/** TICKET-30: `{data, count}`; count is every matching row, not the page. */
export const TicketLoadAnswer = z.object({ data: z.array(TicketListItem), count: z.number() });
export type TicketLoadAnswer = z.infer<typeof TicketLoadAnswer>;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const csv = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (v === '' ? undefined : v.split(',').map((x) => x.trim())) : v),
    z.array(item).max(100).optional(),
  );
const id = z.coerce.number().int().positive();
const seconds = z.preprocess(blank, z.coerce.number().int().min(0).optional());
/** A 0/1 switch of the load call; `true`/`false` are read the same way. */
const flag = z.preprocess((v) => (v === 'true' ? '1' : v === 'false' ? '0' : blank(v)), z.enum(['0', '1']).optional());

export const TICKET_SORTS = ['updated', 'created', 'priority'] as const;
export const TICKET_SEARCH_FIELDS = ['title', 'name', 'email', 'phone', 'ticket_number'] as const;
export const CHANNEL_CODES = [...Object.keys(CHANNELS), ...Object.keys(CHANNEL_ALIASES)] as [string, ...string[]];

/**
 * TICKET-30 query of the load calls. Lists are comma-separated; an empty value means "no filter".
 * Design (TICKET-06, TICKET-12), as built:
 * - `sort`: `updated` (default, newest activity first, TICKET-11), `created` (newest first), `priority`
 *   (H, none, M, L, TICKET-13; then newest activity). Ties break on id, newest first.
 * - `start`/`end`: unix seconds, both inclusive; `received` says which time they bound: `updated`
 *   (default) or `created` (the ticket's received time).
 * - `agent`: one username; a ticket matches when it is among its assignees.
 * - `assigned`: 1 = it has an assignee, 0 = nobody (the Unassigned view).
 * - `priorityFilter`: H, M, L and `none` (no priority). `channelFilter`: channel codes.
 * - `labelFilter`: label ids, a ticket matches when it has any of them; `depFilter`: department ids. An id
 *   that is not the caller's account's is refused (400), never silently ignored.
 * - `withReply`: 1 = an agent has answered, 0 = not yet.
 * - `field` + `fieldValue`: a case-insensitive "contains" search on one of title, name, email, phone, or an
 *   exact ticket number.
 * - Appointment (TICKET-62, the customer's "Preferred Appointment Date" in `other`, read as a calendar day
 *   when written YYYY-MM-DD...; other spellings do not match these filters): `apptStart`/`apptEnd` in unix
 *   seconds bound the day (UTC days, inclusive); `apptLessTwoDays` 1 = under 2 days away, past ones
 *   included (the list shows those red); `appt` 1 = has an appointment date, 0 = has none.
 * - `advFilter`, `automatic`, `automaticStatus`, `noAutomaticStatus`, `replyTAT`: see `ticketFilters.ts`.
 * Contradictions are a 400: automaticStatus and noAutomaticStatus both 1, appt=0 with another appointment
 * filter, fieldValue without field.
 */
const TicketLoadFields = z.object({
  campaignId: z.preprocess(blank, id.optional()),
  agent: z.preprocess(blank, z.string().max(100).optional()),
  assigned: flag,
  received: z.preprocess(blank, z.enum(['updated', 'created']).default('updated')),
  start: seconds,
  end: seconds,
  priorityFilter: csv(z.enum(['H', 'M', 'L', 'none'])),
  channelFilter: csv(z.enum(CHANNEL_CODES)),
  labelFilter: csv(id),
  depFilter: csv(id),
  sort: z.preprocess(blank, z.enum(TICKET_SORTS).default('updated')),
  withReply: z.preprocess(blank, z.enum(['0', '1']).optional()),
  field: z.preprocess(blank, z.enum(TICKET_SEARCH_FIELDS).optional()),
  fieldValue: z.preprocess(blank, z.string().max(200).optional()),
  apptStart: seconds,
  apptEnd: seconds,
  appt: flag,
  apptLessTwoDays: flag,
  ...TicketFilterQueryFields,
  ...CallFilterQueryFields,
});
export const TicketLoadQuery = TicketLoadFields.superRefine((q, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (q.automaticStatus === '1' && q.noAutomaticStatus === '1')
    issue('noAutomaticStatus', TICKET_FILTER_STRINGS.bothAutomaticStatus);
  if (q.appt === '0' && (q.apptStart !== undefined || q.apptEnd !== undefined || q.apptLessTwoDays === '1'))
    issue('appt', TICKET_FILTER_STRINGS.apptConflict);
  if (q.fieldValue !== undefined && q.field === undefined)
    issue('fieldValue', TICKET_FILTER_STRINGS.fieldValueWithoutField);
});
export type TicketLoadQuery = z.infer<typeof TicketLoadQuery>;

/** Path of `/ticket/load/{token}/{filter}/{type}/{offset}`; filter and type are checked by the handler. */
export const TicketLoadParams = z.object({
  token: z.string().max(200),
  filter: z.string().max(20),
  type: z.string().max(20),
  offset: z.string().max(20),
});

/** Path of `/ticket/load2/{department|label}/{status}/ticket/{offset}/{id}` (TICKET-33, TICKET-34). */
export const TicketLoad2Params = z.object({
  status: z.string().max(20),
  offset: z.string().max(20),
  id: z.coerce.number().int().positive(),
});

/** TICKET-51, TICKET-52 (design): `type` is the list the client shows the ticket in; it is checked, not used. */
export const TicketPriorityInput = z.object({
  id: z.coerce.number().int().positive(),
  priority: z.enum(TICKET_PRIORITIES),
  type: z.enum(Object.keys(TICKET_LIST_TYPES) as [TicketListType, ...TicketListType[]]).optional(),
});
export type TicketPriorityInput = z.infer<typeof TicketPriorityInput>;
export const TicketPriorityAnswer = z.object({ result: z.literal('success'), data: TicketListItem });

/** `updateTicket` (RT): a ticket changed; the item without the per-user read state. */
export const TicketUpdated = TicketListItem.omit({ read: true, newMessage: true });
export type TicketUpdated = z.infer<typeof TicketUpdated>;

/**
 * `ticketsMerged` (RT, account room): the messages of `merged` moved under `ticketId`. Open conversations of
 * any of them load again (the moved messages keep their ids and are not sent again as new ones).
 */
export interface TicketsMerged {
  ticketId: number;
  merged: number[];
}

/** TICKET-63: today shows the time, yesterday "Yesterday", else D/M/YYYY (local time). */
export function ticketDate(ms: number, now: number = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  const sameDay = (a: Date, b: Date) =>
    a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  if (sameDay(d, today)) return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  if (sameDay(d, yesterday)) return 'Yesterday';
  return `${d.getDate()}/${d.getMonth() + 1}/${d.getFullYear()}`;
}

/** TICKET-21: the usernames of a ticket's comma-separated `assignee`, in order, without blanks. */
export function assigneeList(assignee: string): string[] {
  return assignee
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
}

/** TICKET-61: up to 3 names, then "+ N". */
export function assigneeText(names: readonly string[]): string {
  if (names.length <= 3) return names.join(', ');
  return `${names.slice(0, 3).join(', ')} + ${names.length - 3}`;
}
