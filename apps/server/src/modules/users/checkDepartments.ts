import { AppError } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';

/** Department ids must all be the account's own. */
export async function checkDepartments(trx: Trx, accountId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await trx
    .selectFrom('departments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  if (found.length !== new Set(ids).size) throw new AppError(400, 'VALIDATION_FAILED', 'Unknown department.');
}
