import { type CreateCustomStatusInput, type CustomStatus, ErrorCode } from '@parley/contracts';
import type { z } from 'zod';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../../platform/db/db.js';
import { AppError, conflict } from '../../../platform/http/errors.js';
import { recordAudit } from '../../audit/index.js';
import { toCustomStatus } from '../status.queries.js';
import { STATUS_STRINGS } from '../status.strings.js';

/** STATUS-17: an admin adds a custom status; names are unique in the account, whatever their case. */
export async function createCustomStatus(
  db: DB,
  auth: AuthContext,
  input: z.output<typeof CreateCustomStatusInput>,
): Promise<CustomStatus> {
  // The contract refuses the built-in names; Offline is presence, not a status anyone chooses.
  if (input.name.toUpperCase() === 'OFFLINE') throw new AppError(400, ErrorCode.validation, STATUS_STRINGS.builtInName);
  return db
    .transaction()
    .execute(async (trx) => {
      const taken = await trx
        .selectFrom('custom_statuses')
        .select('id')
        .where('account_id', '=', auth.accountId)
        .where((eb) => eb(eb.fn('lower', ['name']), '=', input.name.toLowerCase()))
        .executeTakeFirst();
      if (taken) throw conflict(STATUS_STRINGS.duplicateName);
      const row = await trx
        .insertInto('custom_statuses')
        .values({
          account_id: auth.accountId,
          name: input.name,
          needs_reason: input.needs_reason ? 1 : 0,
          created_at: Date.now(),
        })
        .returning(['id', 'name', 'needs_reason'])
        .executeTakeFirstOrThrow();
      await recordAudit(trx, {
        accountId: auth.accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'status.custom_created',
        detail: { id: Number(row.id), name: row.name, needs_reason: input.needs_reason },
      });
      return toCustomStatus(row);
    })
    .catch((err: unknown) => {
      // Two admins adding the same name at once: the unique index decides.
      if (isUniqueViolation(err)) throw conflict(STATUS_STRINGS.duplicateName);
      throw err;
    });
}
