import { TRIAL_DAYS } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { RESET_SENT } from './signup.routes.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const DAY = 24 * 3600 * 1000;

describe.each(dialects)('sign-up, password reset and sign-in hand-off (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  // Without SMTP_URL the server writes each e-mail to its log: this test reads the reset links there.
  const logLines: string[] = [];
  const db = () => s.handle.db;
  const check = (token: string) => call('POST', '/api/auth/check', { token });
  const mailsTo = (email: string) =>
    logLines
      .map((l) => JSON.parse(l) as { msg: string; mail?: { to: string } })
      .filter((l) => l.mail?.to === email && l.msg.startsWith('e-mail not sent'));
  const audit = async (accountId: number) =>
    (await db().selectFrom('audit_log').select('action').where('account_id', '=', accountId).execute()).map(
      (r) => r.action,
    );

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    s = await startTestServer(dialect, {}, { logger });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('PLAN-03 sign-up creates a trial account (account_type 0, plan 0) for 14 days and signs its admin in', async () => {
    const suffix = uniq();
    const input = {
      company: `Trial ${suffix}`,
      name: 'Tess Trial',
      username: `tess-${suffix}`,
      email: `tess-${suffix}@example.com`,
      password: 'trial password 1',
    };
    const before = Date.now();
    const r = await call('POST', '/api/signup', { body: input });
    const after = Date.now();
    expect(r.status).toBe(200);
    expect(r.body.result).toBe('success');
    expect(r.cookies).toEqual({ parley_token: r.body.token, parley_refresh: r.body.refresh_token });

    const c = (await check(r.body.token)).body;
    expect(c).toMatchObject({
      result: 'success',
      account_type: 0,
      plan: 0,
      expired: null,
      type: 'admin',
      adminUsername: input.username,
      adminName: input.name,
      subscription_ends_at: null,
    });
    expect(c.trial_ends_at).toBeGreaterThanOrEqual(before + TRIAL_DAYS * DAY);
    expect(c.trial_ends_at).toBeLessThanOrEqual(after + TRIAL_DAYS * DAY);
    const account = await db()
      .selectFrom('accounts')
      .select(['name', 'account_type', 'plan'])
      .where('id', '=', c.accountId)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ name: input.company, account_type: 0, plan: 0 });
    expect(await audit(c.accountId)).toContain('account.created');
    expect((await signInVia(call, input.username, input.password)).status).toBe(200);
  });

  it('sign-up refuses a taken username in any case, and leaves no account behind', async () => {
    const first = await signUpVia(call);
    const count = async () => (await db().selectFrom('accounts').select('id').execute()).length;
    const before = await count();
    const r = await call('POST', '/api/signup', {
      body: {
        company: 'Copycat',
        name: 'Copy',
        username: first.username.toUpperCase(),
        email: 'copy@example.com',
        password: 'long enough 1',
      },
    });
    expect(r.status).toBe(409);
    expect(r.cookies).toEqual({});
    expect(await count()).toBe(before);
  });

  it('PLAN-14 a trial past its end answers expired "trial"', async () => {
    const a = await signUpVia(call);
    await db()
      .updateTable('accounts')
      .set({ trial_ends_at: Date.now() - 1000 })
      .where('id', '=', a.accountId)
      .execute();
    const c = (await check(a.token)).body;
    expect(c.result).toBe('success');
    expect(c.expired).toBe('trial');
  });

  it('PLAN-15 a paid account past its subscription end answers expired "subscription"', async () => {
    const a = await signUpVia(call);
    const setAccount = (v: { subscription_ends_at: number | null }) =>
      db()
        .updateTable('accounts')
        // A left-over trial end must not matter once the account pays.
        .set({ account_type: 1, plan: 2, trial_ends_at: Date.now() - DAY, ...v })
        .where('id', '=', a.accountId)
        .execute();

    await setAccount({ subscription_ends_at: Date.now() - 1000 });
    const c = (await check(a.token)).body;
    expect(c).toMatchObject({ account_type: 1, plan: 2, expired: 'subscription' });
    await setAccount({ subscription_ends_at: Date.now() + DAY });
    expect((await check(a.token)).body.expired).toBeNull();
    await setAccount({ subscription_ends_at: null });
    expect((await check(a.token)).body.expired).toBeNull();
  });

  it('password reset by e-mail link: same answer for any address, one use, ends every session', async () => {
    const a = await signUpVia(call);
    const other = await signInVia(call, a.username, a.password);
    const nobody = `nobody-${uniq()}@example.com`;

    const known = await call('POST', '/api/password_reset', { body: { email: a.email } });
    const unknown = await call('POST', '/api/password_reset', { body: { email: nobody } });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual({ result: 'success', description: RESET_SENT });
    expect(unknown.body).toEqual(known.body);
    // The mail goes out after the answer (so its time tells nothing about the address).
    await expect.poll(() => mailsTo(a.email).length).toBe(1);
    expect(mailsTo(nobody)).toHaveLength(0);
    const mails = mailsTo(a.email);
    expect(mails).toHaveLength(1);
    const link = /(http\S+password_reset\?token=([A-Za-z0-9_-]+))/.exec(mails[0]?.msg ?? '') ?? [];
    expect(link[1]).toMatch(new RegExp(`^${s.url}/password_reset\\?token=`));
    const token = link[2] ?? 'missing';
    // The mail is the only place the link is ever written.
    expect(logLines.filter((l) => l.includes(token))).toHaveLength(1);

    // A refused new password does not use the link up.
    expect((await call('POST', '/api/password_reset/confirm', { body: { token, password: 'short' } })).status).toBe(
      400,
    );
    const done = await call('POST', '/api/password_reset/confirm', { body: { token, password: 'reset password 1' } });
    expect(done.status).toBe(200);
    expect(done.body.result).toBe('success');
    expect((await check(a.token)).body.result).toBe('failed');
    expect((await check(other.body.token)).body.result).toBe('failed');

    const twice = await call('POST', '/api/password_reset/confirm', { body: { token, password: 'reset password 2' } });
    expect(twice.status).toBe(400);
    expect(twice.body.code).toBe('RESET_LINK_INVALID');
    expect((await signInVia(call, a.username, 'reset password 1')).status).toBe(200);
    expect((await signInVia(call, a.username, a.password)).status).toBe(401);
    expect(await audit(a.accountId)).toEqual(expect.arrayContaining(['password.reset_requested', 'password.reset']));
    for (const l of logLines) expect(l).not.toContain('reset password 1');
  });

  it('password reset: the address matches in any case; an expired or made-up link is refused', async () => {
    const a = await signUpVia(call);
    const r = await call('POST', '/api/password_reset', { body: { email: a.email.toUpperCase() } });
    expect(r.status).toBe(200);
    await expect.poll(() => mailsTo(a.email).length).toBe(1);
    const mails = mailsTo(a.email);
    expect(mails).toHaveLength(1);
    const token = /password_reset\?token=([A-Za-z0-9_-]+)/.exec(mails[0]?.msg ?? '')?.[1] ?? 'missing';

    await db()
      .updateTable('one_time_tokens')
      .set({ expires_at: Date.now() - 1000 })
      .where('user_id', '=', a.userId)
      .execute();
    const expired = await call('POST', '/api/password_reset/confirm', {
      body: { token, password: 'reset password 3' },
    });
    expect(expired.status).toBe(400);
    expect(expired.body.code).toBe('RESET_LINK_INVALID');
    const madeUp = await call('POST', '/api/password_reset/confirm', {
      body: { token: 'a'.repeat(43), password: 'reset password 3' },
    });
    expect(madeUp.status).toBe(400);
    expect((await check(a.token)).body.result).toBe('success');
    expect((await signInVia(call, a.username, a.password)).status).toBe(200);
  });

  it('AUTH-12 sign-in hand-off: a one-time token from a signed-in user opens a session once', async () => {
    const a = await signUpVia(call);
    expect((await call('POST', '/api/oauth/token')).status).toBe(401);
    const issued = await call('POST', '/api/oauth/token', { token: a.token });
    expect(issued.status).toBe(200);
    const handoff: string = issued.body.token;
    expect(handoff).toBeTruthy();
    expect(handoff).not.toBe(a.token);

    // A hand-off token is no reset link, and trying it as one does not use it up.
    const asReset = await call('POST', '/api/password_reset/confirm', {
      body: { token: handoff, password: 'reset password 4' },
    });
    expect(asReset.status).toBe(400);

    const v = await call('POST', '/api/oauth/verify', { body: { token: handoff } });
    expect(v.status).toBe(200);
    expect(v.body.result).toBe('success');
    expect(v.body.token).toBeTruthy();
    expect(v.cookies.parley_token).toBe(v.body.token);
    const c = (await check(v.body.token)).body;
    expect(c).toMatchObject({ result: 'success', userId: a.userId, accountId: a.accountId });
    expect((await call('GET', '/api/user/sessions', { token: a.token })).body.data).toHaveLength(2);

    const again = await call('POST', '/api/oauth/verify', { body: { token: handoff } });
    expect(again.status).toBe(401);
    expect(again.body.result).toBe('failed');
    expect(again.body.token).toBeUndefined();

    const late = (await call('POST', '/api/oauth/token', { token: a.token })).body.token;
    await db()
      .updateTable('one_time_tokens')
      .set({ expires_at: Date.now() - 1000 })
      .where('user_id', '=', a.userId)
      .execute();
    expect((await call('POST', '/api/oauth/verify', { body: { token: late } })).status).toBe(401);
    expect((await call('POST', '/api/oauth/verify', { body: { token: 'b'.repeat(43) } })).status).toBe(401);
  });
});
