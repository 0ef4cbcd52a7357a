import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SSO_STATE_COOKIE, SSO_STRINGS } from '@parley/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { type OidcFault, startOidcIdp } from '../../testing/oidcIdp.js';
import {
  type LogoutFault,
  readAuthnRequest,
  rsaCertificate,
  type SamlFault,
  startSamlIdp,
} from '../../testing/samlIdp.js';
import { dialects, startTestServer, tempDir } from '../../testing/support.js';

/** One step of a browser following redirects by hand: status, where to, and the cookies set. */
interface Hop {
  status: number;
  location: string;
  cookies: Record<string, string>;
  text: string;
}

async function hop(url: string, o: { cookies?: Record<string, string>; form?: Record<string, string> } = {}) {
  const headers: Record<string, string> = {};
  if (o.cookies && Object.keys(o.cookies).length)
    headers.cookie = Object.entries(o.cookies)
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
  if (o.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(url, {
    method: o.form ? 'POST' : 'GET',
    headers,
    body: o.form ? new URLSearchParams(o.form).toString() : undefined,
    redirect: 'manual',
  });
  const cookies: Record<string, string> = {};
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const i = pair!.indexOf('=');
    cookies[pair!.slice(0, i)] = pair!.slice(i + 1);
  }
  return { status: res.status, location: res.headers.get('location') ?? '', cookies, text: await res.text() } as Hop;
}

