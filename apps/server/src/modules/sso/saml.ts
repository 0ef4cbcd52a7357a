import { type Profile, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { sessionsEnded } from '../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../platform/db/db.js';
import { loadPemPair } from '../../platform/pemPair.js';
import type { SsoConfigRow } from './config.js';
import { REQUEST_TTL_MS, samlRequestCache } from './requests.js';
import type { SsoIdentity } from './signInUser.js';

/** How long a used assertion id is remembered; an assertion older than this is refused anyway. */
const ASSERTION_MEMORY_MS = 24 * 3600_000;
/** Clocks of Parley and the identity provider may differ this much. */
const CLOCK_SKEW_MS = 60_000;

export class SamlError extends Error {
  constructor(
    readonly code: 'failed' | 'expired' | 'noemail',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The SP entity id (the audience assertions must name): the admin's, else this account's metadata URL. */
export const spEntityId = (cfg: SsoConfigRow, base: string) =>
  cfg.saml_sp_entity_id || `${base}/api/sso/${cfg.account_id}/saml/metadata`;
export const acsUrl = (accountId: number, base: string) => `${base}/api/sso/${accountId}/saml/acs`;
/** Where the identity provider sends LogoutRequests and the answers to ours (HTTP-Redirect or HTTP-POST). */
export const sloUrl = (accountId: number, base: string) => `${base}/api/sso/${accountId}/saml/slo`;

/** The installation's SAML signing key and certificate (PEM), for LogoutRequests and LogoutResponses. */
export interface SamlSpKey {
  key: string;
  cert: string;
}

/** SAML_SP_KEY_FILE and SAML_SP_CERT_FILE, read and checked at start (loadPemPair). */
export function loadSamlSpKey(keyFile: string | undefined, certFile: string | undefined): SamlSpKey | null {
  return loadPemPair(keyFile, certFile, { key: 'SAML_SP_KEY_FILE', cert: 'SAML_SP_CERT_FILE' });
}

/**
 * node-saml for one account: assertions must be signed by one of the IdP's certificates, name our entity id
 * as audience, be within NotBefore / NotOnOrAfter (a minute of skew), and answer a request this account sent
 * (InResponseTo, kept in the database and used once).
 */
function samlFor(db: DB, cfg: SsoConfigRow, base: string, sp: SamlSpKey | null = null): SAML {
  const entity = spEntityId(cfg, base);
  return new SAML({
    callbackUrl: acsUrl(Number(cfg.account_id), base),
    entryPoint: cfg.saml_entry_point,
    // Single logout: our LogoutRequests and LogoutResponses go to the IdP's SLO URL (HTTP-Redirect), signed
    // with the installation's key when there is one (the query signature of the binding).
    logoutUrl: cfg.saml_logout_url || cfg.saml_entry_point,
    logoutCallbackUrl: sloUrl(Number(cfg.account_id), base),
    ...(sp ? { privateKey: sp.key, signatureAlgorithm: 'sha256' as const } : {}),
    issuer: entity,
    audience: entity,
    idpCert: JSON.parse(cfg.saml_certs) as string[],
    ...(cfg.saml_idp_entity_id ? { idpIssuer: cfg.saml_idp_entity_id } : {}),
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: samlRequestCache(db, Number(cfg.account_id)),
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: ASSERTION_MEMORY_MS,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    disableRequestedAuthnContext: true,
  });
}

/** The identity provider's sign-in URL with a fresh AuthnRequest (its id kept for InResponseTo). */
export async function startSaml(db: DB, cfg: SsoConfigRow, base: string): Promise<string> {
  return samlFor(db, cfg, base).getAuthorizeUrlAsync('', undefined, {});
}

/**
 * The ACS: node-saml checks the response (signature, audience, times, InResponseTo); then the assertion's id
 * is recorded, unique per account, so the same assertion never opens a second session.
 */
export async function finishSaml(
  db: DB,
  cfg: SsoConfigRow,
  base: string,
  body: Record<string, string>,
): Promise<SsoIdentity> {
  if (typeof body.SAMLResponse !== 'string' || !body.SAMLResponse) throw new SamlError('failed', 'no SAMLResponse');
  let profile: Profile | null;
  try {
    ({ profile } = await samlFor(db, cfg, base).validatePostResponseAsync({
      SAMLResponse: body.SAMLResponse,
      ...(body.RelayState ? { RelayState: body.RelayState } : {}),
    }));
  } catch (err) {
    const why = (err as Error).message;
    throw new SamlError(/InResponseTo/i.test(why) ? 'expired' : 'failed', why);
  }
  if (!profile) throw new SamlError('failed', 'no profile');
  const assertionId = /<(?:\w+:)?Assertion\b[^>]*\sID="([^"]+)"/.exec(profile.getAssertionXml?.() ?? '')?.[1];
  if (!assertionId) throw new SamlError('failed', 'assertion without an id');
  const at = Date.now();
  await db.deleteFrom('sso_assertions').where('expires_at', '<=', at).execute();
  try {
    await db
      .insertInto('sso_assertions')
      .values({
        account_id: Number(cfg.account_id),
        assertion_id: assertionId.slice(0, 200),
        expires_at: at + ASSERTION_MEMORY_MS,
      })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new SamlError('expired', 'assertion replayed');
    throw err;
  }
  const attr = (k: string) => (typeof profile[k] === 'string' ? (profile[k] as string) : '');
  const email =
    attr('email') ||
    attr('mail') ||
    attr('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress') ||
    (profile.nameID?.includes('@') ? profile.nameID : '');
  if (!email) throw new SamlError('noemail', 'no e-mail');
  const name =
    attr('displayName') ||
    attr('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name') ||
    [attr('givenName'), attr('sn') || attr('surname')].filter(Boolean).join(' ');
  return {
    email,
    name,
    subject: profile.nameID ?? email,
    saml: {
      nameId: profile.nameID ?? '',
      nameIdFormat: profile.nameIDFormat ?? '',
      sessionIndex: typeof profile.sessionIndex === 'string' ? profile.sessionIndex : '',
    },
  };
}

/** The NameID and SessionIndex a SAML session was opened with (`sso_sessions`). */
export interface SamlSessionLink {
  name_id: string;
  name_id_format: string;
  session_index: string;
}

/**
 * SP-initiated single logout: the IdP's SLO URL with a LogoutRequest naming the session's NameID and
 * SessionIndex (signed when the installation has a key; its id kept, so the IdP's LogoutResponse must answer
 * it). '' when the IdP has no SLO URL or the session has no NameID.
 */
export async function samlLogoutUrl(
  db: DB,
  cfg: SsoConfigRow,
  base: string,
  sp: SamlSpKey | null,
  link: SamlSessionLink,
): Promise<string> {
  if (!cfg.saml_logout_url || !link.name_id) return '';
  const who = {
    issuer: cfg.saml_idp_entity_id,
    nameID: link.name_id,
    nameIDFormat: link.name_id_format || 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
    ...(link.session_index ? { sessionIndex: link.session_index } : {}),
  } as Profile;
  return samlFor(db, cfg, base, sp).getLogoutUrlAsync(who, '', {});
}

/** A LogoutRequest or LogoutResponse as it reached the SLO URL. */
export type SloMessage =
  | { binding: 'redirect'; query: Record<string, string>; rawQuery: string }
  | { binding: 'post'; body: Record<string, string> };

/**
 * The SLO URL. A LogoutRequest from the IdP must be signed by one of the account's IdP certificates (the
 * query signature of HTTP-Redirect, or an XML signature with HTTP-POST; an unsigned one is refused, as
 * node-saml alone would accept it over HTTP-Redirect), from the account's IdP (issuer, when the metadata named
 * it) and within its NotOnOrAfter. Then every Parley session of this account opened by that NameID (and
 * SessionIndex, when given) ends, and the answer is the IdP's SLO URL with a LogoutResponse. A LogoutResponse
 * (the answer to ours) is checked over HTTP-Redirect and leads to the sign-in page; it changes nothing.
 */
export async function takeSamlLogout(
  db: DB,
  cfg: SsoConfigRow,
  base: string,
  sp: SamlSpKey | null,
  m: SloMessage,
): Promise<{ kind: 'request'; ended: number[]; redirect: string } | { kind: 'response' }> {
  const saml = samlFor(db, cfg, base, sp);
  const fields = m.binding === 'redirect' ? m.query : m.body;
  if (typeof fields.SAMLRequest !== 'string' || !fields.SAMLRequest) {
    if (typeof fields.SAMLResponse !== 'string' || !fields.SAMLResponse)
      throw new SamlError('failed', 'no SAMLRequest or SAMLResponse');
    // A posted LogoutResponse: nothing depends on it (the session ended when the user signed out).
    if (m.binding === 'post') return { kind: 'response' };
    try {
      await saml.validateRedirectAsync(m.query, m.rawQuery);
    } catch (err) {
      throw new SamlError('failed', `LogoutResponse: ${(err as Error).message}`);
    }
    return { kind: 'response' };
  }
  let profile: Profile | null;
  try {
    if (m.binding === 'redirect') {
      if (!m.query.Signature || !m.query.SigAlg) throw new Error('unsigned LogoutRequest');
      ({ profile } = await saml.validateRedirectAsync(m.query, m.rawQuery));
    } else ({ profile } = await saml.validatePostRequestAsync({ SAMLRequest: fields.SAMLRequest }));
  } catch (err) {
    throw new SamlError('failed', `LogoutRequest: ${(err as Error).message}`);
  }
  if (!profile?.nameID) throw new SamlError('failed', 'LogoutRequest without a NameID');
  const accountId = Number(cfg.account_id);
  let q = db
    .selectFrom('sso_sessions')
    .select('session_id')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'saml')
    .where('name_id', '=', profile.nameID);
  if (typeof profile.sessionIndex === 'string' && profile.sessionIndex)
    q = q.where('session_index', '=', profile.sessionIndex);
  const ids = (await q.execute()).map((r) => Number(r.session_id));
  const ended =
    ids.length === 0
      ? []
      : (
          await db
            .updateTable('sessions')
            .set({ revoked_at: Date.now() })
            .where('account_id', '=', accountId)
            .where('id', 'in', ids)
            .where('revoked_at', 'is', null)
            .returning('id')
            .execute()
        ).map((r) => Number(r.id));
  sessionsEnded(db, ended);
  const relay = typeof fields.RelayState === 'string' ? fields.RelayState : '';
  return { kind: 'request', ended, redirect: await saml.getLogoutResponseUrlAsync(profile, relay, {}, true) };
}
