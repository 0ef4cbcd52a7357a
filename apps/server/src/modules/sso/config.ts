import net from 'node:net';
import type { SsoConfigInput as Input } from '@parley/contracts';
import { SSO_STRINGS, type SsoConfigView, type SsoKind, type UserType } from '@parley/contracts';
import type { Selectable } from 'kysely';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../platform/db/db.js';
import type { SsoConfigsTable } from '../../platform/db/schema.js';
import { badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/index.js';
import type { Secrets } from '../email/index.js';
import { isPrivateAddress } from '../notifications/pushEndpoints.js';
import { checkedCert, parseIdpMetadata } from './samlMetadata.js';

export type SsoConfigRow = Selectable<SsoConfigsTable>;
export type ParsedInput = z.output<typeof Input>;
/** A `host` or `host:port` the operator allows besides public https addresses (SSO_ALLOWED_HOSTS). */
export interface AllowedSsoHost {
  host: string;
  port: string;
}

/**
 * Why an identity provider's address is refused, or null: https to a public host, or http(s) to a host the
 * operator allows. A literal private or loopback address and `localhost` are refused unless allowed.
 */
export function ssoUrlProblem(raw: string, allowed: readonly AllowedSsoHost[], words: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return words;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || !u.hostname) return words;
  if (allowed.some((a) => a.host === u.hostname && a.port === u.port)) return null;
  if (u.protocol !== 'https:') return words;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIP(host)) return isPrivateAddress(host) ? words : null;
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return words;
  return null;
}