describe.each(dialects)('single sign-on (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let oidc: Awaited<ReturnType<typeof startOidcIdp>>;
  let saml: Awaited<ReturnType<typeof startSamlIdp>>;
  let call: Call;
  /** A: OpenID Connect. B and C: SAML, both trusting the same identity provider. */
  let a: SignedUp;
  let b: SignedUp;
  let c: SignedUp;
  let slugA: string;
  let slugB: string;
  let deptA: number;
  const db = () => s.handle.db;

  const usersWithEmail = async (email: string) =>
    db()
      .selectFrom('users')
      .select(['id', 'account_id', 'type', 'departments', 'username'])
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .execute();
  const sessionsOf = async (accountId: number) =>
    Number(
      (
        await db()
          .selectFrom('sessions')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const saveConfig = (token: string, body: Record<string, unknown>) => call('PUT', '/api/sso/config', { token, body });
  const oidcConfig = (slug: string, extra: Record<string, unknown> = {}) => ({
    kind: 'oidc',
    enabled: true,
    slug,
    jitType: 'supervisor',
    jitDepartmentId: deptA,
    oidc: {
      issuer: oidc.issuer,
      clientId: 'parley-test',
      clientSecret: 'client secret 1',
      scopes: 'openid email profile',
    },
    ...extra,
  });

  /** Start -> the provider -> the callback, as a browser would; the callback's answer. */
  async function oidcSignIn(fault: OidcFault = 'none', slug = slugA): Promise<Hop & { start: Hop }> {
    oidc.state.fault = fault;
    const start = await hop(`${s.url}/api/sso/${slug}/start`);
    expect(start.status, start.text).toBe(302);
    const atIdp = await hop(start.location);
    expect(atIdp.status, atIdp.text).toBe(302);
    const back = await hop(atIdp.location, { cookies: { [SSO_STATE_COOKIE]: start.cookies[SSO_STATE_COOKIE]! } });
    oidc.state.fault = 'none';
    return { ...back, start };
  }

  /** Start at an account -> its AuthnRequest -> a response from the IdP (maybe faulty) posted to `acsOf`. */
  async function samlSignIn(fault: SamlFault = 'none', slug = slugB, acsAccount?: number) {
    const start = await hop(`${s.url}/api/sso/${slug}/start`);
    expect(start.status, start.text).toBe(302);
    expect(start.location.startsWith(`${saml.url}/sso?`)).toBe(true);
    const req = readAuthnRequest(start.location);
    const SAMLResponse = saml.response({ inResponseTo: req.id, acs: req.acs, audience: req.issuer, fault });
    const acs = acsAccount ? `${s.url}/api/sso/${acsAccount}/saml/acs` : req.acs;
    const back = await hop(acs, { form: { SAMLResponse } });
    return { ...back, SAMLResponse, acs };
  }
  const lastRefusal = async () =>
    (
      await db()
        .selectFrom('audit_log')
        .select('detail')
        .where('action', '=', 'sso.refused')
        .orderBy('id', 'desc')
        .executeTakeFirst()
    )?.detail ?? '';
  const signedIn = async (h: Hop) => {
    expect(h.status, h.text).toBe(303);
    expect(h.location, await lastRefusal()).toBe('/');
    const token = h.cookies.parley_token!;
    expect(token).toBeTruthy();
    const check = await call('POST', '/api/auth/check', { token });
    expect(check.body.result, check.text).toBe('success');
    return { token, check: check.body };
  };

  beforeAll(async () => {
    oidc = await startOidcIdp({ clientId: 'parley-test', clientSecret: 'client secret 1' });
    saml = await startSamlIdp();
    // The installation's SAML signing key (single logout), and the IdP told its certificate.
    const sp = rsaCertificate('Parley SP');
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'sp.key'), sp.key);
    fs.writeFileSync(path.join(dir, 'sp.crt'), sp.cert);
    saml.state.spCert = sp.cert;
    s = await startTestServer(dialect, {
      SSO_ALLOWED_HOSTS: `${oidc.host},${saml.host}`,
      SECRETS_KEY: crypto.randomBytes(32).toString('base64'),
      SAML_SP_KEY_FILE: path.join(dir, 'sp.key'),
      SAML_SP_CERT_FILE: path.join(dir, 'sp.crt'),
    });
    call = apiClient(s.url);
    [a, b, c] = [await signUpVia(call), await signUpVia(call), await signUpVia(call)];
    const d = await call('POST', '/api/departments', { token: a.token, body: { name: 'SSO support' } });
    expect(d.status, d.text).toBe(200);
    deptA = d.body.data.id;
    slugA = `acme-${uniq()}`;
    slugB = `beta-${uniq()}`;
    const ra = await saveConfig(a.token, oidcConfig(slugA));
    expect(ra.status, ra.text).toBe(200);
    const rb = await saveConfig(b.token, {
      kind: 'saml',
      enabled: true,
      slug: slugB,
      jitType: 'agent',
      saml: { metadataXml: saml.metadata() },
    });
    expect(rb.status, rb.text).toBe(200);
    const rc = await saveConfig(c.token, {
      kind: 'saml',
      enabled: true,
      slug: `gamma-${uniq()}`,
      saml: { metadataXml: saml.metadata() },
    });
    expect(rc.status, rc.text).toBe(200);
  });
  afterAll(async () => {
    await s?.stop();
    await oidc?.close();
    await saml?.close();
  });
  beforeEach(() => {
    oidc.state.fault = 'none';
  });

  it('SSO the settings answer the config without the client secret, and the addresses to give the IdP', async () => {
    const r = await call('GET', '/api/sso/config', { token: a.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      kind: 'oidc',
      enabled: true,
      slug: slugA,
      jitType: 'supervisor',
      oidc: { issuer: oidc.issuer, clientId: 'parley-test', hasClientSecret: true, scopes: 'openid email profile' },
    });
    expect(r.text).not.toContain('client secret 1');
    expect(r.body.urls.oidcRedirect).toBe(`${s.url}/api/sso/${a.accountId}/oidc/callback`);
    const row = await db()
      .selectFrom('sso_configs')
      .selectAll()
      .where('account_id', '=', a.accountId)
      .executeTakeFirst();
    expect(row!.oidc_client_secret.startsWith('v1.')).toBe(true);
    expect(JSON.stringify(row)).not.toContain('client secret 1');
    // Saved again without a secret: the saved one stays.
    const again = await saveConfig(a.token, {
      ...oidcConfig(slugA),
      oidc: { issuer: oidc.issuer, clientId: 'parley-test' },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.oidc.hasClientSecret).toBe(true);
    const test = await call('POST', '/api/sso/config/test', { token: a.token });
    expect(test.body).toMatchObject({ ok: true });
    expect(test.body.detail).toContain(oidc.issuer);
    // Agents do not see or change it.
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    expect((await call('GET', '/api/sso/config', { token: agent.token })).status).toBe(403);
    expect((await saveConfig(agent.token, oidcConfig(slugA))).status).toBe(403);
  });

  it('SSO the sign-in page finds an account by its sign-in name; an unknown or switched-off one is not offered', async () => {
    expect((await call('GET', '/api/sso/offered')).body).toEqual({ offered: true });
    const found = await call('GET', `/api/sso/lookup?name=${slugA.toUpperCase()}`);
    expect(found.status, found.text).toBe(200);
    expect(found.body.start).toBe(`/api/sso/${slugA}/start`);
    const unknown = await call('GET', '/api/sso/lookup?name=nobody-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.description).toBe(SSO_STRINGS.unknownSlug);
    expect((await hop(`${s.url}/api/sso/nobody-here/start`)).status).toBe(404);
  });

  it('SSO OIDC: code flow with PKCE, state and nonce opens a Parley session; the first sign-in creates the user (JIT) with the chosen role and department, the second reuses it', async () => {
    const email = `ann-${uniq()}@idp.example`;
    oidc.state.user = { sub: `sub-${uniq()}`, email, name: 'Ann Idp' };
    const first = await oidcSignIn();
    // The authorization request carried PKCE (S256), state and nonce.
    const authz = new URL(first.start.location);
    expect(authz.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authz.searchParams.get('state')).toBeTruthy();
    expect(authz.searchParams.get('nonce')).toBeTruthy();
    expect(authz.searchParams.get('redirect_uri')).toBe(`${s.url}/api/sso/${a.accountId}/oidc/callback`);
    const one = await signedIn(first);
    expect(one.check.accountId).toBe(a.accountId);
    const users = await usersWithEmail(email);
    expect(users).toHaveLength(1);
    expect(Number(users[0]!.account_id)).toBe(a.accountId);
    expect(users[0]!.type).toBe('supervisor');
    expect(JSON.parse(users[0]!.departments)).toEqual([deptA]);
    // The e-mail came from user info (the ID token has none).
    expect(oidc.state.seen).toContain('/userinfo');
    const second = await signedIn(await oidcSignIn());
    expect(second.check.userId).toBe(one.check.userId);
    expect(await usersWithEmail(email)).toHaveLength(1);
    // An existing user of the account (same address, any case) is signed in, not duplicated.
    const known = await addUserVia(call, a.token, {
      username: `known-${uniq()}`,
      type: 'agent',
      email: `Known-${uniq()}@IDP.example`,
    });
    const row = await db().selectFrom('users').select('email').where('id', '=', known.id).executeTakeFirstOrThrow();
    oidc.state.user = { sub: `sub-${uniq()}`, email: row.email.toLowerCase(), name: 'Known' };
    const k = await signedIn(await oidcSignIn());
    expect(k.check.userId).toBe(known.id);
  });

  it.each([
    ['wrongAudience'],
    ['expired'],
    ['badNonce'],
    ['forgedSignature'],
    ['wrongIssuer'],
  ] as const)('SSO OIDC: an ID token with %s is refused and nothing is created', async (fault) => {
    const email = `bad-${fault}-${uniq()}@idp.example`;
    oidc.state.user = { sub: `sub-${uniq()}`, email, name: 'Bad' };
    const sessions = await sessionsOf(a.accountId);
    const r = await oidcSignIn(fault);
    expect(r.status).toBe(303);
    expect(r.location).toBe('/?sso_error=failed');
    expect(r.cookies.parley_token ?? '').toBe('');
    expect(await usersWithEmail(email)).toHaveLength(0);
    expect(await sessionsOf(a.accountId)).toBe(sessions);
    const audit = await db()
      .selectFrom('audit_log')
      .select('detail')
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'sso.refused')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit.detail).toContain('token');
  });

  it('SSO OIDC: a bad state, a state from another browser, a used state and another account are refused; nothing created', async () => {
    const email = `state-${uniq()}@idp.example`;
    oidc.state.user = { sub: `sub-${uniq()}`, email, name: 'State' };
    const start = await hop(`${s.url}/api/sso/${slugA}/start`);
    const atIdp = await hop(start.location);
    const cb = new URL(atIdp.location);
    const cookie = { [SSO_STATE_COOKIE]: start.cookies[SSO_STATE_COOKIE]! };
    // No cookie: a sign-in started in another browser (login CSRF).
    expect((await hop(cb.href)).location).toBe('/?sso_error=expired');
    // A state that was never issued.
    const forged = new URL(cb.href);
    forged.searchParams.set('state', 'made-up-state');
    expect((await hop(forged.href, { cookies: { [SSO_STATE_COOKIE]: 'made-up-state' } })).location).toBe(
      '/?sso_error=expired',
    );
    // Another account's callback does not know A's state.
    const other = new URL(cb.href.replace(`/api/sso/${a.accountId}/`, `/api/sso/${b.accountId}/`));
    expect((await hop(other.href, { cookies: cookie })).status).toBe(404);
    // The real one works once.
    await signedIn(await hop(cb.href, { cookies: cookie }));
    const replay = await hop(cb.href, { cookies: cookie });
    expect(replay.location).toBe('/?sso_error=expired');
    expect(await usersWithEmail(email)).toHaveLength(1);
  });

  it('SSO OIDC: an IdP that says the e-mail is not verified names nobody', async () => {
    const email = `unverified-${uniq()}@idp.example`;
    oidc.state.user = { sub: `sub-${uniq()}`, email, name: 'U', email_verified: false };
    const r = await oidcSignIn();
    expect(r.location).toBe('/?sso_error=noemail');
    expect(await usersWithEmail(email)).toHaveLength(0);
  });

  it('SSO OIDC sign-out ends the Parley session and sends the browser to the end-session endpoint', async () => {
    oidc.state.user = { sub: `sub-${uniq()}`, email: `out-${uniq()}@idp.example`, name: 'Out' };
    const { token } = await signedIn(await oidcSignIn());
    const out = await call('POST', '/api/sso/signout', { token });
    expect(out.status, out.text).toBe(200);
    const end = new URL(out.body.redirect);
    expect(`${end.origin}${end.pathname}`).toBe(`${oidc.issuer}/logout`);
    expect(end.searchParams.get('id_token_hint')).toBeTruthy();
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${s.url}/`);
    const check = await call('POST', '/api/auth/check', { token });
    expect(check.body.result).toBe('failed');
    // A password session signs out with nothing more to do.
    const pw = await signInVia(call, a.username, a.password);
    const plain = await call('POST', '/api/sso/signout', { token: pw.body.token });
    expect(plain.body).toEqual({ result: 'success', redirect: '' });
  });

  it('SSO SAML: a signed response opens a session; JIT creates the user once; the SP metadata names the ACS', async () => {
    const email = `bob-${uniq()}@idp.example`;
    saml.state.user = { nameId: email, email, name: 'Bob Saml' };
    const r = await samlSignIn();
    const one = await signedIn(r);
    expect(one.check.accountId).toBe(b.accountId);
    const users = await usersWithEmail(email);
    expect(users).toHaveLength(1);
    expect(users[0]!.type).toBe('agent');
    expect(Number(users[0]!.account_id)).toBe(b.accountId);
    const again = await signedIn(await samlSignIn());
    expect(again.check.userId).toBe(one.check.userId);
    const md = await hop(`${s.url}/api/sso/${b.accountId}/saml/metadata`);
    expect(md.status).toBe(200);
    expect(md.text).toContain(`Location="${s.url}/api/sso/${b.accountId}/saml/acs"`);
  });

  it.each([
    ['forged'],
    ['tampered'],
    ['unsigned'],
    ['expired'],
    ['wrongAudience'],
  ] as const)('SSO SAML: a %s response is refused and nothing is created', async (fault) => {
    const email = `saml-${fault}-${uniq()}@idp.example`;
    saml.state.user = { nameId: email, email, name: 'Bad' };
    const sessions = await sessionsOf(b.accountId);
    const r = await samlSignIn(fault);
    expect(r.status, r.text).toBe(303);
    expect(r.location).toBe('/?sso_error=failed');
    expect(r.cookies.parley_token ?? '').toBe('');
    expect(await usersWithEmail(email)).toHaveLength(0);
    expect(await usersWithEmail('mallory@idp.example')).toHaveLength(0);
    expect(await sessionsOf(b.accountId)).toBe(sessions);
  });

  it('SSO SAML: a replayed response is refused; one session only', async () => {
    const email = `replay-${uniq()}@idp.example`;
    saml.state.user = { nameId: email, email, name: 'Replay' };
    const r = await samlSignIn();
    await signedIn(r);
    const sessions = await sessionsOf(b.accountId);
    const again = await hop(r.acs, { form: { SAMLResponse: r.SAMLResponse } });
    expect(again.status).toBe(303);
    expect(again.location).toBe('/?sso_error=expired');
    expect(await sessionsOf(b.accountId)).toBe(sessions);
    expect(await usersWithEmail(email)).toHaveLength(1);
  });

  it("SSO another account's config never signs anyone into this account, even with the same IdP", async () => {
    const email = `cross-${uniq()}@idp.example`;
    saml.state.user = { nameId: email, email, name: 'Cross' };
    // Started at B, its response posted to C's ACS (C trusts the same IdP certificate).
    const r = await samlSignIn('none', slugB, c.accountId);
    expect(r.status, r.text).toBe(303);
    expect(r.location).toMatch(/^\/\?sso_error=/);
    expect(await usersWithEmail(email)).toHaveLength(0);
    // Posted to A (OpenID Connect): there is no SAML there at all.
    const toA = await hop(`${s.url}/api/sso/${a.accountId}/saml/acs`, { form: { SAMLResponse: r.SAMLResponse } });
    expect(toA.status).toBe(404);
    expect(await usersWithEmail(email)).toHaveLength(0);
    // A user with this address in A is never touched by B's sign-in.
    const inA = await addUserVia(call, a.token, { username: `ina-${uniq()}`, type: 'agent', email });
    const inB = await signedIn(await samlSignIn());
    expect(inB.check.accountId).toBe(b.accountId);
    expect(inB.check.userId).not.toBe(inA.id);
    expect((await usersWithEmail(email)).map((u) => Number(u.account_id)).sort()).toEqual(
      [a.accountId, b.accountId].sort(),
    );
  });

  const live = async (token: string) => (await call('POST', '/api/auth/check', { token })).body.result === 'success';

  it('SSO SAML single logout (SP-initiated): sign-out ends the Parley session and sends a signed LogoutRequest for the session to the IdP; its signed LogoutResponse leads to the sign-in page', async () => {
    const email = `slo-${uniq()}@idp.example`;
    saml.state.user = { nameId: email, email, name: 'Slo Sp' };
    const { token } = await signedIn(await samlSignIn());
    const link = await db()
      .selectFrom('sso_sessions')
      .select(['name_id', 'session_index'])
      .where('account_id', '=', b.accountId)
      .where('name_id', '=', email)
      .executeTakeFirstOrThrow();
    expect(link.session_index).toMatch(/^_a/);
    const out = await call('POST', '/api/sso/signout', { token });
    expect(out.status, out.text).toBe(200);
    expect(out.body.redirect.startsWith(`${saml.url}/slo?SAMLRequest=`)).toBe(true);
    expect(await live(token)).toBe(false);
    const atIdp = await hop(out.body.redirect);
    expect(atIdp.status).toBe(302);
    const got = saml.state.logoutRequests.at(-1)!;
    expect(got).toMatchObject({
      nameId: email,
      sessionIndex: link.session_index,
      issuer: `${s.url}/api/sso/${b.accountId}/saml/metadata`,
      destination: `${saml.url}/slo`,
      signed: true,
      signatureValid: true,
    });
    expect(atIdp.location.startsWith(`${s.url}/api/sso/${b.accountId}/saml/slo?SAMLResponse=`)).toBe(true);
    const back = await hop(atIdp.location);
    expect(back.status, back.text).toBe(303);
    expect(back.location).toBe('/');
    // The SP metadata names the SLO URL and the signing certificate.
    const md = await hop(`${s.url}/api/sso/${b.accountId}/saml/metadata`);
    expect(md.text).toContain(`Location="${s.url}/api/sso/${b.accountId}/saml/slo"`);
    expect(md.text).toContain('<ds:X509Certificate>');
  });

  it("SSO SAML single logout (IdP-initiated): a signed LogoutRequest ends that user's sessions in this account only and answers a signed LogoutResponse; unsigned, forged, tampered or sent elsewhere: refused, nothing ended", async () => {
    const email = `idp-slo-${uniq()}@idp.example`;
    const other = `idp-other-${uniq()}@idp.example`;
    saml.state.user = { nameId: email, email, name: 'Slo Idp' };
    const [b1, b2] = [(await signedIn(await samlSignIn())).token, (await signedIn(await samlSignIn())).token];
    // The same person in C, which trusts the same IdP, and someone else in B.
    const cSlug = (
      await db()
        .selectFrom('sso_configs')
        .select('slug')
        .where('account_id', '=', c.accountId)
        .executeTakeFirstOrThrow()
    ).slug;
    const inC = (await signedIn(await samlSignIn('none', cSlug))).token;
    saml.state.user = { nameId: other, email: other, name: 'Other' };
    const bOther = (await signedIn(await samlSignIn())).token;
    const slo = (accountId: number) => `${s.url}/api/sso/${accountId}/saml/slo`;
    const all = [b1, b2, inC, bOther];
    const allLive = async () => {
      for (const t of all) expect(await live(t)).toBe(true);
    };
    const refusals = async () =>
      (await db().selectFrom('audit_log').select('id').where('action', '=', 'sso.refused').execute()).length;

    for (const fault of ['unsigned', 'forged', 'tampered'] as LogoutFault[]) {
      const before = await refusals();
      const r = await hop(saml.logoutRequest({ destination: slo(b.accountId), nameId: email, fault }).url);
      expect(r.status, `${fault} redirect: ${r.text}`).toBe(400);
      expect(JSON.parse(r.text).description).toBe(SSO_STRINGS.logoutRefused);
      const p = saml.logoutRequest({ destination: slo(b.accountId), nameId: email, fault, binding: 'post' });
      const rp = await hop(p.url, { form: { SAMLRequest: p.SAMLRequest } });
      expect(rp.status, `${fault} post: ${rp.text}`).toBe(400);
      expect(await refusals()).toBe(before + 2);
      await allLive();
    }
    // Sent to an account without SAML (A uses OpenID Connect): nothing there to end.
    const toA = await hop(saml.logoutRequest({ destination: slo(a.accountId), nameId: email }).url);
    expect(toA.status).toBe(404);
    await allLive();

    const good = saml.logoutRequest({ destination: slo(b.accountId), nameId: email, relayState: 'back-to-idp' });
    const r = await hop(good.url);
    expect(r.status, r.text).toBe(302);
    const answer = saml.readLogoutResponse(r.location);
    expect(r.location.startsWith(`${saml.url}/slo?`)).toBe(true);
    expect(answer).toMatchObject({
      inResponseTo: good.id,
      status: 'urn:oasis:names:tc:SAML:2.0:status:Success',
      signed: true,
    });
    expect(new URL(r.location).searchParams.get('RelayState')).toBe('back-to-idp');
    expect(await live(b1)).toBe(false);
    expect(await live(b2)).toBe(false);
    // C's session of the same person, and B's other user, stay.
    expect(await live(inC)).toBe(true);
    expect(await live(bOther)).toBe(true);

    // HTTP-POST binding, with a SessionIndex: only that session ends.
    const sessionIndex = (
      await db()
        .selectFrom('sso_sessions')
        .select('session_index')
        .where('account_id', '=', b.accountId)
        .where('name_id', '=', other)
        .executeTakeFirstOrThrow()
    ).session_index;
    const p = saml.logoutRequest({ destination: slo(b.accountId), nameId: other, sessionIndex, binding: 'post' });
    const rp = await hop(p.url, { form: { SAMLRequest: p.SAMLRequest } });
    expect(rp.status, rp.text).toBe(302);
    expect(saml.readLogoutResponse(rp.location).inResponseTo).toBe(p.id);
    expect(await live(bOther)).toBe(false);
    expect(await live(inC)).toBe(true);
  });

  it('SSO "SSO only": password sign-in is refused with a clear message, except for the account owner', async () => {
    const agent = await addUserVia(call, b.token, { username: `pw-${uniq()}`, type: 'agent' });
    const cfg = (await call('GET', '/api/sso/config', { token: b.token })).body.data;
    const on = await saveConfig(b.token, {
      ...cfg,
      ssoOnly: true,
      saml: { metadataXml: saml.metadata() },
    });
    expect(on.status, on.text).toBe(200);
    const refused = await signInVia(call, agent.username, agent.password);
    expect(refused.status).toBe(401);
    expect(refused.body.description).toBe(SSO_STRINGS.ssoOnlyRefused);
    // A wrong password still says only that.
    expect((await signInVia(call, agent.username, 'wrong password 1')).body.description).toBe(
      'Invalid username or password.',
    );
    // Break-glass: the owner (first admin) keeps the password.
    expect((await signInVia(call, b.username, b.password)).status).toBe(200);
    // Other accounts are not affected.
    expect((await signInVia(call, a.username, a.password)).status).toBe(200);
    // Saved again with only the sign-in URL: the IdP's certificate stays, and SAML still signs in.
    const off = await saveConfig(b.token, { ...cfg, ssoOnly: false, saml: { entryPoint: cfg.saml.entryPoint } });
    expect(off.status, off.text).toBe(200);
    expect(off.body.data.saml.certificates).toBe(1);
    expect((await signInVia(call, agent.username, agent.password)).status).toBe(200);
    saml.state.user = { nameId: `kept-${uniq()}@idp.example`, email: `kept-${uniq()}@idp.example`, name: 'Kept' };
    await signedIn(await samlSignIn());
  });

  it("SSO bad input: metadata that is not XML, an issuer that is not a URL, a taken sign-in name, another account's department: clear 4xx, nothing saved", async () => {
    const before = await db().selectFrom('sso_configs').selectAll().orderBy('id').execute();
    const samlInput = (metadataXml: string) => ({ kind: 'saml', enabled: true, slug: slugB, saml: { metadataXml } });
    const cases: [SignedUp, Record<string, unknown>, number, string][] = [
      [b, samlInput('this is not xml'), 400, SSO_STRINGS.metadataNotXml],
      [b, samlInput('{"entityID": "json"}'), 400, SSO_STRINGS.metadataNotXml],
      [b, samlInput('<html><body>Sign in</body></html>'), 400, SSO_STRINGS.metadataNotIdp],
      [
        b,
        samlInput(saml.metadata().replace(/<ds:X509Certificate>[^<]+</, '<ds:X509Certificate>bm90IGEgY2VydA==<')),
        400,
        SSO_STRINGS.badCertificate,
      ],
      [
        b,
        samlInput(saml.metadata().replace(/<md:KeyDescriptor.*<\/md:KeyDescriptor>/, '')),
        400,
        SSO_STRINGS.metadataNoCert,
      ],
      [b, { kind: 'saml', enabled: true, slug: slugB, saml: {} }, 400, SSO_STRINGS.samlNeedsIdp],
      [
        a,
        oidcConfig(slugA, { oidc: { issuer: 'not a url', clientId: 'x', clientSecret: 'y' } }),
        400,
        SSO_STRINGS.badIssuer,
      ],
      [
        a,
        oidcConfig(slugA, { oidc: { issuer: 'http://idp.example.com', clientId: 'x', clientSecret: 'y' } }),
        400,
        SSO_STRINGS.issuerHttps,
      ],
      [
        a,
        oidcConfig(slugA, { oidc: { issuer: 'https://10.0.0.5/realms/x', clientId: 'x', clientSecret: 'y' } }),
        400,
        SSO_STRINGS.issuerHttps,
      ],
      [a, oidcConfig(slugB), 409, SSO_STRINGS.slugTaken],
      [a, oidcConfig('-bad slug-'), 400, SSO_STRINGS.badSlug],
      [b, { ...samlInput(saml.metadata()), jitDepartmentId: deptA }, 400, SSO_STRINGS.unknownDepartment],
      [
        c,
        { ...oidcConfig(`new-${uniq()}`), oidc: { issuer: oidc.issuer, clientId: 'x' } },
        400,
        SSO_STRINGS.secretNeeded,
      ],
    ];
    for (const [who, body, status, words] of cases) {
      const r = await saveConfig(who.token, body);
      expect(r.status, `${JSON.stringify(body).slice(0, 120)} ${r.text}`).toBe(status);
      expect(r.body.description).toBe(words);
    }
    expect(await db().selectFrom('sso_configs').selectAll().orderBy('id').execute()).toEqual(before);
  });
});
