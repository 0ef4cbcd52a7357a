import { generate } from 'otplib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TFA_SETUP_REQUIRED } from '../../platform/auth/guard.js';
import { addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

const totpNow = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

/** The calls a user who must still set up two-factor sign-in may make (besides the auth check). */
const OPEN = new Set([
  'POST /api/user/2fa/setup',
  'POST /api/user/2fa/enable',
  'DELETE /api/user/signout',
  // The sign-out of a session opened through single sign-on (it ends it like the one above).
  'POST /api/sso/signout',
]);

/**
 * "Require two-factor sign-in" is the server's rule, not only the web app's: a user of such an account who
 * has not set it up signs in with the password and then reaches only the auth check, the setup and sign-out.
 * Every other call answers 403 TFA_SETUP_REQUIRED and changes nothing; the socket is refused.
 */
describe.each(dialects)('AUTH required two-factor sign-in (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const opened: TestSocket[] = [];

  beforeAll(async () => {
    s = await startTestServer(dialect, { PRESENCE_GRACE_MS: '600000' });
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(() => s?.stop());

  /** An account that requires two-factor sign-in, its admin (with it set up) and an agent without it. */
  async function requiring() {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `req-${uniq()}`, type: 'agent' });
    const setup = await call('POST', '/api/user/2fa/setup', { token: admin.token, body: { password: admin.password } });
    expect(setup.status, setup.text).toBe(200);
    const on = await call('POST', '/api/user/2fa/enable', {
      token: admin.token,
      body: { code: await totpNow(setup.body.secret) },
    });
    expect(on.status, on.text).toBe(200);
    const req = await call('PUT', '/api/account/security', { token: admin.token, body: { require_2fa: true } });
    expect(req.status, req.text).toBe(200);
    return { admin, agent };
  }

  it('AUTH-05 a user without 2FA reaches only the auth check, the setup and sign-out; every other call is refused', async () => {
    const { admin, agent } = await requiring();
    // The password alone still signs in (the web app then shows the setup), and the auth check answers.
    const signed = await signInVia(call, agent.username, agent.password);
    expect(signed.status).toBe(200);
    const token: string = signed.body.token;
    const check = await call('POST', '/api/auth/check', { token });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ result: 'success', tfa_setup_required: true });

    // Every other route of a signed-in user: 403 TFA_SETUP_REQUIRED, before its input is even looked at.
    const routes = s.app.routeTable.filter(
      (r) => (r.auth === 'user' || r.auth === 'admin') && !['HEAD', 'OPTIONS'].includes(r.method),
    );
    expect(routes.length).toBeGreaterThan(50);
    let refused = 0;
    for (const r of routes) {
      const key = `${r.method} ${r.url}`;
      if (OPEN.has(key)) continue;
      const url = r.url.replace(/:[A-Za-z_]+/g, '1').replace('*', 'x');
      const a = await call(r.method, url, { token, body: r.method === 'GET' ? undefined : {} });
      expect(a.status, key).toBe(403);
      expect(a.body, key).toEqual({ result: 'failed', code: 'TFA_SETUP_REQUIRED', description: TFA_SETUP_REQUIRED });
      refused++;
    }
    expect(refused).toBe(routes.length - OPEN.size);

    // Nothing a refused call asked for happened.
    const status = await call('POST', '/api/online_status/update', {
      token,
      body: { status: 'AWAY', reason: 'not allowed' },
    });
    expect(status.status).toBe(403);
    const row = await s.handle.db
      .selectFrom('users')
      .select(['second_status'])
      .where('id', '=', agent.id)
      .executeTakeFirstOrThrow();
    expect(row.second_status).not.toBe('AWAY');

    // No socket either.
    await expect(connectSocket(s.url, token, opened)).rejects.toThrow('two-factor setup required');

    // The admin, who has 2FA, is not affected.
    expect((await call('GET', '/api/user/sessions', { token: admin.token })).status).toBe(200);

    // Set up: everything opens at once.
    const setup = await call('POST', '/api/user/2fa/setup', { token, body: { password: agent.password } });
    expect(setup.status, setup.text).toBe(200);
    const on = await call('POST', '/api/user/2fa/enable', { token, body: { code: await totpNow(setup.body.secret) } });
    expect(on.status, on.text).toBe(200);
    expect((await call('GET', '/api/user/sessions', { token })).status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token })).body.tfa_setup_required).toBe(false);
    await connectSocket(s.url, token, opened);
  });

  it('AUTH-29 a user without 2FA may sign out', async () => {
    const { agent } = await requiring();
    const signed = await signInVia(call, agent.username, agent.password);
    const out = await call('DELETE', '/api/user/signout?current=1', { token: signed.body.token });
    expect(out.status, out.text).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: signed.body.token })).body.result).toBe('failed');
  });

  it('AUTH-05 turning the requirement on closes the open sockets of users without 2FA, not of those with it', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `req-${uniq()}`, type: 'agent' });
    const setup = await call('POST', '/api/user/2fa/setup', { token: admin.token, body: { password: admin.password } });
    await call('POST', '/api/user/2fa/enable', {
      token: admin.token,
      body: { code: await totpNow(setup.body.secret) },
    });
    const agentSocket = await connectSocket(s.url, agent.token, opened);
    const adminSocket = await connectSocket(s.url, admin.token, opened);
    let reason = '';
    agentSocket.on('disconnect', (r) => {
      reason = r;
    });
    const on = await call('PUT', '/api/account/security', { token: admin.token, body: { require_2fa: true } });
    expect(on.status).toBe(200);
    await waitFor(() => reason, 'the agent socket to close');
    expect(reason).toBe('io server disconnect');
    expect(adminSocket.connected).toBe(true);
    // A send on it would not have been taken either: the agent's HTTP calls are refused now.
    expect((await call('GET', '/api/user/sessions', { token: agent.token })).status).toBe(403);
  });
});
