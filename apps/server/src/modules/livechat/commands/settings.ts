import type { LiveChatSettings, LiveChatSettingsInput } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { ensureSettings } from '../settings.js';

/** The account's live chat settings; the first read makes them (with the visitor link's token). */
export const readSettings = (db: DB, accountId: number): Promise<LiveChatSettings> =>
  runCommand(db, (trx) => ensureSettings(trx, accountId));

/** An admin's live chat settings (the department is known to be the account's); answers them as stored. */
export function saveSettings(db: DB, accountId: number, input: LiveChatSettingsInput): Promise<LiveChatSettings> {
  return runCommand(db, async (trx) => {
    await ensureSettings(trx, accountId);
    await trx
      .updateTable('livechat_settings')
      .set({
        auto_offer: input.auto_offer ? 1 : 0,
        department_id: input.department_id,
        offer_seconds: input.offer_seconds,
      })
      .where('account_id', '=', accountId)
      .execute();
    return ensureSettings(trx, accountId);
  });
}
