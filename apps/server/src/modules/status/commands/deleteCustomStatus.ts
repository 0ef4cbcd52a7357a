import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { notFound } from '../../../platform/http/errors.js';
import { recordAudit } from '../../audit/index.js';
import { STATUS_STRINGS } from '../status.strings.js';

/**
 * An admin removes a custom status of the account (another account's id is 404). Agents who chose it
 * keep it as their status until they choose another: second_status is plain text.
 */
export async function deleteCustomStatus(db: DB, auth: AuthContext, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('custom_statuses')
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning(['id', 'name'])
      .executeTakeFirst();
    if (!row) throw notFound(STATUS_STRINGS.noSuchCustomStatus);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'status.custom_deleted',
      detail: { id, name: row.name },
    });
  });
}
