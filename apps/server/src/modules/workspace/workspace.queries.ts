import {
  CHAT_PAGE,
  type ChatItem,
  type ChatMember,
  ErrorCode,
  rooms,
  WORKSPACE_STRINGS as W,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import { sql } from 'kysely';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';

type Db = DB | Trx;
/** Who is asking: every query is scoped by the account and reads as this user. */
export interface Member {
  accountId: number;
  userId: number;
  username: string;
}

/** Whether the user is a member of the account's chat (false for any other ticket or account). */
export async function isMember(db: Db, accountId: number, ticketId: number, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('chat_members')
    .select('user_id')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return !!row;
}

/** The members of a chat, in the order they joined. */
export async function membersOf(db: Db, accountId: number, ticketIds: number[]): Promise<Map<number, ChatMember[]>> {
  const out = new Map<number, ChatMember[]>();
  if (ticketIds.length === 0) return out;
  const rows = await db
    .selectFrom('chat_members')
    .innerJoin('users', (j) =>
      j.onRef('users.id', '=', 'chat_members.user_id').onRef('users.account_id', '=', 'chat_members.account_id'),
    )
    .select(['chat_members.ticket_id', 'chat_members.user_id', 'users.username', 'users.name'])
    .where('chat_members.account_id', '=', accountId)
    .where('chat_members.ticket_id', 'in', ticketIds)
    .orderBy('chat_members.joined_at')
    .orderBy('chat_members.user_id')
    .execute();
  for (const r of rows) {
    const list = out.get(Number(r.ticket_id)) ?? [];
    list.push({ user_id: Number(r.user_id), username: r.username, name: r.name });
    out.set(Number(r.ticket_id), list);
  }
  return out;
}

/** The user rooms of a chat's members: where its events go (never the account room). */
export async function memberRooms(db: Db, accountId: number, ticketId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('chat_members')
    .select('user_id')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .execute();
  return rows.map((r) => rooms.user(Number(r.user_id)));
}

/** The caller's chats (one page, or the given ids), newest activity first, with unread and last message. */
async function chatRows(db: Db, me: Member, o: { offset?: number; ids?: number[] }) {
  let q = db
    .selectFrom('chat_members as me')
    .innerJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', 'me.ticket_id').onRef('tickets.account_id', '=', 'me.account_id'),
    )
    .innerJoin('workspace_chats as w', (j) =>
      j.onRef('w.ticket_id', '=', 'tickets.id').onRef('w.account_id', '=', 'tickets.account_id'),
    )
    .leftJoin('ticket_reads as r', (j) =>
      j
        .onRef('r.ticket_id', '=', 'tickets.id')
        .onRef('r.user_id', '=', 'me.user_id')
        .onRef('r.account_id', '=', 'me.account_id'),
    )
    .select((eb) => [
      'tickets.id',
      'tickets.title',
      'tickets.updated_at',
      'tickets.encryption_method',
      'w.kind',
      eb
        .selectFrom('messages as m')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('m.account_id', '=', me.accountId)
        .whereRef('m.ticket_id', '=', 'tickets.id')
        .where('m.deleted_at', 'is', null)
        .where('m.type', '<>', 'system')
        .where('m.sender', '<>', me.username)
        .where('m.created_at', '>', sql<number>`coalesce(r.read_at, 0)`)
        .as('unread'),
    ])
    .where('me.account_id', '=', me.accountId)
    .where('me.user_id', '=', me.userId)
    .where('tickets.channel', '=', WORKSPACE_CHANNEL);
  if (o.ids) q = q.where('tickets.id', 'in', o.ids.length ? o.ids : [0]);
  else
    q = q
      .orderBy('tickets.updated_at', 'desc')
      .orderBy('tickets.id', 'desc')
      .limit(CHAT_PAGE)
      .offset(o.offset ?? 0);
  return q.execute();
}

async function present(db: Db, me: Member, rows: Awaited<ReturnType<typeof chatRows>>): Promise<ChatItem[]> {
  const ids = rows.map((r) => Number(r.id));
  const members = await membersOf(db, me.accountId, ids);
  const last = new Map<number, ChatItem['last_message']>();
  if (ids.length) {
    const newest = db
      .selectFrom('messages')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('account_id', '=', me.accountId)
      .where('ticket_id', 'in', ids)
      .where('deleted_at', 'is', null)
      .groupBy('ticket_id');
    const msgs = await db
      .selectFrom('messages')
      .select(['id', 'ticket_id', 'message', 'sender', 'sender_name', 'created_at'])
      .where('account_id', '=', me.accountId)
      .where('id', 'in', newest)
      .execute();
    for (const m of msgs)
      last.set(Number(m.ticket_id), {
        id: Number(m.id),
        message: m.message.slice(0, 200),
        sender: m.sender,
        sender_name: m.sender_name,
        ts: Math.floor(Number(m.created_at) / 1000),
      });
  }
  return rows.map((r) => {
    const id = Number(r.id);
    const people = members.get(id) ?? [];
    const kind = r.kind === 'direct' ? 'direct' : 'group';
    return {
      id,
      title: chatTitle(r.title, kind, people, me.userId),
      ts: Math.floor(Number(r.updated_at) / 1000),
      encryption: r.encryption_method !== '',
      kind,
      members: people,
      unread: Number(r.unread ?? 0),
      last_message: last.get(id) ?? null,
    };
  });
}

