import { timingSafeEqual, X509Certificate } from 'node:crypto';
import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import {
  OkAnswer,
  SSO_STATE_COOKIE,
  SSO_STRINGS,
  SsoAccountIdParams,
  SsoAccountParams,
  SsoConfigAnswer,
  SsoConfigInput,
  SsoLookupAnswer,
  SsoLookupQuery,
  SsoOfferedAnswer,
  SsoSignOutAnswer,
  SsoTestAnswer,
} from '@parley/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { revokeSession } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { AppError, badRequest, notFound } from '../../platform/http/errors.js';
import { recordAudit } from '../audit/index.js';
import { clearSessionCookies, setSessionCookies } from '../auth/index.js';
import type { Secrets } from '../email/index.js';
import {
  type AllowedSsoHost,
  enabledConfig,
  readConfig,
  removeConfig,
  type SsoConfigRow,
  saveConfig,
  toView,
} from './config.js';
import { finishOidc, OidcError, oidcClient, oidcEndSession, startOidc } from './oidc.js';
import { REQUEST_TTL_MS } from './requests.js';
import {
  acsUrl,
  finishSaml,
  SamlError,
  type SamlSpKey,
  samlLogoutUrl,
  sloUrl,
  spEntityId,
  startSaml,
  takeSamlLogout,
} from './saml.js';
import { type SsoError, ssoSignIn } from './signInUser.js';

export interface SsoRouteDeps {
  db: DB;
  secrets: Secrets | null;
  /** PUBLIC_URL: the address the identity provider sends users back to; else the request's own. */
  publicUrl?: string;
  /** SSO_ALLOWED_HOSTS. */
  allowedHosts: readonly AllowedSsoHost[];
  /** SAML_SP_KEY_FILE / SAML_SP_CERT_FILE: signs single-logout messages; null: they go unsigned. */
  samlSp?: SamlSpKey | null;
}

/** Sign-ins under way one account may have at once: a flood of starts cannot fill the table. */
const MAX_PENDING = 1000;

/**
 * Admins set up the account's single sign-on; anyone starts a sign-in by the account's sign-in name; the
 * identity provider sends the browser back to the OIDC callback or the SAML ACS, which open a normal Parley
 * session (the same cookies as a password sign-in) and go to the app.
 */
