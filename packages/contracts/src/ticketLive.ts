import { z } from 'zod';
import { ASSIGN_STRATEGIES } from './ticketAssignment.js';
import { TICKET_PRIORITIES, TicketListItem, type TicketUpdated } from './tickets.js';

const id = z.coerce.number().int().positive();
const text = (max: number) => z.string().trim().max(max).optional().default('');

/**
 * RT-21, TICKET-01 (design): `POST /api/ticket/create`, a ticket an agent opens by hand (channel MANUAL).
 * Department, labels and campaign must be the account's (400 otherwise, nothing created).
 */
export const TicketCreateInput = z.object({
  title: z.string({ error: 'Title is required.' }).trim().min(1, 'Title is required.').max(200, 'Title is too long.'),
  name: text(200),
  email: text(200),
  phone: text(50),
  department_id: id.nullable().optional().default(null),
  priority: z.enum(TICKET_PRIORITIES).optional().default(''),
  label: z.array(id).max(100).optional().default([]),
  campaign_id: id.nullable().optional().default(null),
  case_type: text(100),
  other: z.record(z.string().max(100), z.unknown()).optional().default({}),
});
export type TicketCreateInput = z.input<typeof TicketCreateInput>;
export const TicketCreateAnswer = z.object({
  result: z.literal('success'),
  data: TicketListItem,
});

export const TICKET_CREATE_STRINGS = {
  unknownDepartment: 'No such department.',
  unknownLabel: (labelId: number) => `Unknown label: ${labelId}.`,
  unknownCampaign: 'No such campaign.',
} as const;

/** RT-21: `createTicket` (account room): a new ticket, as every list item minus the per-user flags. */
export type TicketCreated = TicketUpdated;

/**
 * TICKET-49, RT-31 (design): `channelDataUpdated` and `channelDataUpdated2` tell non-admins (their own
 * rooms) that a channel's conversation data changed: a ticket arrived or a customer wrote. The first is for
 * the ticket inbox channels, the second (same payload) for the conversation screens (LIVECHAT and the
 * internal chat). Clients refresh their unread counts and the channel's list on it. Admins see every ticket
 * through `createTicket`/`updateTicket` already and do not get these.
 */
export interface ChannelDataUpdated {
  /** The list it concerns (`ticket`, `livechat`, `chat`). */
  type: 'ticket' | 'livechat' | 'chat';
  channel: string;
  ticketId: number;
  /** `created` (a new ticket) or `message` (a customer message in an existing one). */
  reason: 'created' | 'message';
}

/**
 * RT-43, RT-44 (design): `GET /api/unread` answers one row per list with how many tickets the caller has
 * unread there: an open-type ticket (status 0, 1 or an open custom status) with a customer message after
 * the caller last read it. Counts stop at `UNREAD_CAP` (shown "99+").
 */
export const UnreadCount = z.object({ type: z.enum(['ticket', 'livechat', 'chat']), count: z.number() });
export type UnreadCount = z.infer<typeof UnreadCount>;
export const UnreadAnswer = z.object({ result: z.literal('success'), data: z.array(UnreadCount) });
export const UNREAD_CAP = 100;

/** RT-33 (design): `unreadCount2` (the user's own room): the caller's unread counts changed; the new counts. */
export interface UnreadCount2 {
  data: UnreadCount[];
}

/**
 * TICKET-41, RT-17 (design): `POST /api/ticket/read {id}` and the socket event `receivedTicket` (ticket id,
 * ack) mark a ticket read for the caller now. The web sends it when the ticket is open and the page focused.
 */
export const TicketReadInput = z.object({ id });
export const TicketReadAnswer = z.object({ result: z.literal('success'), unread: z.array(UnreadCount) });

/**
 * Per-department automatic assignment (issue 5): `strategy` null = off. `GET /api/ticket/autoassign/settings`
 * lists the departments that have it; `POST` sets one (admin).
 */
export const DepartmentAutoAssign = z.object({ department_id: id, strategy: z.enum(ASSIGN_STRATEGIES).nullable() });
export type DepartmentAutoAssign = z.infer<typeof DepartmentAutoAssign>;
export const DepartmentAutoAssignAnswer = z.object({
  result: z.literal('success'),
  data: z.array(z.object({ department_id: z.number(), strategy: z.enum(ASSIGN_STRATEGIES) })),
});

/** TICKET-39: the list keeps at most this many rows after live inserts. TICKET-42: the new-message stack. */
export const LIVE_LIST_MAX = 40;
export const NEW_MESSAGE_STACK_MAX = 40;
/** TICKET-57: the new-message highlight of a list item stays this long after the item is opened. */
export const NEW_MESSAGE_CLEAR_MS = 5_000;

/** What the web does when a ticket arrives live (TICKET-43, TICKET-45 .. TICKET-47). */
export interface ArrivalOutcome {
  /** Insert it into the shown list (it matches the shown status). */
  insert: boolean;
  /** Raise the "new ticket" notice (a non-open status is shown). */
  notice: boolean;
  /** Open the ticket popup automatically. */
  popup: boolean;
}

/**
 * TICKET-43, TICKET-45, TICKET-46, TICKET-47: the arrival rules. A new ticket is open (code 0) so it joins
 * the Open and All lists; under any filter but Open it raises the "new ticket" notice. A
 * non-admin gets the popup for a CALL ticket when the account's `popup_on_call` is 1, and for severity H;
 * an admin never gets it.
 */
export function arrivalOutcome(
  t: Pick<TicketListItem, 'channel' | 'severity' | 'closed'>,
  ctx: { isAdmin: boolean; popupOnCall: boolean; statusFilter: string; openCodes?: readonly number[] },
): ArrivalOutcome {
  const open = (ctx.openCodes ?? [0]).includes(t.closed);
  const shown = ctx.statusFilter === '4' || (ctx.statusFilter === '0' ? open : ctx.statusFilter === String(t.closed));
  const nonOpenFilter = ctx.statusFilter !== '0';
  const popup = !ctx.isAdmin && ((t.channel === 'CALL' && ctx.popupOnCall) || t.severity === 'H');
  return { insert: shown, notice: nonOpenFilter, popup };
}

/** TICKET-39: new rows first, then the rest without repeats, at most `max`. */
export function insertTrimmed<T extends { id: number }>(list: readonly T[], added: readonly T[], max = LIVE_LIST_MAX) {
  const ids = new Set(added.map((a) => a.id));
  return [...added, ...list.filter((x) => !ids.has(x.id))].slice(0, max);
}

/** TICKET-42: the new-message stack: most recent first, one entry per ticket, at most 40. */
export function pushNewMessage(stack: readonly number[], ticketId: number, max = NEW_MESSAGE_STACK_MAX): number[] {
  return [ticketId, ...stack.filter((x) => x !== ticketId)].slice(0, max);
}

/**
 * TICKET-45 (design): the account's ticket settings, in the account's settings JSON. `popup_on_call` 1 =
 * non-admins get the popup when a CALL ticket arrives. `GET /api/ticket/settings` (everyone),
 * `POST /api/ticket/settings` (admin).
 */
export const TicketSettings = z.object({ popup_on_call: z.union([z.literal(0), z.literal(1)]) });
export type TicketSettings = z.infer<typeof TicketSettings>;
export const TicketSettingsAnswer = z.object({ result: z.literal('success'), data: TicketSettings });
