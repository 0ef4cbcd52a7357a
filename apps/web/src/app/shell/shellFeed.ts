import { assigneeList, isLiveChatChannel, type TicketUpdated, type UnreadCount } from '@parley/contracts';

/**
 * SHELL-40: the page title's unread total: tickets and live chats with a customer message the user has not
 * read (`GET /api/unread`, `unreadCount2`), plus Workspace chats with unread messages (the chat list's total).
 * The `chat` row of `/api/unread` is left out: Workspace chats are counted by the chat list, once.
 */
export function unreadTotal(counts: readonly UnreadCount[] | undefined, chatUnread: number): number {
  const conversations = (counts ?? []).filter((c) => c.type !== 'chat').reduce((n, c) => n + c.count, 0);
  return conversations + chatUnread;
}

/** NAV-05: the Tickets entry's badge: an unread ticket in the Tickets list (live chats have their own tab). */
export const ticketsUnread = (counts: readonly UnreadCount[] | undefined) =>
  (counts ?? []).some((c) => c.type === 'ticket' && c.count > 0);

/**
 * NAV-10, NAV-27 (design): the Kanban flag goes up when the board changed while the admin was elsewhere: a
 * ticket was created, or a ticket's status changed. A status change is recognised for a ticket whose status
 * this page knew before (from a list or board it loaded, or an earlier live event): `known` maps ticket id to
 * status and is kept up to date here. Returns whether the event changes the board.
 */
export function boardChanged(
  known: Map<number, number>,
  kind: 'created' | 'updated',
  t: Pick<TicketUpdated, 'id' | 'closed'>,
): boolean {
  const before = known.get(t.id);
  known.set(t.id, t.closed);
  if (kind === 'created') return true;
  return before !== undefined && before !== t.closed;
}

/** Records the status of every ticket row found in a cached list answer (pages of `{ data: rows }`, or rows). */
export function rememberStatuses(known: Map<number, number>, data: unknown): void {
  const visit = (rows: unknown) => {
    if (!Array.isArray(rows)) return;
    for (const r of rows)
      if (r && typeof r === 'object' && typeof r.id === 'number' && typeof r.closed === 'number')
        known.set(r.id, r.closed);
  };
  if (!data || typeof data !== 'object') return;
  if (Array.isArray(data)) {
    visit(data);
    return;
  }
  const d = data as { pages?: unknown[]; data?: unknown };
  if (Array.isArray(d.pages)) for (const p of d.pages) visit((p as { data?: unknown } | null)?.data);
  else visit(d.data);
}

/** How recent a customer message must be to be news (a reconnect's catch-up replays older ones). */
export const FRESH_MESSAGE_MS = 60_000;

/**
 * SHELL-58 (design): a live `updateTicket` is a new customer message in one of my conversations when it is
 * assigned to me and its last customer message is what moved it (a customer message sets both times).
 */
export function isMyNewCustomerMessage(
  t: Pick<TicketUpdated, 'assignee' | 'last_message_at' | 'updated_at'>,
  me: string,
  now = Date.now(),
): boolean {
  return (
    assigneeList(t.assignee).includes(me) &&
    t.last_message_at > 0 &&
    t.last_message_at === t.updated_at &&
    now - t.last_message_at < FRESH_MESSAGE_MS
  );
}

/** The toast's words: who wrote, and where unless the conversation is named after them (a live chat). */
export function newMessageText(t: Pick<TicketUpdated, 'name' | 'title'>): string {
  const who = t.name || 'A customer';
  return t.title && t.title !== t.name ? `${who} wrote in "${t.title}".` : `${who} wrote a new message.`;
}

/** Where a conversation opens: live chats and Workspace chats in their own screens, the rest as tickets. */
export function conversationPath(t: Pick<TicketUpdated, 'id' | 'channel'>): string {
  if (isLiveChatChannel(t.channel)) return `/livechat/${t.id}`;
  if (t.channel === 'chat') return `/chat/${t.id}`;
  return `/ticket/${t.id}`;
}

/** The conversation screens show new messages themselves; a toast there would say it twice. */
export const showsConversations = (pathname: string) => /^\/(ticket|livechat|chat|mobile)(\/|$)/.test(pathname);
