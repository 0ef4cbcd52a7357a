import { NOT_AN_ADMIN, type SignInInput, TFA_REQUIRED, TOO_MANY_ATTEMPTS } from '@parley/contracts';
import { sql } from 'kysely';
import { createSession } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { verifyPassword } from '../../accounts/index.js';
import { recordAudit } from '../../audit/index.js';
import { passwordRefused } from '../../sso/index.js';
import { settleAttempt, takeAttempt } from '../throttle.js';
import { consumeBackupCode, useTotp } from '../twoFactor.js';

export type SignInResult =
  | { ok: true; token: string; refreshToken: string; accountId: number; userId: number }
  | { ok: false; status: 401 | 429; description: string };

/** One answer for an unknown user and a wrong password, so usernames cannot be probed. */
export const BAD_CREDENTIALS = 'Invalid username or password.';
export const BAD_TFA = 'Invalid two-factor code.';

/**
 * AUTH-07: checks the username (`client`), password and, when the user has it, the two-factor code
 * (AUTH-05), then opens a session. Throttled per username and per IP; every outcome is audited.
 */
export async function signIn(
  db: DB,
  input: SignInInput,
  client: { userAgent?: string; ip?: string },
): Promise<SignInResult> {
  const ip = client.ip ?? '';
  const username = input.client.toLowerCase();
  const user = await db
    .selectFrom('users')
    .select([
      'id',
      'account_id',
      'username',
      'type',
      'password_hash',
      'active',
      'totp_enabled',
      'totp_secret',
      'backup_codes',
    ])
    .where(sql`lower(username)`, '=', username)
    .executeTakeFirst();
  const accountId = user ? Number(user.account_id) : null;
  const audit = (action: 'signin.failed' | 'signin.throttled' | 'signin.succeeded', reason?: string) =>
    user
      ? recordAudit(db, {
          accountId: Number(user.account_id),
          userId: Number(user.id),
          actor: user.username,
          action,
          detail: reason ? { reason } : {},
          ip,
        })
      : Promise.resolve();

  // The attempt is counted before the password is checked, in one step with the count (see takeAttempt).
  const attempt = await takeAttempt(db, { username, ip, accountId });
  if (attempt === null) {
    await audit('signin.throttled');
    return { ok: false, status: 429, description: TOO_MANY_ATTEMPTS };
  }
  const fail = async (reason: string, description: string): Promise<SignInResult> => {
    await audit('signin.failed', reason);
    return { ok: false, status: 401, description };
  };

  const passwordOk = await verifyPassword(user?.password_hash, input.password);
  if (!user || !passwordOk) return fail(user ? 'password' : 'unknown user', BAD_CREDENTIALS);
  if (!user.active) return fail('inactive', 'This user has been deactivated.');
  // "SSO only": the password was right, but this account signs in through its identity provider. Said only
  // after the password, so it tells nothing about a username to someone who does not know the password.
  const ssoOnly = await passwordRefused(db, { accountId: accountId!, userId: Number(user.id) });
  if (ssoOnly) {
    await audit('signin.failed', 'sso only');
    await settleAttempt(db, attempt, 'uncounted');
    return { ok: false, status: 401, description: ssoOnly };
  }
  // AUTH-30: Admin on the form is for admins. Checked before the two-factor code so no backup code is used
  // up on a sign-in that is refused anyway; the password was right, so it does not count towards throttling.
  if (input.type === 'admin' && user.type !== 'admin') {
    await audit('signin.failed', 'not an admin');
    return { ok: false, status: 401, description: NOT_AN_ADMIN };
  }

  if (user.totp_enabled && user.totp_secret) {
    // The password was right: asking for the code is not a failure, and does not count towards throttling.
    if (!input.tfa) {
      await settleAttempt(db, attempt, 'uncounted');
      return { ok: false, status: 401, description: TFA_REQUIRED };
    }
    const secret = user.totp_secret;
    if (!(await useTotp(db, { accountId: Number(user.account_id), userId: Number(user.id), secret }, input.tfa))) {
      const left = consumeBackupCode(JSON.parse(user.backup_codes), input.tfa);
      if (!left) return fail('two-factor code', BAD_TFA);
      // Only if the list is still the one read above: two requests with the same code cannot both use it.
      const used = await db
        .updateTable('users')
        .set({ backup_codes: JSON.stringify(left) })
        .where('id', '=', user.id)
        .where('backup_codes', '=', user.backup_codes)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) !== 1) return fail('two-factor code', BAD_TFA);
      await recordAudit(db, {
        accountId: Number(user.account_id),
        userId: Number(user.id),
        actor: user.username,
        action: 'tfa.backup_code_used',
        detail: { left: left.length },
        ip,
      });
    }
  }

  const userId = Number(user.id);
  const s = await createSession(db, { accountId: accountId!, userId, ...client });
  await settleAttempt(db, attempt, 'success');
  await audit('signin.succeeded');
  return { ok: true, token: s.token, refreshToken: s.refreshToken, accountId: accountId!, userId };
}
