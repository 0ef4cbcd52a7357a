import { AuthCheckAnswer, NOT_AN_ADMIN } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signInVia, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

describe.each(dialects)('sign-in and auth check answers (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      HOST_VARIANTS: 'help.example.test=support,trade.example.test=trading,app.example.test=combined',
    });
    call = apiClient(server.url);
  });
  afterAll(async () => server?.stop());

  it('AUTH-07 AUTH-10 auth2 answers result, token, refresh_token, description and sets year-long HttpOnly cookies', async () => {
    const a = await signUpVia(call);
    const r = await signInVia(call, a.username, a.password);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['description', 'refresh_token', 'result', 'token']);
    expect(r.body.result).toBe('success');
    const res = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: a.username, password: a.password }),
    });
    const cookies = res.headers.getSetCookie();
    for (const name of ['parley_token', 'parley_refresh']) {
      const c = cookies.find((x) => x.startsWith(`${name}=`));
      expect(c).toBeDefined();
      expect(c).toMatch(/HttpOnly/i);
      expect(c).toMatch(/SameSite=Lax/i);
      expect(c).toMatch(/Path=\//);
      const maxAge = Number(/Max-Age=(\d+)/.exec(c!)?.[1]);
      expect(maxAge).toBeGreaterThanOrEqual(364 * 24 * 3600);
      expect(maxAge).toBeLessThanOrEqual(366 * 24 * 3600);
    }
  });

  it('AUTH-30 AUTH-31 type is optional, admin or agent; the user type comes from the account (admin, supervisor, agent)', async () => {
    const a = await signUpVia(call);
    const s = await addUserVia(call, a.token, { username: `sup-${a.username}`, type: 'supervisor' });
    expect((await signInVia(call, a.username, a.password)).status).toBe(200);
    const withType = await call('POST', '/api/auth2', {
      body: { client: s.username, password: s.password, type: 'agent' },
    });
    expect(withType.status).toBe(200);
    const bad = await call('POST', '/api/auth2', { body: { client: s.username, password: s.password, type: 'root' } });
    expect(bad.status).toBe(400);
    const check = await call('POST', '/api/auth/check', { token: withType.body.token });
    expect(check.body.type).toBe('supervisor');
  });

  it('AUTH-01 AUTH-30 signing in as admin is for admins: an agent or supervisor is refused, an admin may sign in as agent', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agt-${a.username}`, type: 'agent' });
    const sup = await addUserVia(call, a.token, { username: `spv-${a.username}`, type: 'supervisor' });
    const signIn = (client: string, password: string, type?: string) =>
      call('POST', '/api/auth2', { body: { client, password, ...(type ? { type } : {}) } });
    for (const u of [agent, sup]) {
      const refused = await signIn(u.username, u.password, 'admin');
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ result: 'failed', description: NOT_AN_ADMIN });
      expect(refused.cookies.parley_token).toBeUndefined();
      expect((await signIn(u.username, u.password, 'agent')).status).toBe(200);
    }
    // A wrong password still gets the one answer for bad credentials, whatever the type.
    const wrong = await signIn(agent.username, 'not the password', 'admin');
    expect(wrong.status).toBe(401);
    expect(wrong.body.description).not.toBe(NOT_AN_ADMIN);
    for (const type of ['admin', 'agent', undefined]) {
      const r = await signIn(a.username, a.password, type);
      expect(r.status, String(type)).toBe(200);
      expect((await call('POST', '/api/auth/check', { token: r.body.token })).body.type).toBe('admin');
    }
  });

  it('GEN-01 a supervisor reads reports by default (view_report)', async () => {
    const a = await signUpVia(call);
    const s = await addUserVia(call, a.token, { username: `gen-${a.username}`, type: 'supervisor' });
    const check = await call('POST', '/api/auth/check', { token: s.token });
    expect(check.body.permission).toEqual(['view_report']);
  });

  it('AUTH-14 AUTH-15 AUTH-16 AUTH-26 the auth check takes the token as _token, Bearer or cookie and answers every field', async () => {
    const a = await signUpVia(call);
    const viaBody = await call('POST', '/api/auth/check', { body: { _token: a.token } });
    const viaBearer = await call('POST', '/api/auth/check', { token: a.token });
    const viaCookie = await call('POST', '/api/auth/check', {
      cookies: { parley_token: a.token },
      origin: server.url,
    });
    const viaQuery = await call('GET', `/api/user/sessions?_token=${a.token}`);
    expect(viaQuery.status).toBe(200);
    for (const r of [viaBody, viaBearer, viaCookie]) {
      expect(r.status).toBe(200);
      expect(AuthCheckAnswer.parse(r.body).result).toBe('success');
      for (const field of [
        'adminName',
        'adminUsername',
        'adminUrl',
        'photo',
        'timezone',
        'acw_seconds',
        'call_prefix',
        'priority',
        'sip',
        'rank',
        'permission',
        'plan',
        'settings',
        'event_id',
        'version',
        'productDetails',
      ]) {
        expect(r.body, field).toHaveProperty(field);
      }
      expect(r.body.adminName).toBe(a.name);
      expect(r.body.sip).toEqual({ active: false, sip_number: '', password: '' });
      expect(r.body.settings).toHaveLength(1);
      expect(r.body.settings[0].company).toBe(a.company);
      expect(r.body.productDetails.product_functions).toEqual({});
    }
  });

  it('AUTH-15 AUTH-19 CALL-02 CONTACT-11 every answer carries turn, api_key, contacts_param(2), sipIp, sipPort, token and refresh_token', async () => {
    const a = await signUpVia(call);
    const plain = await call('POST', '/api/auth/check', { token: a.token });
    expect(plain.status).toBe(200);
    // No call server is set on this server: the SIP address fields are there with their empty defaults.
    expect(plain.body).toMatchObject({
      result: 'success',
      turn: '',
      api_key: '',
      contacts_param: '',
      contacts_param2: '',
      sipIp: '',
      sipPort: 0,
      // Not renewed by this check: '' means "keep the ones you have"; the tokens presented are never echoed.
      token: '',
      refresh_token: '',
    });
    expect(AuthCheckAnswer.parse(plain.body).sip_ws_url).toBe('');

    // A check that renews the session answers the new pair, and they work.
    const renewed = await call('POST', '/api/auth/check', { body: { refresh_token: a.refreshToken } });
    expect(renewed.body.result).toBe('success');
    expect(renewed.body.token).toMatch(/^.{20,}$/);
    expect(renewed.body.refresh_token).toMatch(/^.{20,}$/);
    expect(renewed.body.token).not.toBe(a.token);
    expect(renewed.body.refresh_token).not.toBe(a.refreshToken);
    expect(renewed.body.turn).toBe('');
    expect((await call('POST', '/api/auth/check', { token: renewed.body.token })).body.result).toBe('success');

    // A failed check carries them too, empty.
    const failed = await call('POST', '/api/auth/check', { body: { _token: 'nonsense' } });
    expect(failed.body).toMatchObject({ result: 'failed', token: '', refresh_token: '' });
    expect(AuthCheckAnswer.parse(failed.body).result).toBe('failed');
  });

  it('HOST-01 HOST-04 GEN-05 the product title and variant follow the host; unknown hosts are combined', async () => {
    const a = await signUpVia(call);
    // fetch may not set Host; inject speaks to the same server with any Host header.
    const title = async (host: string) =>
      (
        await server.app.inject({
          method: 'POST',
          url: '/api/auth/check',
          headers: { host, authorization: `Bearer ${a.token}` },
        })
      ).json().productDetails;
    expect(await title('help.example.test')).toMatchObject({ variant: 'support', title: 'Parley Support' });
    expect(await title('trade.example.test:8443')).toMatchObject({ variant: 'trading', title: 'Parley Trading' });
    expect(await title('localhost:3000')).toMatchObject({ variant: 'combined', title: 'Parley' });
    expect(await title('elsewhere.example.test')).toMatchObject({ variant: 'combined', title: 'Parley' });
  });

  it('SHELL-28 HOST-08 the auth check names the full product: the first host of the combined variant', async () => {
    const a = await signUpVia(call);
    const details = async (host: string) =>
      (
        await server.app.inject({
          method: 'POST',
          url: '/api/auth/check',
          headers: { host, authorization: `Bearer ${a.token}` },
        })
      ).json().productDetails;
    expect(await details('help.example.test')).toMatchObject({
      variant: 'support',
      product_url: 'http://app.example.test',
    });
    // A port of the request goes with it: the map names hosts without ports.
    expect(await details('help.example.test:8080')).toMatchObject({ product_url: 'http://app.example.test:8080' });
  });

  it('HOST-07 the auth check says whether this host may show the chat view', async () => {
    const a = await signUpVia(call);
    const allowed = async (host: string) =>
      (
        await server.app.inject({
          method: 'POST',
          url: '/api/auth/check',
          headers: { host, authorization: `Bearer ${a.token}` },
        })
      ).json().productDetails.chat_allowed;
    expect(await allowed('help.example.test')).toBe(true);
    expect(await allowed('trade.example.test:8443')).toBe(true);
    expect(await allowed('localhost:3000')).toBe(true);
    expect(await allowed('elsewhere.example.test')).toBe(false);
  });

  it('AUTH-28 AUTH-29 sign-out with _token and current: current=0 ends the others, current=1 ends this one', async () => {
    const a = await signUpVia(call);
    const other = await signInVia(call, a.username, a.password);
    const r0 = await call('DELETE', `/api/user/signout?_token=${a.token}&current=0`);
    expect(r0.status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: other.body.token })).body.result).toBe('failed');
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.result).toBe('success');
    const r1 = await call('DELETE', `/api/user/signout?_token=${a.token}&current=1`);
    expect(r1.status).toBe(200);
    expect(r1.cookies.parley_token).toBe('');
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.result).toBe('failed');
    expect((await call('DELETE', `/api/user/signout?_token=${a.token}&current=1`)).status).toBe(401);
  });
});
