import { NOTIFICATION_STRINGS, type NotificationReadInput } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { notFound } from '../../../platform/http/errors.js';
import type { Viewer } from '../notifications.queries.js';

const owned = (db: DB, v: Viewer, id: number) =>
  db
    .selectFrom('notifications')
    .select(['id', 'category'])
    .where('account_id', '=', v.accountId)
    .where('user_id', '=', v.userId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * NOTIF-27, NOTIF-28: marks the viewer's notifications of `category` seen, up to and including
 * `lastId` (all of them without it). A `lastId` that is not the viewer's own notification is 404, nothing changed.
 */
export async function markRead(db: DB, v: Viewer, input: NotificationReadInput): Promise<void> {
  if (input.lastId !== undefined && !(await owned(db, v, input.lastId))) throw notFound(NOTIFICATION_STRINGS.notFound);
  let q = db
    .updateTable('notifications')
    .set({ seen: 1 })
    .where('account_id', '=', v.accountId)
    .where('user_id', '=', v.userId)
    .where('category', '=', input.category)
    .where('seen', '=', 0);
  if (input.lastId !== undefined) q = q.where('id', '<=', input.lastId);
  await q.execute();
}

/** NOTIF-29: removes one of the viewer's notifications; any other id is 404 and nothing changes. */
export async function removeNotification(db: DB, v: Viewer, id: number): Promise<void> {
  const r = await db
    .deleteFrom('notifications')
    .where('account_id', '=', v.accountId)
    .where('user_id', '=', v.userId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw notFound(NOTIFICATION_STRINGS.notFound);
}
