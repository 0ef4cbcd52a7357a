import {
  type Announcement,
  type AnnouncementMessage,
  ErrorCode,
  type PublishAnnouncementInput,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { ANNOUNCEMENT_COLUMNS, toAnnouncement } from '../announcements.queries.js';
import { announcementAudience } from '../announcements.realtime.js';
import { ANNOUNCEMENT_STRINGS } from '../announcements.strings.js';

/**
 * SHELL-37, SHELL-38: an admin publishes an announcement. It replaces the one showing (one at a time per
 * account) and reaches everyone in the account live. Emits `announcement.published`.
 */
export async function publishAnnouncement(
  db: DB,
  auth: AuthContext,
  input: PublishAnnouncementInput,
): Promise<Announcement> {
  const at = Date.now();
  // An announcement nobody would ever see is a mistake, not a request.
  if (input.expires_at !== null && input.expires_at <= at)
    throw new AppError(400, ErrorCode.validation, ANNOUNCEMENT_STRINGS.expiryPast);
  return runCommand(db, async (trx) => {
    await trx
      .updateTable('announcements')
      .set({ removed_at: at })
      .where('account_id', '=', auth.accountId)
      .where('removed_at', 'is', null)
      .execute();
    const row = await trx
      .insertInto('announcements')
      .values({
        account_id: auth.accountId,
        message: input.message,
        level: input.level,
        created_by: auth.name || auth.username,
        created_at: at,
        expires_at: input.expires_at,
        removed_at: null,
      })
      .returning(ANNOUNCEMENT_COLUMNS)
      .executeTakeFirstOrThrow();
    const announcement = toAnnouncement(row);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'announcement.published',
      detail: { id: announcement.id, level: announcement.level, expires_at: announcement.expires_at },
    });
    const payload: AnnouncementMessage = { announcement };
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'announcement.published',
      payload,
      realtime: announcementAudience(auth.accountId, payload),
    });
    return announcement;
  });
}
