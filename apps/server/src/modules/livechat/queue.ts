import { effectiveStatus, type LiveChatQueue, rooms } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { appendEvent, type Trx } from '../../platform/outbox/index.js';

/** Most queue items sent in one `liveChatQueue` (the count is always the whole queue). */
export const QUEUE_ITEMS_SENT = 50;

/** The room of one visitor session: only that visitor's sockets are in it. */
export const visitorRoom = (visitorId: number) => rooms.visitor(String(visitorId));

/**
 * LIVECHAT-04: the queue of an account, oldest first: the first 50 chats and, beyond them, every chat
 * offered to someone (automatic offering), so each agent can tell its own offer and what Take one may take.
 */
export async function readQueue(db: DB | Trx, accountId: number): Promise<LiveChatQueue> {
  const rows = await db
    .selectFrom('livechats')
    .leftJoin('users', 'users.id', 'livechats.offered_user_id')
    .leftJoin('livechat_settings', 'livechat_settings.account_id', 'livechats.account_id')
    .select([
      'livechats.id',
      'livechats.name',
      'livechats.message',
      'livechats.department_id',
      'livechats.queued_at',
      'livechats.offered_user_id',
      'livechats.offered_at',
      'livechat_settings.offer_seconds',
      'users.username as offered',
    ])
    .where('livechats.account_id', '=', accountId)
    .where('livechats.state', '=', 'queued')
    .orderBy('livechats.id')
    .execute();
  return {
    count: rows.length,
    queue: rows
      .filter((r, i) => i < QUEUE_ITEMS_SENT || r.offered_user_id !== null)
      .map((r) => ({
        id: Number(r.id),
        name: r.name,
        message: r.message.slice(0, 200),
        department_id: r.department_id === null ? null : Number(r.department_id),
        queued_at: Number(r.queued_at),
        offered_to: r.offered ?? null,
        offered_user_id: r.offered_user_id === null ? null : Number(r.offered_user_id),
        offer_expires_at:
          r.offered_user_id === null || r.offered_at === null
            ? null
            : Number(r.offered_at) + Number(r.offer_seconds ?? 30) * 1000,
      })),
  };
}

/** `liveChatQueue` to the account's agents, inside the command that changed the queue. */
export async function announceQueue(trx: Trx, accountId: number): Promise<void> {
  await appendEvent(trx, {
    accountId,
    type: 'livechat.queue',
    payload: await readQueue(trx, accountId),
    realtime: { name: 'liveChatQueue', rooms: [rooms.account(accountId)] },
  });
}

/** VISITOR-22: each waiting visitor's place in the queue (1 = next), by visitor session. */
export async function queuePlaces(db: DB, accountId: number): Promise<{ visitorId: number; place: number }[]> {
  const rows = await db
    .selectFrom('livechats')
    .select(['visitor_id'])
    .where('account_id', '=', accountId)
    .where('state', '=', 'queued')
    .orderBy('id')
    .execute();
  return rows.map((r, i) => ({ visitorId: Number(r.visitor_id), place: i + 1 }));
}

/** Active users of the account (of a department, if given) whose status is plainly Online. */
export async function onlineAgents(db: DB | Trx, accountId: number, departmentId: number | null) {
  const users = await db
    .selectFrom('users')
    .select(['id', 'username', 'name', 'status', 'second_status', 'departments'])
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .execute();
  return users
    .filter((u) => effectiveStatus(u) === 'ONLINE')
    .filter((u) => departmentId === null || parseIds(u.departments).includes(departmentId))
    .map((u) => ({ id: Number(u.id), username: u.username, name: u.name }));
}

export function parseIds(s: string): number[] {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
}

/** How many chats each user of the account is in right now (LIVECHAT-21). */
export async function openChatCounts(db: DB | Trx, accountId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('livechats')
    .select(['agent', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('state', '=', 'chatting')
    .groupBy('agent')
    .execute();
  return new Map(rows.map((r) => [r.agent, Number(r.n)]));
}
