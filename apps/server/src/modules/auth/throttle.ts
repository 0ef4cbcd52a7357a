import { createHash } from 'node:crypto';
import { ErrorCode, SIGNIN_MAX_FAILURES, SIGNIN_WINDOW_MS } from '@parley/contracts';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import { onPostgres } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError } from '../../platform/http/errors.js';
import type { Task } from '../../platform/scheduler.js';

/** Advisory lock classes (the two-key form, its own key space): one per kind of key counted. */
const LOCK_CLASS = { username: 72_700_101, ip: 72_700_102, hit: 72_700_103 } as const;

/**
 * Serialises, across every node, the transactions that count and add attempts for these keys. On Postgres
 * two transactions reading the count at once would both see 9 and both go on; a transaction-scoped advisory
 * lock per key makes the second wait for the first's commit. The locks are taken in one order (class, then
 * the key's 32-bit hash) so two transactions can never each hold a lock the other waits for. On SQLite a
 * transaction holds the only connection, which serialises them already.
 */
export async function lockKeys(trx: Transaction<Database>, keys: { kind: number; value: string }[]): Promise<void> {
  if (!onPostgres(trx)) return;
  const locks = keys
    .map((k) => ({ kind: k.kind, hash: createHash('sha256').update(k.value).digest().readInt32BE(0) }))
    .sort((a, b) => a.kind - b.kind || a.hash - b.hash);
  for (const l of locks) await sql`select pg_advisory_xact_lock(${l.kind}::int4, ${l.hash}::int4)`.execute(trx);
}

const failuresSince = async (db: Kysely<Database>, col: 'username' | 'ip', value: string, since: number) =>
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

/**
 * Takes one sign-in attempt before the password is checked, or refuses (null) when the username or the IP
 * already has SIGNIN_MAX_FAILURES failures in the window. Counting and taking are one step, so however many
 * guesses arrive at once, on however many nodes, no more than SIGNIN_MAX_FAILURES are checked per window.
 * The attempt counts as a failure until `settleAttempt` says otherwise: a guess still being checked uses up
 * its place. Refused attempts are not recorded, so the window does not keep sliding.
 *
 * Counting per username (not per username and IP) means an attacker rotating addresses cannot keep guessing
 * one user's password; the price is that the real user waits too, which the README says.
 *
 * An `ip` of null counts the attempt for the username only: it is neither refused by its address's count
 * nor added to it (recorded with the address '').
 */
export async function takeAttempt(
  db: DB,
  a: { username: string; ip: string | null; accountId: number | null },
): Promise<number | null> {
  const username = a.username.toLowerCase();
  const ip = a.ip;
  return db.transaction().execute(async (trx) => {
    await lockKeys(trx, [
      { kind: LOCK_CLASS.username, value: username },
      ...(ip === null ? [] : [{ kind: LOCK_CLASS.ip, value: ip }]),
    ]);
    const now = Date.now();
    const since = now - SIGNIN_WINDOW_MS;
    if ((await failuresSince(trx, 'username', username, since)) >= SIGNIN_MAX_FAILURES) return null;
    if (ip !== null && (await failuresSince(trx, 'ip', ip, since)) >= SIGNIN_MAX_FAILURES) return null;
    const row = await trx
      .insertInto('login_attempts')
      .values({ account_id: a.accountId, username, ip: ip ?? '', success: 0, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
}

/** The answer to a signed-in user's guess beyond the limit; worded like sign-in's TOO_MANY_ATTEMPTS. */
export const TOO_MANY_GUESSES = 'Too many failed attempts. Please wait 15 minutes and try again.';

/**
 * Takes one guess of a signed-in user at their own password or two-factor code (changing the password;
 * starting, switching on or switching off two-factor sign-in) before it is checked, or refuses it: 429,
 * nothing checked or changed. The guesses count with the user's sign-in failures, under sign-in's limit
 * (SIGNIN_MAX_FAILURES in SIGNIN_WINDOW_MS per username): a stolen session adds no guesses at the password
 * to those sign-in allows. The caller settles a right guess as `uncounted`; a wrong one stays a failure.
 * The address plays no part: the user is known by their session, and their wrong guesses must not shut
 * everyone behind the same address (an office, a carrier's NAT) out of sign-in.
 */
export async function takeGuess(db: DB, user: { accountId: number; username: string }): Promise<number> {
  const id = await takeAttempt(db, { ...user, ip: null });
  if (id === null) throw new AppError(429, ErrorCode.rateLimited, TOO_MANY_GUESSES);
  return id;
}

/**
 * The outcome of an attempt taken by `takeAttempt`: a failure stays counted; a success is marked as one (it
 * never counts as a failure); `uncounted` removes it (the right password when a two-factor code is still
 * to come is no failure and no sign-in).
 */
export async function settleAttempt(db: DB, id: number, outcome: 'failure' | 'success' | 'uncounted'): Promise<void> {
  if (outcome === 'failure') return;
  if (outcome === 'uncounted') await db.deleteFrom('login_attempts').where('id', '=', id).execute();
  else await db.updateTable('login_attempts').set({ success: 1 }).where('id', '=', id).execute();
}

/** One limit of a public call: at most `max` hits of `key` within `windowMs`. */
export interface HitLimit {
  key: string;
  max: number;
  windowMs: number;
}

/**
 * Counts one hit for every limit, or none and false when any of them has used up its window. Counting and
 * adding are one step (as for sign-in, under per-key advisory locks on Postgres), so a burst sent at once,
 * to any number of nodes, gets no more than `max` through. Refused calls are not counted: whoever waits
 * for the window to pass gets in again.
 */
export async function takeHits(db: DB, limits: HitLimit[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await lockKeys(
      trx,
      limits.map((l) => ({ kind: LOCK_CLASS.hit, value: l.key })),
    );
    const now = Date.now();
    for (const l of limits) {
      const used = await trx
        .selectFrom('rate_limit_hits')
        .select(sql<number>`count(*)`.as('n'))
        .where('key', '=', l.key)
        .where('created_at', '>', now - l.windowMs)
        .executeTakeFirstOrThrow();
      if (Number(used.n) >= l.max) return false;
    }
    await trx
      .insertInto('rate_limit_hits')
      .values(limits.map((l) => ({ key: l.key, created_at: now })))
      .execute();
    return true;
  });
}

/** Hits older than a day count towards no limit (the windows are an hour): removed hourly. */
export const pruneRateLimitHits = (db: DB): Task => ({
  name: 'pruneRateLimitHits',
  everyMs: 3600_000,
  async run() {
    await db
      .deleteFrom('rate_limit_hits')
      .where('created_at', '<', Date.now() - 24 * 3600_000)
      .execute();
  },
});
