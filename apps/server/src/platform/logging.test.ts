import { REFRESH_COOKIE, SESSION_COOKIE } from '@parley/contracts';
import { generate } from 'otplib';
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../app.js';
import { apiClient, type Call, signInVia, signUpVia, uniq } from '../testing/api.js';
import { relayed, waitFor } from '../testing/sockets.js';
import { createWorkspaceVia, dialects, startTestServer, testConfig } from '../testing/support.js';
import { formatLogLine, prettyStream } from './logFormat.js';
import { scrubUrl } from './logging.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

// The next step's code (offset 30) is accepted too: a code works only once.
const totpNow = (secret: string, offsetSeconds = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

describe('scrubUrl', () => {
  it('FOUNDATION LOGGING removes secret query parameters however their names are spelled or encoded', () => {
    for (const name of ['_token', 'token', 'refresh_token', 'password', 'TOKEN', '%5Ftoken', 'to%6Ben', '%5f%74oken']) {
      const url = `/api/x?a=1&${name}=s3cret-value&b=2`;
      const out = scrubUrl(url);
      expect(out, name).not.toContain('s3cret-value');
      expect(out, name).toContain('a=1');
      expect(out, name).toContain('b=2');
    }
    expect(scrubUrl('/api/x?tokens=keep&mytoken=keep')).toBe('/api/x?tokens=keep&mytoken=keep');
    expect(scrubUrl('/plain/path')).toBe('/plain/path');
  });

  it('FOUNDATION LOGGING removes path parameters named token, _token or refresh_token by the route pattern', () => {
    expect(scrubUrl('/ticket/load/s3cret/all/chat/0?_token=x2', '/ticket/load/:token/:filter/:type/:offset')).toBe(
      '/ticket/load/[redacted]/all/chat/0?_token=[redacted]',
    );
    expect(scrubUrl('/x/s3cret/7', '/x/:_token(^\\w+$)/:id')).toBe('/x/[redacted]/7');
    expect(scrubUrl('/agent/s3cret', '/agent/:TOKEN')).toBe('/agent/[redacted]');
    // Other parameters, and routes without one, are left alone.
    expect(scrubUrl('/ticket/data/12/0', '/ticket/data/:id/:count')).toBe('/ticket/data/12/0');
    expect(scrubUrl('/api/chat/12', '/api/chat/:tokens')).toBe('/api/chat/12');
  });
});

describe('readable log lines (a terminal)', () => {
  it('FOUNDATION LOGGING a pino line reads as time, level, request, status, message and fields; redaction holds', () => {
    const out: string[] = [];
    const logger = createLogger(
      testConfig({ LOG_LEVEL: 'info' }),
      prettyStream({ write: (s) => out.push(s) }, { color: false }),
    );
    logger.info({ port: 3000, where: '/data dir/parley.db', password: 's3cret-value' }, 'Parley is listening');
    logger.info(
      { reqId: 'req-7', req: { method: 'GET', url: '/api/x?_token=abc' }, res: { statusCode: 404 }, responseTime: 3.4 },
      'request completed',
    );
    logger.error({ err: new Error('boom') }, 'failed');
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}Parley is listening {2}port=3000 where="\/data dir\/parley.db" password=\[redacted\]\n$/,
    );
    expect(out.join('')).not.toContain('s3cret-value');
    expect(out[1]).toContain('INFO  [req-7] GET /api/x?_token=[redacted] 404 3 ms request completed');
    expect(out[2]).toContain('ERROR failed');
    expect(out[2]).toMatch(/\n {4}Error: boom\n {5,}at /);
    // Not JSON (a line a program wrote by itself) passes through; colour codes only when asked for.
    expect(formatLogLine('plain text', true)).toBe('plain text\n');
    expect(formatLogLine(JSON.stringify({ level: 50, time: 0, msg: 'x' }), true)).toContain('\x1b[31mERROR\x1b[0m');
  });
});

