import type { Announcement } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

export interface AnnouncementRow {
  id: number;
  message: string;
  level: string;
  created_at: number;
  created_by: string;
  expires_at: number | null;
}

export const ANNOUNCEMENT_COLUMNS = ['id', 'message', 'level', 'created_at', 'created_by', 'expires_at'] as const;

export const toAnnouncement = (r: AnnouncementRow): Announcement => ({
  id: Number(r.id),
  message: r.message,
  level: r.level === 'warning' ? 'warning' : 'info',
  created_at: Number(r.created_at),
  created_by: r.created_by,
  expires_at: r.expires_at === null ? null : Number(r.expires_at),
});

/** SHELL-37: the announcement showing in the account now, if any: not removed and not expired. */
export async function currentAnnouncement(
  db: DB | Trx,
  accountId: number,
  at = Date.now(),
): Promise<Announcement | null> {
  const r = await db
    .selectFrom('announcements')
    .select(ANNOUNCEMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('removed_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? toAnnouncement(r) : null;
}
