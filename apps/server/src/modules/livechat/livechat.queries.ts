import { LIVECHAT_PAGE, type LiveChatGroup, type LiveChatState, type VisitorMessage } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { latestChat, type TokenAccount } from './settings.js';

/**
 * LIVECHAT-12, LIVECHAT-23 (design): the account's live chats (accepted or left as a message), grouped by
 * visitor session, newest group first, 30 groups a page. A group is collapsed when none of its chats runs.
 */
export async function listGroups(db: DB, accountId: number, offset: number) {
  const sessions = await db
    .selectFrom('livechats')
    .select(['session_id', (eb) => eb.fn.max('id').as('last')])
    .where('account_id', '=', accountId)
    .where('ticket_id', 'is not', null)
    .groupBy('session_id')
    .orderBy('last', 'desc')
    .execute();
  const page = sessions.slice(offset, offset + LIVECHAT_PAGE).map((s) => Number(s.session_id));
  return { data: await groupsOf(db, accountId, page), count: sessions.length };
}

/**
 * LIVECHAT-19, LIVECHAT-20 (design): one session's group as in the list, wherever it stands in it
 * (undefined when the session has no listed chat in this account, or was merged into another).
 */
export async function sessionGroup(db: DB, accountId: number, sessionId: number): Promise<LiveChatGroup | undefined> {
  return (await groupsOf(db, accountId, [sessionId]))[0];
}

/** The groups of the given sessions, in that order; sessions without a listed chat are left out. */
async function groupsOf(db: DB, accountId: number, page: number[]): Promise<LiveChatGroup[]> {
  if (page.length === 0) return [];
  const rows = await db
    .selectFrom('livechats')
    .innerJoin('tickets', 'tickets.id', 'livechats.ticket_id')
    .select([
      'livechats.id',
      'livechats.session_id',
      'livechats.visitor_id',
      'livechats.ticket_id',
      'livechats.state',
      'livechats.name',
      'livechats.agent',
      'livechats.rating',
      'livechats.reason',
      'livechats.queued_at',
      'tickets.ticket_number',
      'tickets.title',
      'tickets.updated_at',
    ])
    .where('livechats.account_id', '=', accountId)
    .where('livechats.session_id', 'in', page)
    .orderBy('livechats.id', 'desc')
    .execute();
  const listed = page.filter((sessionId) => rows.some((r) => Number(r.session_id) === sessionId));
  return listed.map((sessionId): LiveChatGroup => {
    const chats = rows.filter((r) => Number(r.session_id) === sessionId);
    const own = chats.find((c) => Number(c.visitor_id) === sessionId) ?? chats[0];
    return {
      session_id: sessionId,
      session_name: own?.name ?? '',
      sessions: [...new Set(chats.map((c) => Number(c.visitor_id)))],
      livechats: chats.map((c) => ({
        id: Number(c.id),
        ticket_id: Number(c.ticket_id),
        ticket_number: Number(c.ticket_number),
        title: c.title,
        name: c.name,
        state: c.state as LiveChatState,
        agent: c.agent,
        ts: Math.floor(Number(c.updated_at) / 1000),
        rating: c.rating === null ? null : Number(c.rating),
        reason: c.reason,
      })),
      ts: Math.max(0, ...chats.map((c) => Math.floor(Number(c.updated_at) / 1000))),
      collapsed: !chats.some((c) => c.state === 'chatting'),
    };
  });
}

/** A stored message as the visitor's page shows it. */
export function toVisitorMessage(r: {
  id: number;
  ticket_id: number;
  sender: string;
  sender_name: string;
  type: string;
  message: string;
  created_at: number;
  client_id: string | null;
}): VisitorMessage {
  return {
    id: Number(r.id),
    ticketId: Number(r.ticket_id),
    sender: r.sender,
    senderName: r.sender_name,
    type: r.type,
    message: r.message,
    ts: Number(r.created_at),
    clientId: r.client_id,
  };
}

/** The visitor's running (or last) chat's messages, without notes or deleted ones. */
export async function visitorHistory(db: DB, who: { account: TokenAccount; visitorId: number }) {
  const chat = await latestChat(db, who.account.accountId, who.visitorId);
  if (!chat || chat.ticket_id === null)
    return { data: [] as VisitorMessage[], state: (chat?.state ?? null) as LiveChatState | null };
  const rows = await db
    .selectFrom('messages')
    .select(['id', 'ticket_id', 'sender', 'sender_name', 'type', 'message', 'created_at', 'client_id'])
    .where('account_id', '=', who.account.accountId)
    .where('ticket_id', '=', Number(chat.ticket_id))
    .where('deleted_at', 'is', null)
    .where('type', 'in', ['text', 'system'])
    // The translation bot's lines are for the team (the visitor reads their own language).
    .where('sender', '!=', 'translatebot')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
  return { data: rows.reverse().map(toVisitorMessage), state: chat.state as LiveChatState };
}
