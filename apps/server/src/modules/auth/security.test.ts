import { SIGNIN_MAX_FAILURES, SIGNIN_WINDOW_MS, TFA_REQUIRED, TOO_MANY_ATTEMPTS } from '@parley/contracts';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crossSite } from '../../platform/auth/guard.js';
import type { DB } from '../../platform/db/db.js';
import { addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { createWorkspaceVia, dialects, startTestServer } from '../../testing/support.js';
import { totpAt, wrongTotp } from '../../testing/totp.js';
import { BAD_CREDENTIALS, BAD_TFA } from './commands/signIn.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function countRows(db: DB, table: 'login_attempts' | 'users' | 'accounts' | 'sessions' | 'audit_log') {
  const r = await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('the cross-site check behind a proxy', () => {
  const probe = async (trustProxy: boolean, headers: Record<string, string>) => {
    const app = Fastify({ trustProxy });
    app.post('/probe', async (req) => ({ cross: crossSite(req) }));
    const r = await app.inject({ method: 'POST', url: '/probe', headers, payload: {} });
    await app.close();
    return r.json().cross as boolean;
  };
  const proxied = {
    host: 'parley-internal:3000',
    'x-forwarded-host': 'parley.example.com',
    'x-forwarded-proto': 'https',
    origin: 'https://parley.example.com',
  };

  it('accepts our own pages when a trusted proxy rewrote the Host header', async () => {
    expect(await probe(true, proxied)).toBe(false);
    expect(await probe(true, { ...proxied, origin: 'https://evil.example' })).toBe(true);
  });

  it('ignores X-Forwarded-Host unless the proxy is trusted', async () => {
    expect(await probe(false, proxied)).toBe(true);
    expect(await probe(false, { ...proxied, 'x-forwarded-host': 'evil.example', origin: 'https://evil.example' })).toBe(
      true,
    );
    expect(await probe(false, { host: 'parley.example.com', origin: 'https://parley.example.com' })).toBe(false);
  });
});

describe.each(dialects)('auth security (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let setupAdmin: Awaited<ReturnType<typeof createWorkspaceVia>>;
  const db = () => s.handle.db;
  const check = (token: string) => call('POST', '/api/auth/check', { token });
  const currentSessionId = async (token: string): Promise<number> => {
    const r = await call('GET', '/api/user/sessions', { token });
    return r.body.data.find((x: { current: boolean }) => x.current).id;
  };
  const auditActions = async (accountId: number) =>
    (await db().selectFrom('audit_log').select(['action', 'detail']).where('account_id', '=', accountId).execute()).map(
      (r) => ({ action: r.action, detail: JSON.parse(r.detail) }),
    );

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    setupAdmin = await createWorkspaceVia(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('stores passwords as argon2id hashes, never in the clear', async () => {
    const acct = await signUpVia(call);
    const agent = await addUserVia(call, acct.token, { username: `hash-${uniq()}`, type: 'agent' });
    const rows = await db()
      .selectFrom('users')
      .select(['username', 'password_hash'])
      .where('username', 'in', [setupAdmin.username, acct.username, agent.username])
      .execute();
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r.password_hash).toMatch(/^\$argon2id\$/);
      expect(r.password_hash).not.toContain(agent.password);
    }
  });

  it('a wrong password and an unknown user get the same 401, in about the same time', async () => {
    // Its own server: these failures must not count towards the throttle of the other tests.
    const t = await startTestServer(dialect);
    try {
      const c = apiClient(t.url);
      const a = await createWorkspaceVia(t.url);
      const wrong = () => signInVia(c, a.username, 'not the password');
      const unknown = () => signInVia(c, `nobody-${uniq()}`, 'not the password');
      const w = await wrong();
      const u = await unknown();
      expect(w.status).toBe(401);
      expect(u.status).toBe(401);
      expect(w.body).toEqual({ result: 'failed', description: BAD_CREDENTIALS });
      expect(u.body).toEqual(w.body);
      expect(u.cookies).toEqual({});

      const times: Record<'wrong' | 'unknown', number[]> = { wrong: [], unknown: [] };
      for (let i = 0; i < 7; i++) {
        for (const [name, fn] of [
          ['wrong', wrong],
          ['unknown', unknown],
        ] as const) {
          const t0 = performance.now();
          const r = await fn();
          times[name].push(performance.now() - t0);
          expect(r.status).toBe(401);
        }
        // Keep under the throttle: it would answer fast and spoil the measurement.
        await t.handle.db.deleteFrom('login_attempts').execute();
      }
      const mw = median(times.wrong);
      const mu = median(times.unknown);
      expect(Math.max(mw, mu) / Math.min(mw, mu), `wrong ${mw} ms, unknown ${mu} ms`).toBeLessThan(3);
    } finally {
      await t.stop();
    }
  });

  it('throttles sign-in per username and per IP for 15 minutes, whatever the password', async () => {
    const t = await startTestServer(dialect);
    try {
      const c = apiClient(t.url);
      const tdb = t.handle.db;
      const a = await createWorkspaceVia(t.url);
      const other = await addUserVia(c, a.token, { username: `other-${uniq()}`, type: 'agent' });

      for (let i = 0; i < SIGNIN_MAX_FAILURES - 1; i++)
        expect((await signInVia(c, a.username, 'wrong')).status).toBe(401);
      // Nine failures: the right password still works (and a success does not reset the count).
      expect((await signInVia(c, a.username, a.password)).status).toBe(200);
      // The username is matched case-insensitively, so changing the case does not escape the count.
      expect((await signInVia(c, a.username.toUpperCase(), 'wrong')).status).toBe(401);

      const eleventh = await signInVia(c, a.username, a.password);
      expect(eleventh.status).toBe(429);
      expect(eleventh.body).toEqual({ result: 'failed', description: TOO_MANY_ATTEMPTS });
      expect(eleventh.cookies).toEqual({});
      // Another username from the same IP: the IP has 10 failures too.
      const sameIp = await signInVia(c, other.username, other.password);
      expect(sameIp.status).toBe(429);
      expect(sameIp.body.description).toBe(TOO_MANY_ATTEMPTS);
      // Refused attempts are not counted again, so the window does not keep sliding.
      expect(
        Number(
          (
            await tdb
              .selectFrom('login_attempts')
              .select(sql<number>`count(*)`.as('n'))
              .where('success', '=', 0)
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ).toBe(SIGNIN_MAX_FAILURES);
      const throttled = await tdb
        .selectFrom('audit_log')
        .select('actor')
        .where('action', '=', 'signin.throttled')
        .execute();
      expect(throttled.map((r) => r.actor).sort()).toEqual([a.username, other.username].sort());

      // The failures seem to come from elsewhere: the IP is free again, the username still is not.
      await tdb.updateTable('login_attempts').set({ ip: '203.0.113.9' }).execute();
      expect((await signInVia(c, other.username, other.password)).status).toBe(200);
      expect((await signInVia(c, a.username, a.password)).status).toBe(429);

      // 16 minutes later the failures are outside the window and no longer count.
      await tdb
        .updateTable('login_attempts')
        .set({ created_at: sql`created_at - ${SIGNIN_WINDOW_MS + 60_000}` })
        .execute();
      const later = await signInVia(c, a.username, a.password);
      expect(later.status).toBe(200);
      expect(later.body.result).toBe('success');
    } finally {
      await t.stop();
    }
  });

  it('AUTH-05 two-factor sign-in: setup, enable, TOTP and backup codes, disable', async () => {
    const acct = await signUpVia(call);
    const u = await addUserVia(call, acct.token, { username: `tfa-${uniq()}`, type: 'agent' });

    const setup = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } });
    expect(setup.status).toBe(200);
    const { secret, uri, qr } = setup.body;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(uri).toContain(`secret=${secret}`);
    expect(uri).toContain(u.username);
    expect(qr).toMatch(/^data:image\/svg\+xml;base64,/);
    // Not on until a code proves the app has the secret.
    expect((await signInVia(call, u.username, u.password)).status).toBe(200);

    const bad = await call('POST', '/api/user/2fa/enable', { token: u.token, body: { code: await wrongTotp(secret) } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('TFA_BAD_CODE');
    expect((await call('POST', '/api/user/2fa/enable', { token: u.token, body: { code: '12ab56' } })).status).toBe(400);
    expect((await signInVia(call, u.username, u.password)).status).toBe(200);

    const on = await call('POST', '/api/user/2fa/enable', { token: u.token, body: { code: await totpAt(secret) } });
    expect(on.status).toBe(200);
    const codes: string[] = on.body.backup_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^\d{5}-\d{5}$/);
    const stored = await db()
      .selectFrom('users')
      .select(['backup_codes', 'totp_enabled'])
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.totp_enabled)).toBe(1);
    for (const code of codes) expect(stored.backup_codes).not.toContain(code.replace('-', ''));
    expect((await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } })).status).toBe(
      409,
    );
    expect((await check(u.token)).body.tfa_enabled).toBe(true);

    // The right password alone is not enough, and is not counted as a failure.
    const failuresBefore = await countRows(db(), 'login_attempts');
    const noCode = await signInVia(call, u.username, u.password);
    expect(noCode.status).toBe(401);
    expect(noCode.body).toEqual({ result: 'failed', description: TFA_REQUIRED });
    expect(noCode.cookies).toEqual({});
    expect(await countRows(db(), 'login_attempts')).toBe(failuresBefore);
    // The wrong password with 2FA on is an ordinary bad-credentials answer.
    const wrongPassword = await signInVia(call, u.username, 'not it', { tfa: await totpAt(secret) });
    expect(wrongPassword.body.description).toBe(BAD_CREDENTIALS);

    // The code that turned it on was used up: the next step's (accepted for clocks that drift) signs in.
    const withTotp = await signInVia(call, u.username, u.password, { tfa: await totpAt(secret, 30) });
    expect(withTotp.status).toBe(200);
    expect((await check(withTotp.body.token)).body.result).toBe('success');

    const withBackup = await signInVia(call, u.username, u.password, { tfa: codes[0] });
    expect(withBackup.status).toBe(200);
    const again = await signInVia(call, u.username, u.password, { tfa: codes[0] });
    expect(again.status).toBe(401);
    expect(again.body.description).toBe(BAD_TFA);
    // Without the dash it is the same code.
    expect((await signInVia(call, u.username, u.password, { tfa: codes[1]!.replace('-', '') })).status).toBe(200);
    expect((await auditActions(acct.accountId)).filter((a) => a.action === 'tfa.backup_code_used')).toHaveLength(2);

    // Letters are refused by the contract before anything is looked up or written.
    const attemptsBefore = await countRows(db(), 'login_attempts');
    const letters = await signInVia(call, u.username, u.password, { tfa: 'abcdef' });
    expect(letters.status).toBe(400);
    expect(await countRows(db(), 'login_attempts')).toBe(attemptsBefore);

    const wrongDisable = await call('POST', '/api/user/2fa/disable', { token: u.token, body: { password: 'not it' } });
    expect(wrongDisable.status).toBe(400);
    expect(wrongDisable.body.code).toBe('WRONG_PASSWORD');
    expect((await signInVia(call, u.username, u.password)).body.description).toBe(TFA_REQUIRED);

    const off = await call('POST', '/api/user/2fa/disable', { token: u.token, body: { password: u.password } });
    expect(off.status).toBe(200);
    const plain = await signInVia(call, u.username, u.password);
    expect(plain.status).toBe(200);
    expect(plain.body.result).toBe('success');
    // The old backup codes are gone with the secret.
    const row = await db()
      .selectFrom('users')
      .select(['totp_secret', 'backup_codes'])
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ totp_secret: null, backup_codes: '[]' });
    const actions = (await auditActions(acct.accountId)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['tfa.enabled', 'tfa.disabled']));
  });

  it('AUTH-05 a backup code works once even when it is sent twice at the same moment', async () => {
    const acct = await signUpVia(call);
    const u = await addUserVia(call, acct.token, { username: `race-${uniq()}`, type: 'agent' });
    const { secret } = (await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } }))
      .body;
    const codes: string[] = (
      await call('POST', '/api/user/2fa/enable', { token: u.token, body: { code: await totpAt(secret) } })
    ).body.backup_codes;
    const both = await Promise.all([1, 2].map(() => signInVia(call, u.username, u.password, { tfa: codes[3] })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('AUTH-05 an account that requires 2FA tells a user without it to set it up', async () => {
    const acct = await signUpVia(call);
    const agent = await addUserVia(call, acct.token, { username: `req-${uniq()}`, type: 'agent' });
    expect((await check(agent.token)).body.tfa_setup_required).toBe(false);

    expect(
      (await call('PUT', '/api/account/security', { token: agent.token, body: { require_2fa: true } })).status,
    ).toBe(403);
    const on = await call('PUT', '/api/account/security', { token: acct.token, body: { require_2fa: true } });
    expect(on.status).toBe(200);
    const c = (await check(agent.token)).body;
    expect(c.tfa_setup_required).toBe(true);
    expect(c.tfa_enabled).toBe(false);
    expect(c.settings[0].require_2fa).toBe(true);

    // Once the user has 2FA, nothing more is asked.
    const { secret } = (
      await call('POST', '/api/user/2fa/setup', { token: agent.token, body: { password: agent.password } })
    ).body;
    await call('POST', '/api/user/2fa/enable', { token: agent.token, body: { code: await totpAt(secret) } });
    expect((await check(agent.token)).body.tfa_setup_required).toBe(false);
    // Other accounts are not affected.
    expect((await check(setupAdmin.token)).body.tfa_setup_required).toBe(false);
    expect((await auditActions(acct.accountId)).map((a) => a.action)).toContain('account.security_changed');
  });

  it('refresh tokens rotate; a rotated token presented again later ends the session', async () => {
    const acct = await signUpVia(call);
    const u = await addUserVia(call, acct.token, { username: `rot-${uniq()}`, type: 'agent' });
    const first = await signInVia(call, u.username, u.password);
    const t0: string = first.body.token;
    const r0: string = first.body.refresh_token;
    expect(first.cookies).toEqual({ parley_token: t0, parley_refresh: r0 });
    const sid = await currentSessionId(t0);
    const expireToken = () =>
      db()
        .updateTable('sessions')
        .set({ token_expires_at: Date.now() - 1000 })
        .where('id', '=', sid)
        .execute();

    await expireToken();
    expect((await check(t0)).body.result).toBe('failed');
    // The refresh cookie alone renews the pair.
    const rot = await call('POST', '/api/auth/check', { cookies: { parley_refresh: r0 } });
    expect(rot.status).toBe(200);
    expect(rot.body.result).toBe('success');
    expect(rot.body.userId).toBe(u.id);
    const t1: string = rot.body.token;
    const r1: string = rot.body.refresh_token;
    expect(t1).toBeTruthy();
    expect(r1).toBeTruthy();
    expect([t1, r1]).not.toContain(t0);
    expect([t1, r1]).not.toContain(r0);
    expect(rot.cookies).toEqual({ parley_token: t1, parley_refresh: r1 });
    // The old access token is replaced, not only expired.
    expect((await check(t0)).body.result).toBe('failed');
    expect((await check(t1)).body.result).toBe('success');
    expect(await currentSessionId(t1)).toBe(sid);

    // The old refresh token comes back long after the rotation: it was copied. The session ends.
    await db()
      .updateTable('sessions')
      .set({ rotated_at: Date.now() - 31_000 })
      .where('id', '=', sid)
      .execute();
    const reused = await call('POST', '/api/auth/check', { body: { refresh_token: r0 } });
    expect(reused.body.result).toBe('failed');
    // AUTH-15: the answer always has a token; '' is "no new pair".
    expect(reused.body.token).toBe('');
    expect((await check(t1)).body.result).toBe('failed');
    expect((await call('POST', '/api/auth/check', { body: { refresh_token: r1 } })).body.result).toBe('failed');
    const audit = (await auditActions(acct.accountId)).filter((a) => a.action === 'session.refresh_reused');
    expect(audit).toEqual([{ action: 'session.refresh_reused', detail: { session: sid } }]);

    // Another session of the same user is not touched.
    const second = await signInVia(call, u.username, u.password);
    const sid2 = await currentSessionId(second.body.token);
    await db()
      .updateTable('sessions')
      .set({ token_expires_at: Date.now() - 1000 })
      .where('id', '=', sid2)
      .execute();
    // In the body this time; two tabs presenting the same token within the grace period is not theft.
    const a = await call('POST', '/api/auth/check', { body: { refresh_token: second.body.refresh_token } });
    expect(a.body.result).toBe('success');
    const b = await call('POST', '/api/auth/check', { body: { refresh_token: second.body.refresh_token } });
    expect(b.body.result).toBe('success');
    // The late tab is confirmed without a new pair, so the pair the first tab received stays good.
    expect(b.body.token).toBe('');
    expect(b.cookies).toEqual({});
    expect((await check(a.body.token)).body.result).toBe('success');
    expect((await call('POST', '/api/auth/check', { body: { refresh_token: a.body.refresh_token } })).body.result).toBe(
      'success',
    );
    expect((await auditActions(acct.accountId)).filter((x) => x.action === 'session.refresh_reused')).toHaveLength(1);
  });

  it('my sessions: list, end another, and a password change ends the others', async () => {
    const acct = await signUpVia(call);
    const u = await addUserVia(call, acct.token, { username: `ses-${uniq()}`, type: 'agent' });
    const one = await signInVia(call, u.username, u.password, { headers: { 'user-agent': 'ua-one' } });
    const two = await signInVia(call, u.username, u.password, { headers: { 'user-agent': 'ua-two' } });
    const mine = one.body.token as string;

    const list = await call('GET', '/api/user/sessions', { token: mine });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(3);
    const byUa = (ua: string) => list.body.data.find((x: { user_agent: string }) => x.user_agent === ua);
    expect(byUa('ua-one').current).toBe(true);
    expect(list.body.data.filter((x: { current: boolean }) => x.current)).toHaveLength(1);
    expect(byUa('ua-one').ip).toBe('127.0.0.1');
    const twoId: number = byUa('ua-two').id;

    const ended = await call('DELETE', `/api/user/sessions/${twoId}`, { token: mine });
    expect(ended.status).toBe(200);
    expect((await check(two.body.token)).body.result).toBe('failed');
    expect((await call('GET', '/api/user/sessions', { token: mine })).body.data).toHaveLength(2);
    expect((await call('DELETE', `/api/user/sessions/${twoId}`, { token: mine })).status).toBe(404);
    expect((await auditActions(acct.accountId)).map((a) => a.action)).toContain('session.revoked');

    // Another user's session, in this account or another: no such session of mine.
    const adminSession = await currentSessionId(acct.token);
    const otherAccountSession = await currentSessionId(setupAdmin.token);
    for (const id of [adminSession, otherAccountSession]) {
      const r = await call('DELETE', `/api/user/sessions/${id}`, { token: mine });
      expect(r.status).toBe(404);
    }
    expect((await check(acct.token)).body.result).toBe('success');
    expect((await check(setupAdmin.token)).body.result).toBe('success');
    expect((await call('DELETE', '/api/user/sessions/abc', { token: mine })).status).toBe(400);

    const wrong = await call('POST', '/api/user/password', {
      token: mine,
      body: { current: 'not it', password: 'a new password' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('WRONG_PASSWORD');
    expect((await check(u.token)).body.result).toBe('success');
    const short = await call('POST', '/api/user/password', {
      token: mine,
      body: { current: u.password, password: 'x' },
    });
    expect(short.status).toBe(400);

    const changed = await call('POST', '/api/user/password', {
      token: mine,
      body: { current: u.password, password: 'a new password' },
    });
    expect(changed.status).toBe(200);
    expect((await check(u.token)).body.result).toBe('failed');
    expect((await check(mine)).body.result).toBe('success');
    expect((await signInVia(call, u.username, 'a new password')).status).toBe(200);
    expect((await signInVia(call, u.username, u.password)).status).toBe(401);
    expect((await auditActions(acct.accountId)).map((a) => a.action)).toContain('password.changed');
  });

  it('a cookie-authenticated write from another origin is refused and writes nothing', async () => {
    const acct = await signUpVia(call);
    const cookies = { parley_token: acct.token };
    const state = async () => ({
      user: await db()
        .selectFrom('users')
        .select(['second_status', 'status_reason'])
        .where('id', '=', acct.userId)
        .executeTakeFirstOrThrow(),
      periods: (await db().selectFrom('status_periods').select('id').where('user_id', '=', acct.userId).execute())
        .length,
      account: await db()
        .selectFrom('accounts')
        .select('require_2fa')
        .where('id', '=', acct.accountId)
        .executeTakeFirstOrThrow(),
    });
    const before = await state();
    const busy = { status: 'BUSY', reason: 'csrf' };

    const refused: { origin?: string; headers?: Record<string, string> }[] = [
      { origin: 'http://evil.example' },
      { headers: { referer: 'http://evil.example/page' } },
      { headers: { 'sec-fetch-site': 'cross-site' } },
      { origin: 'null' },
      { origin: `${s.url}.evil.example` },
    ];
    for (const o of refused) {
      const r = await call('POST', '/api/online_status/update', { cookies, body: busy, ...o });
      expect(r.status, JSON.stringify(o)).toBe(403);
      expect(r.body.code).toBe('FORBIDDEN');
    }
    const put = await call('PUT', '/api/account/security', {
      cookies,
      origin: 'http://evil.example',
      body: { require_2fa: true },
    });
    expect(put.status).toBe(403);
    const signout = await call('DELETE', '/api/user/signout', { cookies, origin: 'http://evil.example' });
    expect(signout.status).toBe(403);
    expect(await state()).toEqual(before);
    expect((await check(acct.token)).body.result).toBe('success');
    // Reads are not writes.
    expect((await call('GET', '/api/user/sessions', { cookies, origin: 'http://evil.example' })).status).toBe(200);

    const same = await call('POST', '/api/online_status/update', { cookies, origin: s.url, body: busy });
    expect(same.status).toBe(200);
    expect((await state()).user).toEqual({ second_status: 'BUSY', status_reason: 'csrf' });

    // A Bearer token is no ambient credential: no origin needed.
    const bearer = await call('POST', '/api/online_status/update', { token: acct.token, body: { status: 'ONLINE' } });
    expect(bearer.status).toBe(200);
    expect((await state()).user).toEqual({ second_status: '', status_reason: '' });
  });

  it('bad input is refused with 400 and writes nothing', async () => {
    const acct = await signUpVia(call);
    const long = 'x'.repeat(10_000);
    const tables = ['accounts', 'users', 'sessions', 'login_attempts', 'audit_log'] as const;
    const counts = async () => Promise.all(tables.map((t) => countRows(db(), t)));
    const before = await counts();
    const odd = ['[]', '[{"client":"a","password":"b"}]', 'null', '"text"', '42', '{', '{"client":'];
    const signup = { company: 'Bad Co', name: 'Bad', username: `bad-${uniq()}`, email: 'bad@example.com' };
    const user = { name: 'Bad', username: `bad-${uniq()}`, password: 'long enough 1', type: 'agent' };
    const cases: [string, { body?: unknown; raw?: string }][] = [
      ['/api/auth2', { body: { client: long, password: acct.password } }],
      ['/api/auth2', { body: { client: acct.username, password: long } }],
      ['/api/auth2', { body: { client: acct.username, password: 12345678 } }],
      ['/api/auth2', { body: { client: acct.username, password: acct.password, tfa: 'abcdef' } }],
      ['/api/auth2', { body: { client: { $ne: null }, password: acct.password } }],
      ['/api/auth2', { body: { client: acct.username, password: acct.password, type: 'root' } }],
      ['/api/signup', { body: { ...signup, username: long, password: 'long enough 1' } }],
      ['/api/signup', { body: { ...signup, password: 12345678 } }],
      ['/api/signup', { body: { ...signup, password: 'long enough 1', email: 'not an address' } }],
      ['/api/signup', { body: { ...signup, password: 'long enough 1', username: 'a b' } }],
      ['/api/users', { body: { ...user, username: long } }],
      ['/api/users', { body: { ...user, password: 12345678 } }],
      ['/api/users', { body: { ...user, type: 'root' } }],
      ['/api/users', { body: { ...user, permission: ['superuser'] } }],
      ['/api/users', { body: { ...user, rank: 1e9 } }],
      ['/api/users', { body: { ...user, departments: ['x'] } }],
      ['/api/users', { body: { ...user, departments: [999_999] } }],
    ];
    for (const path of ['/api/auth2', '/api/signup', '/api/users']) for (const raw of odd) cases.push([path, { raw }]);

    for (const [path, o] of cases) {
      const r = await call('POST', path, { ...o, token: path === '/api/users' ? acct.token : undefined });
      const what = `${path} ${o.raw ?? JSON.stringify(o.body).slice(0, 80)}`;
      expect(r.status, what).toBe(400);
      expect(r.body?.result, what).toBe('failed');
      expect(r.body?.description, what).toBeTruthy();
      expect(r.cookies, what).toEqual({});
    }
    expect(await counts()).toEqual(before);
  });

  it('admins read the audit log of their own account; agents may not', async () => {
    const acct = await signUpVia(call);
    const agent = await addUserVia(call, acct.token, { username: `aud-${uniq()}`, type: 'agent' });
    expect((await signInVia(call, agent.username, 'not it')).status).toBe(401);
    const { secret } = (
      await call('POST', '/api/user/2fa/setup', { token: agent.token, body: { password: agent.password } })
    ).body;
    await call('POST', '/api/user/2fa/enable', { token: agent.token, body: { code: await totpAt(secret) } });
    const second = await signInVia(call, acct.username, acct.password);
    await call('DELETE', `/api/user/sessions/${await currentSessionId(second.body.token)}`, { token: acct.token });
    await call('PATCH', `/api/users/${agent.id}`, { token: acct.token, body: { rank: 3 } });
    await call('POST', '/api/user/password', {
      token: acct.token,
      body: { current: acct.password, password: 'another password' },
    });

    const r = await call('GET', '/api/audit', { token: acct.token });
    expect(r.status).toBe(200);
    const items: { id: number; actor: string; action: string; ip: string; detail: Record<string, unknown> }[] =
      r.body.data;
    const actions = items.map((i) => i.action);
    for (const a of [
      'account.created',
      'signin.succeeded',
      'signin.failed',
      'tfa.enabled',
      'password.changed',
      'session.revoked',
      'user.created',
      'user.updated',
    ])
      expect(actions, a).toContain(a);
    const failed = items.find((i) => i.action === 'signin.failed')!;
    expect(failed).toMatchObject({ actor: agent.username, ip: '127.0.0.1', detail: { reason: 'password' } });
    expect(items.find((i) => i.action === 'user.updated')).toMatchObject({
      actor: acct.username,
      detail: { user: agent.username, changes: { rank: 3 } },
    });
    // Newest first; only this account's entries; never a secret.
    expect(items.map((i) => i.id)).toEqual([...items.map((i) => i.id)].sort((a, b) => b - a));
    for (const i of items) expect([acct.username, agent.username]).toContain(i.actor);
    for (const secretText of [acct.password, 'another password', agent.password, 'not it', secret])
      expect(r.text).not.toContain(secretText);

    const page = await call('GET', `/api/audit?limit=2&before=${items[1]!.id}`, { token: acct.token });
    expect(page.body.data.map((i: { id: number }) => i.id)).toEqual(items.slice(2, 4).map((i) => i.id));

    const denied = await call('GET', '/api/audit', { token: agent.token });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    expect((await call('GET', '/api/audit')).status).toBe(401);
  });
});
