import { SIGNIN_MAX_FAILURES, SIGNIN_WINDOW_MS } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';

/**
 * More than SIGNIN_MAX_FAILURES failed sign-ins for one username, or from one IP, within the window are
 * refused until the window has passed, whatever the password. Counting per username (not per username
 * and IP) means an attacker rotating addresses cannot keep guessing one user's password; the price is
 * that the real user waits too, which the README says.
 */
export async function isThrottled(db: DB, username: string, ip: string): Promise<boolean> {
  const since = Date.now() - SIGNIN_WINDOW_MS;
  const count = async (col: 'username' | 'ip', value: string) =>
    Number(
      (
        await db
          .selectFrom('login_attempts')
          .select(sql<number>`count(*)`.as('n'))
          .where(col, '=', value)
          .where('success', '=', 0)
          .where('created_at', '>', since)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return (
    (await count('username', username.toLowerCase())) >= SIGNIN_MAX_FAILURES ||
    (await count('ip', ip)) >= SIGNIN_MAX_FAILURES
  );
}

export async function recordAttempt(
  db: DB,
  a: { username: string; ip: string; success: boolean; accountId: number | null },
): Promise<void> {
  await db
    .insertInto('login_attempts')
    .values({
      account_id: a.accountId,
      username: a.username.toLowerCase(),
      ip: a.ip,
      success: a.success ? 1 : 0,
      created_at: Date.now(),
    })
    .execute();
}
