import * as client from 'openid-client';
import type { Secrets } from '../email/index.js';
import type { SsoConfigRow } from './config.js';
import { saveRequest, takeRequest } from './requests.js';
import type { SsoIdentity } from './signInUser.js';

/** How long Parley waits for the identity provider at each call (discovery, token, keys, user info). */
export const OIDC_TIMEOUT_S = 10;
const DISCOVERY_TTL_MS = 5 * 60_000;

/** The issuer's discovered metadata per account, until its config changes or five minutes pass. */
const discovered = new Map<string, { at: number; config: client.Configuration }>();

export class OidcError extends Error {
  constructor(
    readonly code: 'failed' | 'expired' | 'noemail',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The client configuration for an account: its issuer's discovery document, its id and sealed secret. */
export async function oidcClient(cfg: SsoConfigRow, secrets: Secrets | null): Promise<client.Configuration> {
  const key = `${cfg.account_id}:${cfg.updated_at}`;
  const hit = discovered.get(key);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
  const secret = secrets?.open(Number(cfg.account_id), cfg.oidc_client_secret);
  if (!secret) throw new OidcError('failed', 'client secret cannot be opened (SECRETS_KEY changed or unset)');
  const issuer = new URL(cfg.oidc_issuer);
  let config: client.Configuration;
  try {
    config = await client.discovery(issuer, cfg.oidc_client_id, undefined, client.ClientSecretBasic(secret), {
      timeout: OIDC_TIMEOUT_S,
      // Only an issuer the operator allowed (SSO_ALLOWED_HOSTS) can be http: the saved config was checked.
      // The ID token's signature is checked against the issuer's keys too, not only trusted for coming over
      // the token endpoint's TLS (which the spec allows): a forged token never passes.
      execute: [
        client.enableNonRepudiationChecks,
        ...(issuer.protocol === 'http:' ? [client.allowInsecureRequests] : []),
      ],
    });
  } catch (err) {
    throw new OidcError('failed', `discovery: ${(err as Error).message}`);
  }
  for (const k of discovered.keys()) if (k.startsWith(`${cfg.account_id}:`)) discovered.delete(k);
  discovered.set(key, { at: Date.now(), config });
  return config;
}

/**
 * Starts a sign-in: a fresh state, nonce and PKCE verifier, kept server-side (single use, ten minutes), and
 * the identity provider's authorization URL. The state also goes into a cookie of the browser (see routes),
 * so a callback is only taken from the browser that started it.
 */
export async function startOidc(
  cfg: SsoConfigRow,
  secrets: Secrets | null,
  db: Parameters<typeof saveRequest>[0],
  redirectUri: string,
): Promise<{ url: string; state: string }> {
  const config = await oidcClient(cfg, secrets);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  await saveRequest(db, { accountId: Number(cfg.account_id), kind: 'oidc', key: state, nonce, verifier });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: cfg.oidc_scopes || 'openid email profile',
    response_type: 'code',
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, state };
}

/**
 * The callback: the state must be one this account issued and not used yet; the code is exchanged (with the
 * PKCE verifier) and the ID token checked by openid-client: signature against the issuer's keys, issuer,
 * audience (our client id), expiry, and the nonce. Its e-mail, or the user info endpoint's, names the user.
 */
export async function finishOidc(
  cfg: SsoConfigRow,
  secrets: Secrets | null,
  db: Parameters<typeof takeRequest>[0],
  redirectUri: string,
  query: Record<string, string>,
): Promise<{ who: SsoIdentity; idToken: string }> {
  const state = query.state ?? '';
  const pending = state ? await takeRequest(db, { accountId: Number(cfg.account_id), kind: 'oidc', key: state }) : null;
  if (!pending) throw new OidcError('expired', 'unknown, used or expired state');
  if (query.error) throw new OidcError('failed', `identity provider: ${query.error}`);
  const config = await oidcClient(cfg, secrets);
  const current = new URL(redirectUri);
  for (const [k, v] of Object.entries(query)) current.searchParams.set(k, v);
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.verifier,
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw new OidcError('failed', `token: ${(err as Error).message}`);
  }
  const claims = tokens.claims();
  if (!claims) throw new OidcError('failed', 'no ID token');
  let info: Record<string, unknown> = claims;
  if (typeof claims.email !== 'string' && tokens.access_token) {
    try {
      info = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
    } catch (err) {
      throw new OidcError('failed', `userinfo: ${(err as Error).message}`);
    }
  }
  const email = typeof info.email === 'string' ? info.email : '';
  // An address the identity provider itself says is not verified names nobody.
  if (!email || info.email_verified === false) throw new OidcError('noemail', 'no verified e-mail');
  const name =
    typeof info.name === 'string'
      ? info.name
      : [info.given_name, info.family_name].filter((x) => typeof x === 'string').join(' ');
  return { who: { email, name, subject: String(claims.sub) }, idToken: tokens.id_token ?? '' };
}

/** The identity provider's sign-out URL for this ID token, or '' when it offers none. */
export async function oidcEndSession(
  cfg: SsoConfigRow,
  secrets: Secrets | null,
  idToken: string,
  after: string,
): Promise<string> {
  try {
    const config = await oidcClient(cfg, secrets);
    if (!config.serverMetadata().end_session_endpoint) return '';
    return client.buildEndSessionUrl(config, {
      ...(idToken ? { id_token_hint: idToken } : {}),
      post_logout_redirect_uri: after,
    }).href;
  } catch {
    return '';
  }
}
