import { randomBytes } from 'node:crypto';
import { SSO_STRINGS, type UserType } from '@parley/contracts';
import { sql } from 'kysely';
import { createSession } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { lockAccount } from '../../platform/db/locks.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import { createUser } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import type { SsoConfigRow } from './config.js';

/** Who the identity provider vouched for. */
export interface SsoIdentity {
  email: string;
  name: string;
  /** The IdP's own id of the user (OIDC `sub`, SAML NameID), for the audit log. */
  subject: string;
  /** SAML: what a LogoutRequest names the session by (single logout, both ways). */
  saml?: { nameId: string; nameIdFormat: string; sessionIndex: string };
}

export type SsoSignInResult =
  | { ok: true; token: string; refreshToken: string; userId: number; created: boolean }
  | { ok: false; reason: 'deactivated' | 'noemail' };

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/**
 * Opens a Parley session for the user with this e-mail in the config's account, creating the user first
 * (just in time) with the config's role and department when there is none. Only ever the config's own
 * account: a user of another account with the same address is never touched. The account row is locked,
 * so two first sign-ins of one person at once create one user.
 */
export async function ssoSignIn(
  db: DB,
  cfg: SsoConfigRow,
  who: SsoIdentity,
  client: { userAgent?: string; ip?: string },
  idToken = '',
): Promise<SsoSignInResult> {
  const accountId = Number(cfg.account_id);
  const email = who.email.trim().toLowerCase();
  if (!EMAIL.test(email)) return { ok: false, reason: 'noemail' };
  return runCommand(db, async (trx) => {
    await lockAccount(trx, accountId);
    let user = await trx
      .selectFrom('users')
      .select(['id', 'username', 'active'])
      .where('account_id', '=', accountId)
      .where(sql`lower(email)`, '=', email)
      .orderBy('id')
      .executeTakeFirst();
    let created = false;
    if (!user) {
      const username = await freeUsername(trx, email);
      const { userId } = await createUser(trx, {
        accountId,
        username,
        name: who.name.trim().slice(0, 120) || email.split('@')[0]!,
        email,
        // Nobody knows this password: the user signs in through the identity provider (or resets it).
        password: randomBytes(32).toString('base64url'),
        type: cfg.jit_type as UserType,
      });
      if (cfg.jit_department_id !== null)
        await trx
          .updateTable('users')
          .set({ departments: JSON.stringify([Number(cfg.jit_department_id)]) })
          .where('account_id', '=', accountId)
          .where('id', '=', userId)
          .execute();
      await recordAudit(trx, {
        accountId,
        userId,
        actor: username,
        action: 'sso.user_created',
        detail: { kind: cfg.kind, type: cfg.jit_type, department: cfg.jit_department_id, subject: who.subject },
        ip: client.ip,
      });
      user = { id: userId, username, active: 1 };
      created = true;
    }
    const userId = Number(user.id);
    if (!Number(user.active)) {
      await recordAudit(trx, {
        accountId,
        userId,
        actor: user.username,
        action: 'sso.refused',
        detail: { kind: cfg.kind, reason: 'inactive' },
        ip: client.ip,
      });
      return { ok: false, reason: 'deactivated' } as const;
    }
    const s = await createSession(trx, { accountId, userId, ...client });
    await trx
      .insertInto('sso_sessions')
      .values({
        account_id: accountId,
        session_id: s.sessionId,
        kind: cfg.kind,
        id_token: idToken,
        name_id: who.saml?.nameId.slice(0, 500) ?? '',
        name_id_format: who.saml?.nameIdFormat.slice(0, 200) ?? '',
        session_index: who.saml?.sessionIndex.slice(0, 200) ?? '',
        created_at: Date.now(),
      })
      .execute();
    await recordAudit(trx, {
      accountId,
      userId,
      actor: user.username,
      action: 'sso.signin',
      detail: { kind: cfg.kind, subject: who.subject, created },
      ip: client.ip,
    });
    return { ok: true, token: s.token, refreshToken: s.refreshToken, userId, created } as const;
  });
}

/** A username made from the address's local part, free across the installation (usernames are unique). */
async function freeUsername(trx: Trx, email: string): Promise<string> {
  const base = (email.split('@')[0] ?? '')
    .replace(/[^a-z0-9._-]/g, '')
    .slice(0, 40)
    .padEnd(3, '0');
  for (let i = 0; i < 8; i++) {
    const name = i === 0 ? base : `${base}-${randomBytes(3).toString('hex')}`;
    const taken = await trx.selectFrom('users').select('id').where(sql`lower(username)`, '=', name).executeTakeFirst();
    if (!taken) return name;
  }
  return `${base}-${randomBytes(8).toString('hex')}`;
}

/** Refusals a sign-in ends with, as the sign-in page's `?sso_error=` code and its words. */
export const SSO_ERRORS = {
  failed: SSO_STRINGS.signInFailed,
  expired: SSO_STRINGS.expired,
  noemail: SSO_STRINGS.noEmail,
  deactivated: SSO_STRINGS.deactivated,
} as const;
export type SsoError = keyof typeof SSO_ERRORS;