describe.each(dialects)('logging (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const lines: string[] = [];
  /** Every value that must never reach a log line. */
  const secrets = new Set<string>();
  const keep = (...xs: (string | undefined | null)[]) => {
    for (const x of xs) if (x) secrets.add(x);
  };

  beforeAll(async () => {
    const logger = createLogger(testConfig({ LOG_LEVEL: 'trace' }), {
      write: (chunk: string) => {
        lines.push(chunk);
      },
    });
    s = await startTestServer(dialect, {}, { logger });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('FOUNDATION LOGGING every route with a token in its path has it redacted from the logged URL', () => {
    const secretParam = /\/:(_?token|refresh_token|password)(?=\/|\(|$)/i;
    const routes = [...new Set(s.app.routeTable.map((r) => r.url))].filter((u) => secretParam.test(u));
    expect(routes).toEqual(
      expect.arrayContaining(['/ticket/load/:token/:filter/:type/:offset', '/department2/:token', '/agent/:token']),
    );
    for (const route of routes) {
      const url = route.replace(/:(\w+)(\([^)]*\))?/g, (_m, name: string) =>
        /token|password/i.test(name) ? 's3cret-value' : '7',
      );
      expect(scrubUrl(url, route), route).not.toContain('s3cret-value');
      expect(scrubUrl(url, route), route).toContain('[redacted]');
    }
  });

  it('FOUNDATION LOGGING no password, access token, refresh token or 2FA secret appears in the logs at trace level', async () => {
    // First-run setup and a sign-up.
    const owner = await createWorkspaceVia(s.url);
    keep(owner.password, owner.token, owner.refreshToken);
    const acct = await signUpVia(call);
    keep(acct.password, acct.token, acct.refreshToken);

    // Sign in: a wrong password, then the right one.
    keep('wrong password attempt 1');
    expect((await signInVia(call, acct.username, 'wrong password attempt 1')).status).toBe(401);
    const signedIn = await signInVia(call, acct.username, acct.password);
    expect(signedIn.status).toBe(200);
    keep(signedIn.body.token, signedIn.body.refresh_token, signedIn.cookies[SESSION_COOKIE]);
    const token: string = signedIn.body.token;

    // The token in every place it is accepted: header, cookie, body and query parameters (AUTH-26).
    expect((await call('POST', '/api/auth/check', { token })).body.result).toBe('success');
    expect(
      (await call('POST', '/api/auth/check', { cookies: { [SESSION_COOKIE]: token }, origin: s.url })).body.result,
    ).toBe('success');
    expect((await call('POST', '/api/auth/check', { body: { _token: token } })).body.result).toBe('success');
    expect((await call('GET', `/api/users?_token=${token}`)).status).toBe(200);
    expect((await call('GET', `/api/users?token=${token}&x=1`)).status).toBe(200);
    // Percent-encoded parameter names decode to the same parameters.
    expect((await call('GET', `/api/users?%5Ftoken=${token}`)).status).toBe(200);
    expect((await call('GET', `/status/get?to%6Ben=${token}`)).status).toBe(200);
    // Paths that carry the token as a parameter (the spec's `/ticket/load/{token}/...` and others).
    expect((await call('GET', `/ticket/load/${token}/all/ticket/0`)).status).toBe(200);
    expect((await call('GET', `/api/ticket/load/${token}/all/ticket/0?sort=updated`)).status).toBe(200);
    expect((await call('GET', `/department2/${token}`)).status).toBe(200);
    expect((await call('GET', `/agent/${token}`)).status).toBe(200);
    expect((await call('GET', `/ticket/info/${token}/999999`)).status).toBe(404);
    // A token that is wrong is a secret too: it may be a real one with a typo.
    keep(`${token}typo`);
    expect((await call('GET', `/api/users?_token=${token}typo`)).status).toBe(401);

    // Refresh: an expired access token is renewed from the refresh token, in the body and in the cookie.
    await s.handle.db
      .updateTable('sessions')
      .set({ token_expires_at: Date.now() - 1000 })
      .execute();
    const refreshed = await call('POST', '/api/auth/check', { body: { refresh_token: signedIn.body.refresh_token } });
    expect(refreshed.body.token, refreshed.text).toBeTruthy();
    keep(refreshed.body.token, refreshed.body.refresh_token);
    await s.handle.db
      .updateTable('sessions')
      .set({ token_expires_at: Date.now() - 1000 })
      .execute();
    const viaCookie = await call('POST', '/api/auth/check', {
      cookies: { [REFRESH_COOKIE]: refreshed.body.refresh_token },
    });
    expect(viaCookie.body.token, viaCookie.text).toBeTruthy();
    keep(viaCookie.body.token, viaCookie.body.refresh_token);
    // A refresh token used twice (it was rotated) ends the session and is noted, not logged.
    expect(
      (await call('POST', '/api/auth/check', { body: { refresh_token: signedIn.body.refresh_token } })).body.result,
    ).toBe('failed');
    const fresh = await signInVia(call, acct.username, acct.password);
    keep(fresh.body.token, fresh.body.refresh_token);

    // Change the password: wrong current one, too short a new one, then right.
    const newPassword = `new password ${uniq()}`;
    keep(newPassword, 'not my current password', 'sh0rt!');
    expect(
      (
        await call('POST', '/api/user/password', {
          token: fresh.body.token,
          body: { current: 'not my current password', password: newPassword },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/api/user/password', {
          token: fresh.body.token,
          body: { current: acct.password, password: 'sh0rt!' },
        })
      ).status,
    ).toBe(400);
    const changed = await call('POST', '/api/user/password', {
      token: fresh.body.token,
      body: { current: acct.password, password: newPassword },
    });
    expect(changed.status, changed.text).toBe(200);
    const again = await signInVia(call, acct.username, newPassword);
    expect(again.status).toBe(200);
    keep(again.body.token, again.body.refresh_token);

    // Two-factor: the secret, its URI, the codes and the backup codes.
    const setup = await call('POST', '/api/user/2fa/setup', {
      token: again.body.token,
      body: { password: newPassword },
    });
    expect(setup.status, setup.text).toBe(200);
    keep(setup.body.secret, setup.body.uri);
    const enabled = await call('POST', '/api/user/2fa/enable', {
      token: again.body.token,
      body: { code: await totpNow(setup.body.secret) },
    });
    expect(enabled.status, enabled.text).toBe(200);
    keep(...enabled.body.backup_codes);
    const withCode = await signInVia(call, acct.username, newPassword, { tfa: await totpNow(setup.body.secret, 30) });
    expect(withCode.status, withCode.text).toBe(200);
    keep(withCode.body.token, withCode.body.refresh_token);
    const withBackup = await signInVia(call, acct.username, newPassword, { tfa: enabled.body.backup_codes[0] });
    expect(withBackup.status, withBackup.text).toBe(200);
    keep(withBackup.body.token, withBackup.body.refresh_token);

    // A one-time hand-off token, exchanged for a session.
    const handoff = await call('POST', '/api/oauth/token', { token: withBackup.body.token });
    expect(handoff.status).toBe(200);
    keep(handoff.body.token);
    const exchanged = await call('POST', '/api/oauth/verify', { body: { token: handoff.body.token } });
    expect(exchanged.status).toBe(200);
    keep(exchanged.body.token);

    // Sockets: a valid token and a refused one.
    const good = connect(s.url, { transports: ['websocket'], auth: { token: withBackup.body.token }, forceNew: true });
    await new Promise((resolve, reject) => {
      good.once('catchUp', resolve);
      good.once('connect_error', reject);
    });
    good.disconnect();
    keep(`${withBackup.body.token}bad`);
    const bad = connect(s.url, {
      transports: ['websocket'],
      auth: { token: `${withBackup.body.token}bad` },
      reconnection: false,
      forceNew: true,
    });
    await new Promise((resolve) => bad.once('connect_error', resolve));
    bad.disconnect();

    // Sign out.
    expect((await call('DELETE', '/api/user/signout', { token: withBackup.body.token })).status).toBe(200);

    // Let the relay and presence finish what these requests set off, then look: every account's events
    // delivered, and presence done with the closed sockets.
    for (const { id } of await s.handle.db.selectFrom('accounts').select('id').execute()) {
      await relayed(s.handle.db, Number(id));
      await waitFor(
        async () =>
          !(await s.handle.db
            .selectFrom('user_connections')
            .select('socket_id')
            .where('account_id', '=', Number(id))
            .executeTakeFirst()),
        'presence to forget the closed sockets',
      );
    }
    const log = lines.join('');
    // The capture works: trace-level request lines are there, and the scrubbed URLs with them.
    expect(lines.length).toBeGreaterThan(50);
    expect(log).toContain('incoming request');
    expect(log).toContain('/api/user/password');
    expect(log).toContain('_token=[redacted]');
    expect(log).toContain('/ticket/load/[redacted]/all/ticket/0');
    expect(log).toContain('/api/ticket/load/[redacted]/all/ticket/0?sort=updated');
    expect(log).toContain('/department2/[redacted]');
    expect(log).toContain('/ticket/info/[redacted]/999999');
    for (const secret of secrets) {
      expect(secret.length, 'every secret is long enough to be unmistakable').toBeGreaterThanOrEqual(5);
      const found = lines.find((l) => l.includes(secret) || l.includes(encodeURIComponent(secret)));
      expect(found, `a secret (${secret.slice(0, 6)}...) was logged`).toBeUndefined();
    }
  });
});
