import type { StatusUpdated, UpdateStatusInput } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { statusUpdatedAudience } from '../status.realtime.js';

/**
 * Sets the agent's status. The open status period is closed and a new one opened, so the time spent in
 * each status (with its reason) can be reported later. Emits `status.updated`.
 */
export async function updateStatus(db: DB, auth: AuthContext, input: UpdateStatusInput): Promise<StatusUpdated> {
  return runCommand(db, async (trx) => {
    const at = Date.now();
    await trx
      .updateTable('status_periods')
      .set({ ended_at: at })
      .where('account_id', '=', auth.accountId)
      .where('user_id', '=', auth.userId)
      .where('ended_at', 'is', null)
      .execute();
    await trx
      .insertInto('status_periods')
      .values({
        account_id: auth.accountId,
        user_id: auth.userId,
        status: input.status,
        reason: input.reason,
        started_at: at,
        ended_at: null,
      })
      .execute();
    await trx
      .updateTable('users')
      .set({ status: input.status, status_reason: input.reason, status_since: at, updated_at: at })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', auth.userId)
      .execute();
    const payload: StatusUpdated = {
      userId: auth.userId,
      username: auth.username,
      status: input.status,
      reason: input.reason,
      since: at,
    };
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'status.updated',
      payload,
      realtime: statusUpdatedAudience(auth.accountId, payload),
    });
    return payload;
  });
}
