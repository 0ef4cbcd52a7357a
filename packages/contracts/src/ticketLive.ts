import { z } from 'zod';
import { ENCRYPTION_STRINGS, parseEnvelope } from './encryption.js';
import { isEmailAddress } from './messages.js';
import { ASSIGN_STRATEGIES } from './ticketAssignment.js';
import { ticketMatchesList } from './ticketFiltersMatch.js';
import {
  CALL_DIRECTIONS,
  ENCRYPTION_METHODS,
  TICKET_PRIORITIES,
  TicketListItem,
  type TicketListType,
  TicketLoadQuery,
  type TicketUpdated,
} from './tickets.js';

const id = z.coerce.number().int().positive();
const text = (max: number) => z.string().trim().max(max).optional().default('');

/**
 * RT-21, TICKET-01 (design): `POST /api/ticket/create`, a ticket an agent opens by hand: channel MANUAL, or
 * CALL for a phone call logged by hand (TICKET-15 `call_direction` and `did`, which only a CALL ticket
 * takes). Department, labels and campaign must be the account's (400 otherwise, nothing created).
 */
export const TicketCreateInput = z
  .object({
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
    channel: z.enum(['MANUAL', 'CALL']).optional().default('MANUAL'),
    call_direction: z.enum(CALL_DIRECTIONS).optional().default(''),
    did: z
      .string()
      .trim()
      .max(50)
      .regex(/^\+?[0-9 ()-]*$/, 'did must be a phone number.')
      .optional()
      .default(''),
    /**
     * The customer's first message, stored as the customer's (sender `visitor`, their name), so the ticket
     * reads as the customer wrote it; needs a customer (a name, e-mail or phone).
     */
    message: text(20_000),
    /** Usernames of active users of the account to assign it to at once (the ticket's own assignment). */
    assignee: z.array(z.string().trim().min(1).max(100)).max(50).optional().default([]),
    /**
     * CRYPT-01: the conversation is encrypted end to end ('aes' or 'rsa'; docs/encryption.md). Only a MANUAL
     * ticket, and its first `message`, if any, must already be an envelope of that method.
     */
    encryption_method: z.enum(ENCRYPTION_METHODS).optional().default(''),
  })
  .superRefine((t, ctx) => {
    if (t.email !== '' && !isEmailAddress(t.email))
      ctx.addIssue({ code: 'custom', path: ['email'], message: TICKET_CREATE_STRINGS.badEmail(t.email) });
    if (t.message !== '' && t.name === '' && t.email === '' && t.phone === '')
      ctx.addIssue({ code: 'custom', path: ['name'], message: TICKET_CREATE_STRINGS.customerRequired });
    if (t.encryption_method !== '' && t.channel !== 'MANUAL')
      ctx.addIssue({ code: 'custom', path: ['encryption_method'], message: ENCRYPTION_STRINGS.encryptedOnlyManual });
    if (t.encryption_method !== '' && t.message !== '' && parseEnvelope(t.message)?.m !== t.encryption_method)
      ctx.addIssue({ code: 'custom', path: ['message'], message: ENCRYPTION_STRINGS.firstMessagePlain });
    if (t.channel !== 'CALL' && (t.call_direction !== '' || t.did !== ''))
      ctx.addIssue({ code: 'custom', path: ['channel'], message: TICKET_CREATE_STRINGS.callFieldsWithoutCall });
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
  callFieldsWithoutCall: 'call_direction and did are for CALL tickets only.',
  customerRequired: "Give the customer's name, e-mail or phone.",
  badEmail: (address: string) => `Please check the email address. ${address}`,
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
 * Per-department automatic assignment: `strategy` null = off. `GET /api/ticket/autoassign/settings`
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

/** What the web does when a ticket arrives live (TICKET-39, TICKET-43, TICKET-45 .. TICKET-47, CRYPT-10). */
export interface ArrivalOutcome {
  /** Insert it into the shown list: it matches the list's status and every other filter. */
  insert: boolean;
  /** Raise the "new ticket" notice (a non-open status is shown). */
  notice: boolean;
  /** Open the ticket popup automatically. */
  popup: boolean;
  /** The list's filters cannot be decided from the ticket (`serverOnlyFilters`): load the list again. */
  reload: boolean;
}

/**
 * TICKET-43, TICKET-45, TICKET-46, TICKET-47: the arrival rules. A new ticket joins the list on screen only
 * when it matches every filter of that list (`ticketMatchesList`: status, type, channel, label, department,
 * priority, campaign, agent, dates, appointment, search, conditions); when the list uses a filter only the
 * server can decide, the list is loaded again instead. Under any status filter but Open it raises the
 * "new ticket" notice. A non-admin gets the popup for a CALL ticket when the account's `popup_on_call` is 1,
 * and for severity H; an admin never does, and nobody for an encrypted ticket (CRYPT-10: it cannot be
 * opened through the popup).
 */
export function arrivalOutcome(
  t: Parameters<typeof ticketMatchesList>[0] & Pick<TicketListItem, 'encryption'>,
  ctx: {
    isAdmin: boolean;
    popupOnCall: boolean;
    statusFilter: string;
    openCodes?: readonly number[];
    /** The list's type and query (`ticket` and no filters when left out). */
    type?: TicketListType;
    query?: TicketLoadQuery;
  },
  now: number = Date.now(),
): ArrivalOutcome {
  const match = ticketMatchesList(
    t,
    {
      status: Number(ctx.statusFilter),
      type: ctx.type ?? 'ticket',
      query: ctx.query ?? TicketLoadQuery.parse({}),
      openCodes: ctx.openCodes ?? [0],
    },
    now,
  );
  const popup = !ctx.isAdmin && !t.encryption && ((t.channel === 'CALL' && ctx.popupOnCall) || t.severity === 'H');
  return { insert: match === 'match', notice: ctx.statusFilter !== '0', popup, reload: match === 'unknown' };
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
