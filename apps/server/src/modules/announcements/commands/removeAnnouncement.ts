import type { AnnouncementMessage } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { announcementAudience } from '../announcements.realtime.js';

/**
 * SHELL-38: an admin takes the announcement down; everyone in the account sees it go. Removing when there
 * is none is a no-op (a second click, a second tab): no event, no audit entry. Emits `announcement.removed`.
 */
export async function removeAnnouncement(db: DB, auth: AuthContext): Promise<{ removed: boolean }> {
  return runCommand(db, async (trx) => {
    const removed = await trx
      .updateTable('announcements')
      .set({ removed_at: Date.now() })
      .where('account_id', '=', auth.accountId)
      .where('removed_at', 'is', null)
      .returning('id')
      .execute();
    if (removed.length === 0) return { removed: false };
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'announcement.removed',
      detail: { ids: removed.map((r) => Number(r.id)) },
    });
    const payload: AnnouncementMessage = { announcement: null };
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'announcement.removed',
      payload,
      realtime: announcementAudience(auth.accountId, payload),
    });
    return { removed: true };
  });
}
