import {
  type AccountSettings,
  ErrorCode,
  parseDay,
  type SettingsChanged,
  type SettingsUpdateInput,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { parseSettings } from '../labels.queries.js';
import { settingsAudience } from '../labels.realtime.js';

/**
 * LABEL-14..20: an admin changes an account setting. `duration` (LABEL-16, design): the number of days
 * (1 to 365) after which a Resolved ticket closes on its own. An empty day is refused. Emits
 * `settings.updated` (`settingsChanged` to the account).
 */
export async function updateSettings(db: DB, auth: AuthContext, input: SettingsUpdateInput): Promise<AccountSettings> {
  const day = parseDay(input.day);
  if (!day.ok) throw new AppError(400, ErrorCode.validation, day.error);
  return runCommand(db, async (trx) => {
    const row = await trx
      .selectFrom('accounts')
      .select('settings')
      .where('id', '=', auth.accountId)
      .executeTakeFirstOrThrow();
    // Keys this version does not know are kept as they are.
    let stored: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(row.settings);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) stored = parsed;
    } catch {
      stored = {};
    }
    const settings: AccountSettings = { ...parseSettings(row.settings), duration: day.day };
    await trx
      .updateTable('accounts')
      .set({ settings: JSON.stringify({ ...stored, ...settings }), updated_at: Date.now() })
      .where('id', '=', auth.accountId)
      .execute();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'settings.updated',
      detail: { action: input.action, day: day.day },
    });
    const payload: SettingsChanged = { settings };
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'settings.updated',
      payload,
      realtime: settingsAudience(auth.accountId, payload),
    });
    return settings;
  });
}
