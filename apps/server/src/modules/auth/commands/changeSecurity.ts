import {
  type AuthContext,
  forgetResolvedSessions,
  revokeAllSessions,
  revokeOtherSessions,
  sessionsEnded,
} from '../../../platform/auth/sessions.js';
import { hashToken } from '../../../platform/auth/tokens.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { hashPassword, verifyPassword } from '../../accounts/index.js';
import { recordAudit } from '../../audit/index.js';
import { consumeOneTimeToken } from '../oneTimeTokens.js';
import { settleAttempt, takeGuess } from '../throttle.js';
import { newBackupCodes, newTotp, useTotp } from '../twoFactor.js';

export const WRONG_PASSWORD = 'Your current password is not correct.';

/** The caller's own password hash and two-factor state. */
const securityOf = (db: DB, auth: Pick<AuthContext, 'accountId' | 'userId'>) =>
  db
    .selectFrom('users')
    .select(['password_hash', 'username', 'totp_secret', 'totp_enabled'])
    .where('account_id', '=', auth.accountId)
    .where('id', '=', auth.userId)
    .executeTakeFirstOrThrow();

/**
 * A guess at the caller's own password (`takeGuess`: 429 past the limit, nothing checked): 400 when it is
 * wrong, which stays counted; a right one is not counted.
 */
async function checkPassword(
  db: DB,
  auth: AuthContext,
  u: { username: string; password_hash: string },
  password: string,
): Promise<void> {
  const guess = await takeGuess(db, { accountId: auth.accountId, username: u.username });
  if (!(await verifyPassword(u.password_hash, password))) throw new AppError(400, 'WRONG_PASSWORD', WRONG_PASSWORD);
  await settleAttempt(db, guess, 'uncounted');
}

/**
 * A user changes their own password: checked against the current one (400 otherwise, nothing written;
 * throttled, see `checkPassword`), then in one transaction the new hash, every other session of theirs
 * ended and the audit entry; their sockets close after the commit. The slow hashing happens before the
 * transaction, so it holds no lock meanwhile.
 */
export async function changePassword(
  db: DB,
  auth: AuthContext,
  input: { current: string; password: string },
  ip: string,
): Promise<void> {
  const u = await securityOf(db, auth);
  await checkPassword(db, auth, u, input.current);
  const hash = await hashPassword(input.password);
  const ended = await runCommand(db, async (trx) => {
    const at = Date.now();
    await trx
      .updateTable('users')
      .set({ password_hash: hash, password_changed_at: at, updated_at: at })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', auth.userId)
      .execute();
    const ids = await revokeOtherSessions(trx, auth);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'password.changed',
      ip,
    });
    return ids;
  });
  sessionsEnded(db, ended);
}

/**
 * Step 1 of the two-factor setup: with the password (a session alone must not lock its owner out; throttled,
 * see `checkPassword`), a new secret is stored, not active yet, and answered with its QR code.
 */
export async function startTwoFactorSetup(db: DB, auth: AuthContext, password: string) {
  const u = await securityOf(db, auth);
  if (u.totp_enabled) throw new AppError(409, 'TFA_ALREADY_ENABLED', 'Two-factor sign-in is already on.');
  await checkPassword(db, auth, u, password);
  const t = await newTotp('Parley', u.username);
  await db
    .updateTable('users')
    .set({ totp_secret: t.secret })
    .where('account_id', '=', auth.accountId)
    .where('id', '=', auth.userId)
    .execute();
  return t;
}

/**
 * Step 2 of the two-factor setup: a code from the app proves the secret was stored; the flag, the backup
 * codes' hashes and the audit entry commit together. The codes are answered once. The code is a guess like
 * a password (`takeGuess`): 429 past the limit, a wrong one stays counted, a right one is not counted.
 */
export async function enableTwoFactor(db: DB, auth: AuthContext, code: string, ip: string): Promise<string[]> {
  const u = await securityOf(db, auth);
  if (u.totp_enabled) throw new AppError(409, 'TFA_ALREADY_ENABLED', 'Two-factor sign-in is already on.');
  if (!u.totp_secret) throw new AppError(400, 'TFA_NOT_SET_UP', 'Start the two-factor setup first.');
  const secret = u.totp_secret;
  const { codes, hashes } = newBackupCodes();
  const guess = await takeGuess(db, { accountId: auth.accountId, username: u.username });
  await runCommand(db, async (trx) => {
    if (!(await useTotp(trx, { accountId: auth.accountId, userId: auth.userId, secret }, code)))
      throw new AppError(400, 'TFA_BAD_CODE', 'That code is not right. Check the time on your phone and try again.');
    await settleAttempt(trx, guess, 'uncounted');
    await trx
      .updateTable('users')
      .set({ totp_enabled: 1, backup_codes: JSON.stringify(hashes), updated_at: Date.now() })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', auth.userId)
      .execute();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'tfa.enabled',
      ip,
    });
  });
  // A required setup is done: the next call must not meet a session resolved before it.
  forgetResolvedSessions();
  return codes;
}

/**
 * With the password (throttled, see `checkPassword`), two-factor sign-in is switched off: the secret and
 * backup codes go, with an audit entry.
 */
export async function disableTwoFactor(db: DB, auth: AuthContext, password: string, ip: string): Promise<void> {
  const u = await securityOf(db, auth);
  await checkPassword(db, auth, u, password);
  await runCommand(db, async (trx) => {
    await trx
      .updateTable('users')
      .set({ totp_enabled: 0, totp_secret: null, backup_codes: '[]', updated_at: Date.now() })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', auth.userId)
      .execute();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'tfa.disabled',
      ip,
    });
  });
  forgetResolvedSessions();
}

const RESET_LINK_INVALID = 'This link has expired or was already used. Ask for a new one.';

/**
 * A password reset link is used: in one transaction the link is used up (a second use, even a concurrent
 * one, is refused), the new hash stored, every session of the user ended, the user's other reset links
 * dropped and the audit entry written; their sockets close after the commit. The link is checked before the
 * slow hashing (an unknown link costs no hash) and used up inside the transaction.
 */
export async function resetPassword(db: DB, token: string, password: string, ip: string): Promise<void> {
  const unused = await db
    .selectFrom('one_time_tokens')
    .select('id')
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', 'reset')
    .where('used_at', 'is', null)
    .where('expires_at', '>', Date.now())
    .executeTakeFirst();
  if (!unused) throw new AppError(400, 'RESET_LINK_INVALID', RESET_LINK_INVALID);
  const hash = await hashPassword(password);
  const ended = await runCommand(db, async (trx) => {
    const who = await consumeOneTimeToken(trx, token, 'reset');
    if (!who) throw new AppError(400, 'RESET_LINK_INVALID', RESET_LINK_INVALID);
    const at = Date.now();
    const u = await trx
      .updateTable('users')
      .set({ password_hash: hash, password_changed_at: at, updated_at: at })
      .where('account_id', '=', who.accountId)
      .where('id', '=', who.userId)
      .returning('username')
      .executeTakeFirstOrThrow();
    const ids = await revokeAllSessions(trx, who.accountId, who.userId);
    // Any other reset link of this user dies with this one.
    await trx
      .updateTable('one_time_tokens')
      .set({ used_at: at })
      .where('account_id', '=', who.accountId)
      .where('user_id', '=', who.userId)
      .where('purpose', '=', 'reset')
      .where('used_at', 'is', null)
      .execute();
    await recordAudit(trx, {
      accountId: who.accountId,
      userId: who.userId,
      actor: u.username,
      action: 'password.reset',
      ip,
    });
    return ids;
  });
  sessionsEnded(db, ended);
}
