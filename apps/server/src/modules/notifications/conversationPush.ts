import {
  ENCRYPTION_STRINGS,
  isLiveChatChannel,
  looksLikeEnvelope,
  type NewMessageEvent,
  notificationLink,
  type PushPayload,
  SENDERS,
  type TicketCreated,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Listener, StoredEvent } from '../../platform/outbox/index.js';
import { NOTIFY_STRINGS } from './notifications.strings.js';
import { FOCUS_STALE_MS, type PushOptions, pushToUser } from './push.js';

/** A push about a conversation rather than a stored notification: `tag` lets a repeat replace the first. */
export interface ConversationPush extends PushPayload {
  kind: 'ticket' | 'message';
  /** The browser notification tag; the web app shows its own notification of a message under the same tag. */
  tag: string;
  /** The ticket's channel code, so a client can apply its per-channel choice. */
  channel: string;
  ticket_number: number;
}

/** Senders that are neither an agent nor a customer. */
const NOT_CUSTOMER = new Set<string>([SENDERS.server, SENDERS.translatebot, 'bot', 'chatbot']);
/** Internal Workspace conversations: no customer, no push here (that module tells its own members). */
const INTERNAL = new Set<string>([WORKSPACE_CHANNEL]);

const parseIds = (s: string): number[] => {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};

const usernames = (assignee: string) =>
  new Set(
    assignee
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );

async function ticketOf(db: DB, accountId: number, id: number) {
  return db
    .selectFrom('tickets')
    .select(['id', 'ticket_number', 'title', 'channel', 'assignee', 'department_id', 'name', 'email', 'phone'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

async function activeUsers(db: DB, accountId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'type', 'departments'])
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .execute();
}

type UserRow = Awaited<ReturnType<typeof activeUsers>>[number];

/**
 * Who hears of a new ticket: its assignees; when it has none, the active users of its department;
 * when it has no department either, every active user of the account (a team without departments shares one
 * inbox). Read when the event is delivered, so an automatic assignment made with the ticket counts.
 */
export function newTicketAudience(users: UserRow[], t: { assignee: string; department_id: number | null }) {
  const assignees = usernames(t.assignee);
  const assigned = users.filter((u) => assignees.has(u.username.toLowerCase()));
  if (assigned.length > 0) return assigned;
  const dept = t.department_id === null ? null : Number(t.department_id);
  return dept === null ? users : users.filter((u) => parseIds(u.departments).includes(dept));
}

/**
 * Pushes to those of `users` with a subscription and no focused tab: two queries for the whole audience (a
 * new ticket may reach every user of a large account), then one send per subscription.
 */
async function pushUnfocused(o: PushOptions, accountId: number, users: UserRow[], payload: ConversationPush) {
  // A message follows each browser's per-channel choice; a new ticket goes to every subscription.
  const messageChannel = payload.kind === 'message' ? payload.channel : undefined;
  const ids = users.map((u) => Number(u.id));
  if (ids.length === 0) return;
  const subscribed = await o.db
    .selectFrom('push_subscriptions')
    .select('user_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('user_id', 'in', ids)
    .execute();
  const targets = subscribed.map((r) => Number(r.user_id));
  if (targets.length === 0) return;
  const focused = await o.db
    .selectFrom('notification_focus')
    .select('user_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('user_id', 'in', targets)
    .where('focused', '=', 1)
    .where('updated_at', '>', Date.now() - FOCUS_STALE_MS)
    .execute();
  const busy = new Set(focused.map((r) => Number(r.user_id)));
  for (const userId of targets) if (!busy.has(userId)) await pushToUser(o, accountId, userId, payload, messageChannel);
}

async function onTicketCreated(o: PushOptions, e: StoredEvent) {
  const id = Number((e.payload as Partial<TicketCreated>).id);
  if (!Number.isInteger(id)) return;
  const t = await ticketOf(o.db, e.accountId, id);
  if (!t || INTERNAL.has(t.channel)) return;
  const users = newTicketAudience(await activeUsers(o.db, e.accountId), t);
  const ticketNumber = Number(t.ticket_number);
  await pushUnfocused(o, e.accountId, users, {
    kind: 'ticket',
    id,
    tag: `ticket-${id}`,
    title: NOTIFY_STRINGS.newTicketTitle(ticketNumber),
    body: NOTIFY_STRINGS.newTicketBody(t.title, t.name || t.email || t.phone),
    category: 'system',
    type: 'others',
    channel: t.channel,
    ticket_number: ticketNumber,
    url: notificationLink({ channel: 'ticket', ticket_number: ticketNumber }),
  });
}

async function onMessageCreated(o: PushOptions, e: StoredEvent) {
  const m = e.payload as Partial<NewMessageEvent>;
  const ticketId = Number(m.ticketId);
  if (!Number.isInteger(ticketId) || typeof m.sender !== 'string' || m.type === 'system') return;
  // An agent's or the server's message: no push, and no read of the ticket or the users to find that out.
  if (m.fromCustomer === false || NOT_CUSTOMER.has(m.sender)) return;
  const t = await ticketOf(o.db, e.accountId, ticketId);
  if (!t || INTERNAL.has(t.channel)) return;
  const users = await activeUsers(o.db, e.accountId);
  const sender = m.sender.toLowerCase();
  // A user of the account wrote it (an agent's reply): not a customer's message.
  if (sender !== SENDERS.visitor && users.some((u) => u.username.toLowerCase() === sender)) return;
  const assignees = usernames(t.assignee);
  const mine = users.filter((u) => assignees.has(u.username.toLowerCase()));
  if (mine.length === 0) return;
  const ticketNumber = Number(t.ticket_number);
  const livechat = isLiveChatChannel(t.channel);
  await pushUnfocused(o, e.accountId, mine, {
    kind: 'message',
    id: Number(m.id),
    tag: `message-${Number(m.id)}`,
    title: NOTIFY_STRINGS.newMessageTitle(m.senderName || t.name || m.sender, ticketNumber),
    body: NOTIFY_STRINGS.newMessageBody(
      looksLikeEnvelope(m.message ?? '') ? ENCRYPTION_STRINGS.notificationBody : (m.message ?? ''),
      (m.files ?? []).map((f) => f.fileName),
    ),
    category: 'system',
    type: 'others',
    channel: t.channel,
    ticket_number: ticketNumber,
    url: notificationLink({ channel: livechat ? 'livechat' : 'ticket', ticket_number: ticketNumber }),
  });
}

/**
 * Web Push for new tickets (to `newTicketAudience`) and for customers' messages in my tickets (to the
 * ticket's assignees), each only to users with no focused tab; a message only to the subscriptions whose
 * browser has its channel's MessageNotification choice on (NOTIF-37, NOTIF-38). An effect (at-least-once): a repeat carries the
 * same tag, so the browser replaces the first notification instead of adding one.
 */
export function conversationPushListener(o: PushOptions): Listener {
  return {
    name: 'notifications.conversationPush',
    kind: 'effect',
    // Pushes of different events are independent: the relay may send several at once.
    unordered: true,
    events: ['ticket.created', 'message.created'],
    async handle(e: StoredEvent) {
      if (e.type === 'ticket.created') await onTicketCreated(o, e);
      else await onMessageCreated(o, e);
    },
  };
}