export async function readConfig(db: DB, accountId: number): Promise<SsoConfigRow | undefined> {
  return db.selectFrom('sso_configs').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** The config behind a sign-in name or an account id, when it is switched on. */
export async function enabledConfig(db: DB, account: string): Promise<SsoConfigRow | undefined> {
  const q = db.selectFrom('sso_configs').selectAll().where('enabled', '=', 1);
  return /^\d{1,15}$/.test(account)
    ? q.where('account_id', '=', Number(account)).executeTakeFirst()
    : q.where('slug', '=', account).executeTakeFirst();
}

export function toView(r: SsoConfigRow): SsoConfigView {
  const kind = r.kind as SsoKind;
  return {
    kind,
    enabled: Boolean(Number(r.enabled)),
    ssoOnly: Boolean(Number(r.sso_only)),
    slug: r.slug,
    jitType: r.jit_type as UserType,
    jitDepartmentId: r.jit_department_id === null ? null : Number(r.jit_department_id),
    oidc:
      kind === 'oidc'
        ? {
            issuer: r.oidc_issuer,
            clientId: r.oidc_client_id,
            hasClientSecret: r.oidc_client_secret !== '',
            scopes: r.oidc_scopes,
          }
        : null,
    saml:
      kind === 'saml'
        ? {
            idpEntityId: r.saml_idp_entity_id,
            entryPoint: r.saml_entry_point,
            logoutUrl: r.saml_logout_url,
            certificates: (JSON.parse(r.saml_certs) as string[]).length,
            spEntityId: r.saml_sp_entity_id,
            hasMetadata: r.saml_metadata !== '',
          }
        : null,
  };
}

/** The OIDC scopes as sent: `openid` always first, each once. */
export function scopesOf(raw: string): string {
  const list = raw.split(/[\s,]+/).filter((s) => /^[\x21-\x7e]+$/.test(s));
  return [...new Set(['openid', ...list])].join(' ');
}

/**
 * Admin: saves the account's single sign-on. Everything is checked before anything is written: a bad issuer,
 * metadata that is not XML (or names no identity provider), a certificate that is not one, another account's
 * sign-in name or department: a 400 or 409 and nothing saved. The client secret is sealed with SECRETS_KEY;
 * an empty one keeps the saved secret.
 */
export async function saveConfig(
  deps: { db: DB; secrets: Secrets | null; allowedHosts: readonly AllowedSsoHost[] },
  auth: AuthContext & { ip?: string },
  input: ParsedInput,
): Promise<SsoConfigView> {
  const { db, secrets } = deps;
  const existing = await readConfig(db, auth.accountId);
  const fields: Partial<SsoConfigRow> = {
    kind: input.kind,
    enabled: input.enabled ? 1 : 0,
    sso_only: input.ssoOnly ? 1 : 0,
    slug: input.slug,
    jit_type: input.jitType,
    jit_department_id: input.jitDepartmentId,
  };
  if (input.kind === 'oidc') {
    const o = input.oidc;
    if (!o || !o.issuer || !o.clientId) throw badRequest(SSO_STRINGS.oidcNeedsClient);
    try {
      new URL(o.issuer);
    } catch {
      throw badRequest(SSO_STRINGS.badIssuer);
    }
    const problem = ssoUrlProblem(o.issuer, deps.allowedHosts, SSO_STRINGS.issuerHttps);
    if (problem) throw badRequest(problem);
    let sealed = existing?.kind === 'oidc' ? existing.oidc_client_secret : '';
    if (o.clientSecret) {
      if (!secrets) throw conflict(SSO_STRINGS.secretsOff);
      sealed = secrets.seal(auth.accountId, o.clientSecret);
    }
    if (!sealed) throw badRequest(SSO_STRINGS.secretNeeded);
    Object.assign(fields, {
      oidc_issuer: o.issuer,
      oidc_client_id: o.clientId,
      oidc_client_secret: sealed,
      oidc_scopes: scopesOf(o.scopes),
      saml_metadata: '',
      saml_idp_entity_id: '',
      saml_entry_point: '',
      saml_logout_url: '',
      saml_certs: '[]',
      saml_sp_entity_id: '',
    });
  } else {
    const s = input.saml;
    if (!s) throw badRequest(SSO_STRINGS.samlNeedsIdp);
    let idp: { entityId: string; entryPoint: string; logoutUrl: string; certs: string[] };
    if (s.metadataXml.trim()) idp = parseIdpMetadata(s.metadataXml);
    else if (s.entryPoint && s.certificate.trim())
      idp = { entityId: '', entryPoint: s.entryPoint, logoutUrl: '', certs: [checkedCert(s.certificate)] };
    // Saved again without new metadata or certificate: the IdP's saved certificates stay.
    else if (s.entryPoint && existing?.kind === 'saml')
      idp = {
        entityId: existing.saml_idp_entity_id,
        entryPoint: s.entryPoint,
        logoutUrl: existing.saml_logout_url,
        certs: JSON.parse(existing.saml_certs) as string[],
      };
    else throw badRequest(SSO_STRINGS.samlNeedsIdp);
    const problem = ssoUrlProblem(idp.entryPoint, deps.allowedHosts, SSO_STRINGS.badEntryPoint);
    if (problem) throw badRequest(problem);
    if (idp.logoutUrl && ssoUrlProblem(idp.logoutUrl, deps.allowedHosts, 'x')) idp.logoutUrl = '';
    Object.assign(fields, {
      oidc_issuer: '',
      oidc_client_id: '',
      oidc_client_secret: '',
      oidc_scopes: '',
      saml_metadata:
        s.metadataXml.trim() || (existing?.kind === 'saml' && !s.certificate.trim() ? existing.saml_metadata : ''),
      saml_idp_entity_id: idp.entityId,
      saml_entry_point: idp.entryPoint,
      saml_logout_url: idp.logoutUrl,
      saml_certs: JSON.stringify(idp.certs),
      saml_sp_entity_id: s.spEntityId,
    });
  }
  const at = Date.now();
  return runCommand(db, async (trx) => {
    if (input.jitDepartmentId !== null) {
      const d = await trx
        .selectFrom('departments')
        .select('id')
        .where('account_id', '=', auth.accountId)
        .where('id', '=', input.jitDepartmentId)
        .executeTakeFirst();
      if (!d) throw badRequest(SSO_STRINGS.unknownDepartment);
    }
    const taken = await trx
      .selectFrom('sso_configs')
      .select('account_id')
      .where('slug', '=', input.slug)
      .where('account_id', '<>', auth.accountId)
      .executeTakeFirst();
    if (taken) throw conflict(SSO_STRINGS.slugTaken);
    const write = existing
      ? trx
          .updateTable('sso_configs')
          .set({ ...fields, updated_by: auth.userId, updated_at: at })
          .where('account_id', '=', auth.accountId)
          .execute()
      : trx
          .insertInto('sso_configs')
          .values({
            ...(fields as Required<typeof fields>),
            account_id: auth.accountId,
            updated_by: auth.userId,
            created_at: at,
            updated_at: at,
          })
          .execute();
    await write.catch((err: unknown) => {
      throw isUniqueViolation(err) ? conflict(SSO_STRINGS.slugTaken) : err;
    });
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'sso.updated',
      detail: { kind: input.kind, enabled: input.enabled, ssoOnly: input.ssoOnly, jitType: input.jitType },
      ip: auth.ip,
    });
    const row = await trx
      .selectFrom('sso_configs')
      .selectAll()
      .where('account_id', '=', auth.accountId)
      .executeTakeFirstOrThrow();
    return toView(row);
  });
}

/** Admin: removes the account's single sign-on; users keep their accounts and passwords. */
export async function removeConfig(db: DB, auth: AuthContext & { ip?: string }): Promise<void> {
  await runCommand(db, async (trx) => {
    const r = await trx.deleteFrom('sso_configs').where('account_id', '=', auth.accountId).executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw notFound(SSO_STRINGS.notConfigured);
    await trx.deleteFrom('sso_requests').where('account_id', '=', auth.accountId).execute();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'sso.removed',
      ip: auth.ip,
    });
  });
}

/**
 * Password sign-in is refused for users of an account whose single sign-on is on and "SSO only", except its
 * owner (the first admin, by id): a broken identity provider must never lock every admin out.
 */
export async function passwordRefused(db: DB, user: { accountId: number; userId: number }): Promise<string | null> {
  const c = await db
    .selectFrom('sso_configs')
    .select('account_id')
    .where('account_id', '=', user.accountId)
    .where('enabled', '=', 1)
    .where('sso_only', '=', 1)
    .executeTakeFirst();
  if (!c) return null;
  const owner = await db
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', user.accountId)
    .where('type', '=', 'admin')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return owner && Number(owner.id) === user.userId ? null : SSO_STRINGS.ssoOnlyRefused;
}