export function ssoRoutes(app: FastifyInstance, deps: SsoRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, secrets } = deps;
  const samlSp = deps.samlSp ?? null;
  const ok = 'success' as const;
  const tags = ['sso'];
  const base = (req: FastifyRequest) => (deps.publicUrl ?? `${req.protocol}://${req.host}`).replace(/\/$/, '');
  const urls = (req: FastifyRequest, accountId: number, cfg?: SsoConfigRow) => ({
    start: `${base(req)}/api/sso/${cfg?.slug ?? accountId}/start`,
    oidcRedirect: `${base(req)}/api/sso/${accountId}/oidc/callback`,
    samlAcs: acsUrl(accountId, base(req)),
    samlEntityId: cfg ? spEntityId(cfg, base(req)) : `${base(req)}/api/sso/${accountId}/saml/metadata`,
  });
  const client = (req: FastifyRequest) => ({ userAgent: String(req.headers['user-agent'] ?? ''), ip: req.ip });
  const cookieOpts = (req: FastifyRequest) => ({
    path: '/api/sso',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: req.protocol === 'https',
    maxAge: REQUEST_TTL_MS / 1000,
  });

  /** A refused sign-in: audited and logged with its reason, the sign-in page told only what it may show. */
  const refuse = async (req: FastifyRequest, reply: FastifyReply, cfg: SsoConfigRow, code: SsoError, why: string) => {
    req.log.info({ accountId: cfg.account_id, kind: cfg.kind, why }, 'sso: sign-in refused');
    await recordAudit(db, {
      accountId: Number(cfg.account_id),
      actor: cfg.kind,
      action: 'sso.refused',
      detail: { kind: cfg.kind, reason: why.slice(0, 300) },
      ip: req.ip,
    });
    return reply.redirect(`/?sso_error=${code}`, 303);
  };
  const signInAndGo = async (
    req: FastifyRequest,
    reply: FastifyReply,
    cfg: SsoConfigRow,
    who: Parameters<typeof ssoSignIn>[2],
    idToken?: string,
  ) => {
    const s = await ssoSignIn(db, cfg, who, client(req), idToken);
    if (!s.ok) return reply.redirect(`/?sso_error=${s.reason}`, 303);
    setSessionCookies(req, reply, s.token, s.refreshToken);
    return reply.redirect('/', 303);
  };
  /**
   * The SLO URL's answer: a LogoutRequest that checks out ends the NameID's sessions in this account (audited)
   * and the browser goes back to the IdP with the LogoutResponse; one that does not is a 400 and ends nothing
   * (audited as refused). A LogoutResponse to our request leads to the sign-in page.
   */
  const sloAnswer = async (
    req: FastifyRequest,
    reply: FastifyReply,
    cfg: SsoConfigRow,
    m: Parameters<typeof takeSamlLogout>[4],
  ) => {
    try {
      const done = await takeSamlLogout(db, cfg, base(req), samlSp, m);
      if (done.kind === 'response') return reply.redirect('/', 303);
      await recordAudit(db, {
        accountId: Number(cfg.account_id),
        actor: 'saml',
        action: 'sso.logout',
        detail: { kind: 'saml', sessions: done.ended.length },
        ip: req.ip,
      });
      return reply.redirect(done.redirect, 302);
    } catch (err) {
      if (!(err instanceof SamlError)) throw err;
      req.log.info({ accountId: cfg.account_id, why: err.reason }, 'sso: single logout refused');
      await recordAudit(db, {
        accountId: Number(cfg.account_id),
        actor: 'saml',
        action: 'sso.refused',
        detail: { kind: 'saml', reason: err.reason.slice(0, 300) },
        ip: req.ip,
      });
      // A LogoutResponse we cannot check changes nothing (the session ended when the user signed out).
      if ('query' in m && !m.query.SAMLRequest && m.query.SAMLResponse) return reply.redirect('/', 303);
      throw badRequest(SSO_STRINGS.logoutRefused);
    }
  };
  const configOf = async (account: string | number) => {
    const cfg = await enabledConfig(db, String(account));
    if (!cfg) throw notFound(SSO_STRINGS.unknownSlug);
    return cfg;
  };

  r.get(
    '/api/sso/config',
    { config: { auth: 'admin' }, schema: { tags, response: { 200: SsoConfigAnswer } } },
    async (req) => {
      const cfg = await readConfig(db, req.auth!.accountId);
      return { result: ok, data: cfg ? toView(cfg) : null, urls: urls(req, req.auth!.accountId, cfg) };
    },
  );
  r.put(
    '/api/sso/config',
    { config: { auth: 'admin' }, schema: { tags, body: SsoConfigInput, response: { 200: SsoConfigAnswer } } },
    async (req) => {
      const data = await saveConfig(deps, { ...req.auth!, ip: req.ip }, req.body);
      const cfg = await readConfig(db, req.auth!.accountId);
      return { result: ok, data, urls: urls(req, req.auth!.accountId, cfg) };
    },
  );
  r.delete(
    '/api/sso/config',
    { config: { auth: 'admin' }, schema: { tags, response: { 200: OkAnswer } } },
    async (req) => {
      await removeConfig(db, { ...req.auth!, ip: req.ip });
      return { result: ok };
    },
  );
  r.post(
    '/api/sso/config/test',
    { config: { auth: 'admin' }, schema: { tags, response: { 200: SsoTestAnswer } } },
    async (req) => {
      const cfg = await readConfig(db, req.auth!.accountId);
      if (!cfg) throw notFound(SSO_STRINGS.notConfigured);
      if (cfg.kind === 'oidc') {
        try {
          const c = await oidcClient(cfg, secrets);
          return { result: ok, ok: true, detail: `${SSO_STRINGS.testOk} ${c.serverMetadata().issuer}` };
        } catch (err) {
          const why = err instanceof OidcError ? err.reason : (err as Error).message;
          return { result: ok, ok: false, detail: `${SSO_STRINGS.unreachable} ${why}`.slice(0, 500) };
        }
      }
      const certs = JSON.parse(cfg.saml_certs) as string[];
      const until = certs.map((c) => new X509Certificate(Buffer.from(c, 'base64')).validTo);
      const expired = until.every((d) => new Date(d).getTime() < Date.now());
      return {
        result: ok,
        ok: !expired,
        detail: expired
          ? `The IdP signing certificate expired on ${until.join(', ')}.`
          : `Sign-in goes to ${cfg.saml_entry_point}; the IdP certificate is valid until ${until.join(', ')}.`,
      };
    },
  );

  // The sign-in page offers "Sign in with SSO" only when some account has it on.
  r.get(
    '/api/sso/offered',
    { config: { auth: 'public' }, schema: { tags, response: { 200: SsoOfferedAnswer } } },
    async () => {
      const any = await db.selectFrom('sso_configs').select('id').where('enabled', '=', 1).limit(1).executeTakeFirst();
      return { offered: !!any };
    },
  );
  r.get(
    '/api/sso/lookup',
    { config: { auth: 'public' }, schema: { tags, querystring: SsoLookupQuery, response: { 200: SsoLookupAnswer } } },
    async (req) => {
      const cfg = await configOf(req.query.name);
      return { result: ok, start: `/api/sso/${cfg.slug}/start` };
    },
  );
  r.get(
    '/api/sso/:account/start',
    { config: { auth: 'public' }, schema: { tags, params: SsoAccountParams } },
    async (req, reply) => {
      const cfg = await configOf(req.params.account);
      const pending = await db
        .selectFrom('sso_requests')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', cfg.account_id)
        .where('expires_at', '>', Date.now())
        .executeTakeFirstOrThrow();
      if (Number(pending.n) >= MAX_PENDING)
        throw new AppError(429, 'TOO_MANY_REQUESTS', 'Too many sign-ins at once. Try again in a few minutes.');
      if (cfg.kind === 'saml') return reply.redirect(await startSaml(db, cfg, base(req)), 302);
      try {
        const { url, state } = await startOidc(cfg, secrets, db, urls(req, Number(cfg.account_id)).oidcRedirect);
        reply.setCookie(SSO_STATE_COOKIE, state, cookieOpts(req));
        return reply.redirect(url, 302);
      } catch (err) {
        if (err instanceof OidcError) return refuse(req, reply, cfg, err.code, err.reason);
        throw err;
      }
    },
  );
  r.get(
    '/api/sso/:account/oidc/callback',
    {
      config: { auth: 'public' },
      schema: { tags, params: SsoAccountIdParams, querystring: z.record(z.string(), z.string().max(4000)) },
    },
    async (req, reply) => {
      const cfg = await configOf(req.params.account);
      if (cfg.kind !== 'oidc') throw notFound(SSO_STRINGS.unknownSlug);
      const state = req.query.state ?? '';
      const cookie = req.cookies[SSO_STATE_COOKIE] ?? '';
      reply.clearCookie(SSO_STATE_COOKIE, { path: '/api/sso' });
      // The state in the URL must be the one this browser was given: a sign-in started elsewhere (login CSRF)
      // is refused.
      if (!state || cookie.length !== state.length || !timingSafeEqual(Buffer.from(cookie), Buffer.from(state)))
        return refuse(req, reply, cfg, 'expired', 'state does not match this browser');
      try {
        const { who, idToken } = await finishOidc(
          cfg,
          secrets,
          db,
          urls(req, Number(cfg.account_id)).oidcRedirect,
          req.query,
        );
        return signInAndGo(req, reply, cfg, who, idToken);
      } catch (err) {
        if (err instanceof OidcError) return refuse(req, reply, cfg, err.code, err.reason);
        throw err;
      }
    },
  );
  app.register(async (child) => {
    // The identity provider's page posts a form (HTTP-POST binding).
    child.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    child.withTypeProvider<ZodTypeProvider>().post(
      '/api/sso/:account/saml/acs',
      {
        config: { auth: 'public' },
        bodyLimit: 1_048_576,
        schema: {
          tags,
          params: SsoAccountIdParams,
          body: z.object({ SAMLResponse: z.string().max(1_000_000), RelayState: z.string().max(1000).optional() }),
        },
      },
      async (req, reply) => {
        const cfg = await configOf(req.params.account);
        if (cfg.kind !== 'saml') throw notFound(SSO_STRINGS.unknownSlug);
        try {
          const who = await finishSaml(db, cfg, base(req), req.body);
          return signInAndGo(req, reply, cfg, who);
        } catch (err) {
          if (err instanceof SamlError) return refuse(req, reply, cfg, err.code, err.reason);
          throw err;
        }
      },
    );
    // Single logout over HTTP-POST: the IdP's LogoutRequest (with an XML signature), or its LogoutResponse.
    child.withTypeProvider<ZodTypeProvider>().post(
      '/api/sso/:account/saml/slo',
      {
        config: { auth: 'public' },
        bodyLimit: 1_048_576,
        schema: {
          tags,
          params: SsoAccountIdParams,
          body: z.object({
            SAMLRequest: z.string().max(1_000_000).optional(),
            SAMLResponse: z.string().max(1_000_000).optional(),
            RelayState: z.string().max(1000).optional(),
          }),
        },
      },
      async (req, reply) => {
        const cfg = await configOf(req.params.account);
        if (cfg.kind !== 'saml') throw notFound(SSO_STRINGS.unknownSlug);
        const body = Object.fromEntries(
          Object.entries(req.body).filter((e): e is [string, string] => typeof e[1] === 'string'),
        );
        return sloAnswer(req, reply, cfg, { binding: 'post', body });
      },
    );
  });
  // Single logout over HTTP-Redirect: the IdP's LogoutRequest (signed in the query), or its LogoutResponse to
  // ours.
  r.get(
    '/api/sso/:account/saml/slo',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        params: SsoAccountIdParams,
        querystring: z.object({
          SAMLRequest: z.string().max(100_000).optional(),
          SAMLResponse: z.string().max(100_000).optional(),
          RelayState: z.string().max(1000).optional(),
          SigAlg: z.string().max(200).optional(),
          Signature: z.string().max(2000).optional(),
        }),
      },
    },
    async (req, reply) => {
      const cfg = await configOf(req.params.account);
      if (cfg.kind !== 'saml') throw notFound(SSO_STRINGS.unknownSlug);
      const rawQuery = req.raw.url?.split('?')[1] ?? '';
      const query = Object.fromEntries(
        Object.entries(req.query).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      return sloAnswer(req, reply, cfg, { binding: 'redirect', query, rawQuery });
    },
  );
  r.get(
    '/api/sso/:account/saml/metadata',
    { config: { auth: 'public' }, schema: { tags, params: SsoAccountIdParams } },
    async (req, reply) => {
      const cfg = await readConfig(db, req.params.account);
      if (!cfg || cfg.kind !== 'saml') throw notFound(SSO_STRINGS.unknownSlug);
      const xml = generateServiceProviderMetadata({
        issuer: spEntityId(cfg, base(req)),
        callbackUrl: acsUrl(Number(cfg.account_id), base(req)),
        logoutCallbackUrl: sloUrl(Number(cfg.account_id), base(req)),
        identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        wantAssertionsSigned: true,
        // With the installation's key: its certificate, and AuthnRequestsSigned (node-saml signs them too).
        ...(samlSp ? { privateKey: samlSp.key, publicCerts: samlSp.cert } : {}),
      });
      return reply.type('application/samlmetadata+xml').send(xml);
    },
  );

  // Sign-out of a session opened through single sign-on: the Parley session ends; the answer also names where
  // the web app goes next: the OpenID provider's end-session URL, or the SAML IdP's SLO URL with a
  // LogoutRequest.
  r.post(
    '/api/sso/signout',
    { config: { auth: 'user', tfaSetup: true }, schema: { tags, response: { 200: SsoSignOutAnswer } } },
    async (req, reply) => {
      const auth = req.auth!;
      const link = auth.sessionId
        ? await db
            .selectFrom('sso_sessions')
            .select(['kind', 'id_token', 'name_id', 'name_id_format', 'session_index'])
            .where('account_id', '=', auth.accountId)
            .where('session_id', '=', auth.sessionId)
            .executeTakeFirst()
        : undefined;
      await revokeSession(db, auth);
      clearSessionCookies(reply);
      if (!link) return { result: ok, redirect: '' };
      const cfg = await readConfig(db, auth.accountId);
      if (!cfg || cfg.kind !== link.kind) return { result: ok, redirect: '' };
      if (cfg.kind === 'saml') return { result: ok, redirect: await samlLogoutUrl(db, cfg, base(req), samlSp, link) };
      return { result: ok, redirect: await oidcEndSession(cfg, secrets, link.id_token, `${base(req)}/`) };
    },
  );
}
