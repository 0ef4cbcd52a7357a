import {
  type Notification,
  type NotificationCategory,
  type NotificationChannel,
  type NotificationType,
  rooms,
} from '@parley/contracts';
import { appendEvent, type Trx } from '../../../platform/outbox/index.js';
import { toNotification } from '../notifications.queries.js';

export interface NotifyInput {
  accountId: number;
  /** Users of `accountId` to tell; ids of other accounts are dropped. Duplicates are told once. */
  userIds: number[];
  category: NotificationCategory;
  type: NotificationType;
  channel?: NotificationChannel;
  title: string;
  body: string;
  img?: { uid: string; file_name: string } | null;
  ticketId?: number | null;
  ticketNumber?: number | null;
  /**
   * What raised it (`mention:<note id>`, `transfer:<ticket>:<at>`): a user gets at most one notification per
   * source, so a repeated event (a relay retry) adds nothing. Omit for always-new notifications.
   */
  source?: string;
  /** Creation time in ms (default now). */
  at?: number;
}

/** The event type of a new notification; listeners (Web Push) subscribe to it. */
export const NOTIFICATION_CREATED = 'notification.created';

/**
 * Raises a notification for each user, inside the caller's transaction (so it commits with the
 * change that caused it), and appends `notification.created` with `newNotification` to each user's own room.
 * Other modules call this for system notifications (mentioned in a note, a chat transferred to you).
 * Returns the notifications created (fewer than the users when some already had this source).
 */
export async function notifyUsers(trx: Trx, n: NotifyInput): Promise<(Notification & { userId: number })[]> {
  const ids = [...new Set(n.userIds)];
  if (ids.length === 0) return [];
  const users = await trx
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', n.accountId)
    .where('id', 'in', ids)
    .execute();
  const at = n.at ?? Date.now();
  const out: (Notification & { userId: number })[] = [];
  for (const u of users) {
    const userId = Number(u.id);
    const row = await trx
      .insertInto('notifications')
      .values({
        account_id: n.accountId,
        user_id: userId,
        category: n.category,
        type: n.type,
        channel: n.channel ?? 'ticket',
        title: n.title,
        body: n.body,
        img: n.img ? JSON.stringify(n.img) : null,
        ticket_id: n.ticketId ?? null,
        ticket_number: n.ticketNumber ?? null,
        seen: 0,
        source: n.source ?? null,
        created_at: at,
      })
      .onConflict((oc) => oc.columns(['user_id', 'source']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) continue;
    const item = toNotification(row as never);
    await appendEvent(trx, {
      accountId: n.accountId,
      type: NOTIFICATION_CREATED,
      payload: item,
      realtime: { name: 'newNotification', rooms: [rooms.user(userId)] },
    });
    out.push({ ...item, userId });
  }
  return out;
}
