import {
  NOTIFICATION_PAGE_SIZE,
  type Notification,
  type NotificationCategory,
  type NotificationCheckAnswer,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { NotificationsTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';

type Row = Omit<NotificationsTable, 'id' | 'seen'> & { id: number; seen: number };

const parseImg = (s: string | null): Notification['img'] => {
  if (!s) return null;
  try {
    const v = JSON.parse(s) as { uid?: unknown; file_name?: unknown };
    return typeof v.uid === 'string' && typeof v.file_name === 'string' ? { uid: v.uid, file_name: v.file_name } : null;
  } catch {
    return null;
  }
};

/** NOTIF-07: a stored row as the client sees it (`ts` in unix seconds). */
export function toNotification(r: Row): Notification {
  return {
    id: Number(r.id),
    seen: Number(r.seen) === 1,
    type: r.type as Notification['type'],
    channel: r.channel as Notification['channel'],
    title: r.title,
    body: r.body,
    ts: Math.floor(Number(r.created_at) / 1000),
    img: parseImg(r.img),
    ticket_number: r.ticket_number === null ? null : Number(r.ticket_number),
    category: r.category as NotificationCategory,
  };
}

export interface Viewer {
  accountId: number;
  userId: number;
}

/**
 * NOTIF-24, NOTIF-25: one page of the viewer's notifications of a category, newest first. With `lastId` the
 * page is the items older than it; else `offset` items are skipped.
 */
export async function listNotifications(
  db: DB | Trx,
  v: Viewer,
  q: { category: NotificationCategory; lastId?: number; offset: number },
): Promise<Notification[]> {
  let query = db
    .selectFrom('notifications')
    .selectAll()
    .where('account_id', '=', v.accountId)
    .where('user_id', '=', v.userId)
    .where('category', '=', q.category);
  if (q.lastId !== undefined) query = query.where('id', '<', q.lastId);
  else if (q.offset > 0) query = query.offset(q.offset);
  const rows = await query.orderBy('id', 'desc').limit(NOTIFICATION_PAGE_SIZE).execute();
  return rows.map((r) => toNotification(r as Row));
}

/** NOTIF-22: which tabs hold unseen notifications (unread SLA, unread_2 System, unread_3 Trade). */
export async function checkUnread(db: DB, v: Viewer): Promise<NotificationCheckAnswer> {
  const rows = await db
    .selectFrom('notifications')
    .select('category')
    .distinct()
    .where('account_id', '=', v.accountId)
    .where('user_id', '=', v.userId)
    .where('seen', '=', 0)
    .execute();
  const has = new Set(rows.map((r) => r.category));
  return { result: 'success', unread: has.has('sla'), unread_2: has.has('system'), unread_3: has.has('trade') };
}

/** NOTIF-10: the picture URL of the account's user `username` (an upload's thumbnail), or null. */
export async function avatarPhoto(db: DB, accountId: number, username: string): Promise<string | null> {
  const u = await db
    .selectFrom('users')
    .select('photo')
    .where('account_id', '=', accountId)
    .where('username', '=', username)
    .executeTakeFirst();
  return u?.photo && PHOTO_URL.test(u.photo) ? u.photo : null;
}

const PHOTO_URL = /^\/files\/([A-Za-z0-9_-]{16,64})\/[^/]+$/;

/**
 * NOTIF-10: the avatar of a notification raised by a user: `{uid: username, file_name: <the picture's file
 * key>}`, or null when they have no picture (the item shows its type's icon).
 */
export function avatarOf(username: string | null | undefined, photo: string | null | undefined): Notification['img'] {
  const key = photo ? PHOTO_URL.exec(photo)?.[1] : undefined;
  return username && key ? { uid: username, file_name: key } : null;
}