/** CHAT-07 (design): a 1:1 chat is titled by the other person; an untitled group by its members' names. */
export function chatTitle(stored: string, kind: 'direct' | 'group', people: ChatMember[], myId: number): string {
  const others = people.filter((p) => p.user_id !== myId).map((p) => p.name || p.username);
  if (kind === 'direct') return others[0] ?? stored;
  return stored || others.join(', ');
}

/** The caller's chats from `offset`, the total, and how many have unread messages (CHAT-05). */
export async function listChats(db: Db, me: Member, offset: number) {
  const rows = await chatRows(db, me, { offset });
  const totals = await db
    .selectFrom('chat_members as me')
    .innerJoin('workspace_chats as w', (j) =>
      j.onRef('w.ticket_id', '=', 'me.ticket_id').onRef('w.account_id', '=', 'me.account_id'),
    )
    .leftJoin('ticket_reads as r', (j) =>
      j
        .onRef('r.ticket_id', '=', 'me.ticket_id')
        .onRef('r.user_id', '=', 'me.user_id')
        .onRef('r.account_id', '=', 'me.account_id'),
    )
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(
              eb.exists(
                eb
                  .selectFrom('messages as m')
                  .select('m.id')
                  .where('m.account_id', '=', me.accountId)
                  .whereRef('m.ticket_id', '=', 'me.ticket_id')
                  .where('m.deleted_at', 'is', null)
                  .where('m.type', '<>', 'system')
                  .where('m.sender', '<>', me.username)
                  .where('m.created_at', '>', sql<number>`coalesce(r.read_at, 0)`),
              ),
            )
            .then(1)
            .else(0)
            .end(),
        )
        .as('unread'),
    ])
    .where('me.account_id', '=', me.accountId)
    .where('me.user_id', '=', me.userId)
    .executeTakeFirst();
  return {
    data: await present(db, me, rows),
    count: Number(totals?.count ?? 0),
    unread: Number(totals?.unread ?? 0),
  };
}

/** One chat as the caller sees it, or undefined when it is not theirs (or not a chat of the account). */
export async function chatItem(db: Db, me: Member, ticketId: number): Promise<ChatItem | undefined> {
  const rows = await chatRows(db, me, { ids: [ticketId] });
  return (await present(db, me, rows))[0];
}

/** Whether the ticket is a Workspace chat of the account (to tell "not a member" from "no such chat"). */
export async function chatExists(db: Db, accountId: number, ticketId: number): Promise<boolean> {
  const row = await db
    .selectFrom('workspace_chats')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .executeTakeFirst();
  return !!row;
}

/**
 * The chat the caller is a member of: 404 "Chat not found." when the account has no such chat, 403 when
 * the caller is not a member (the messages module answers the same way for history and sending).
 */
export async function memberChat(db: DB | Trx, auth: Pick<AuthContext, 'accountId' | 'userId'>, ticketId: number) {
  const chat = await db
    .selectFrom('workspace_chats as w')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'w.ticket_id').onRef('t.account_id', '=', 'w.account_id'))
    .select(['w.kind', 't.title'])
    .where('w.account_id', '=', auth.accountId)
    .where('w.ticket_id', '=', ticketId)
    .where('t.channel', '=', WORKSPACE_CHANNEL)
    .executeTakeFirst();
  if (!chat) throw notFound(W.chatNotFound);
  if (!(await isMember(db, auth.accountId, ticketId, auth.userId)))
    throw new AppError(403, ErrorCode.forbidden, W.notMember);
  return chat;
}

/** Active users of the account among `ids`, or the 400 naming the rule when any is not one. */
export async function activeUsers(db: DB | Trx, accountId: number, ids: number[]) {
  if (ids.length === 0) return [];
  const users = await db
    .selectFrom('users')
    .select(['id', 'username', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('active', '=', 1)
    .execute();
  if (users.length !== ids.length) throw new AppError(400, ErrorCode.validation, W.unknownMember);
  return users.map((u) => ({ id: Number(u.id), username: u.username, name: u.name }));
}
