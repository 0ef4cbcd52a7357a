import type { Transaction } from 'kysely';
import type { Database } from './schema.js';

type Trx = Transaction<Database>;

/**
 * Makes the writers of one account take turns until the caller's transaction ends, and answers the
 * account's plan (undefined when there is no such account).
 *
 * It is a no-op write (`plan = plan`) on the account's row. On Postgres the update takes that row's lock,
 * held until commit or rollback: a second transaction locking the same account waits there and then reads
 * what the first committed, so "read the max, insert max + 1" or "count, then add one" cannot interleave.
 * On SQLite the process has one connection and runs one transaction at a time, so its transactions take
 * turns anyway; the write only makes this one the database's writer (other processes wait for it under
 * `busy_timeout`) a little earlier.
 */
export async function lockAccount(trx: Trx, accountId: number): Promise<{ plan: number } | undefined> {
  const row = await trx
    .updateTable('accounts')
    .set((eb) => ({ plan: eb.ref('plan') }))
    .where('id', '=', accountId)
    .returning('plan')
    .executeTakeFirst();
  return row && { plan: Number(row.plan) };
}

/**
 * Makes the writers of one user take turns until the caller's transaction ends; false when the account
 * has no such user. A no-op write (`status = status`) on the user's row: on Postgres it holds the row's
 * lock until commit, so a second transaction waits and then sees the first one's result; on SQLite one
 * transaction runs at a time anyway (see `lockAccount`).
 */
export async function lockUser(trx: Trx, accountId: number, userId: number): Promise<boolean> {
  const r = await trx
    .updateTable('users')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
