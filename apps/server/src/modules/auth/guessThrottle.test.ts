import { SIGNIN_MAX_FAILURES, TOO_MANY_ATTEMPTS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { totpAt, wrongTotp } from '../../testing/totp.js';
import { TOO_MANY_GUESSES } from './throttle.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('guesses of a signed-in user at their password or code (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let adminToken: string;
  const db = () => s.handle.db;
  const userRow = (id: number) =>
    db()
      .selectFrom('users')
      .select(['password_hash', 'totp_secret', 'totp_enabled'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const liveSessions = async (id: number) =>
    (await db().selectFrom('sessions').select('id').where('user_id', '=', id).where('revoked_at', 'is', null).execute())
      .length;
  const newUser = () => addUserVia(call, adminToken, { username: `guess-${uniq()}`, type: 'agent' });

  /** SIGNIN_MAX_FAILURES wrong guesses, each checked (400); then the right value, refused unchecked (429). */
  async function exhaust(send: (right: boolean) => Promise<{ status: number; body: { description?: string } }>) {
    for (let i = 0; i < SIGNIN_MAX_FAILURES; i++) expect((await send(false)).status).toBe(400);
    const refused = await send(true);
    expect(refused.status).toBe(429);
    expect(refused.body.description).toBe(TOO_MANY_GUESSES);
  }

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    adminToken = (await signUpVia(call)).token;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('changing the password: the guess after the limit is refused with the right password, nothing changed', async () => {
    const u = await newUser();
    const before = await userRow(u.id);
    const sessions = await liveSessions(u.id);
    await exhaust((right) =>
      call('POST', '/api/user/password', {
        token: u.token,
        body: { current: right ? u.password : 'not the password', password: 'a brand new password 1' },
      }),
    );
    expect((await userRow(u.id)).password_hash).toBe(before.password_hash);
    expect(await liveSessions(u.id)).toBe(sessions);
    // The guesses count with sign-in's: the password cannot be tried there either until the window passes.
    const signIn = await signInVia(call, u.username, u.password);
    expect(signIn.status).toBe(429);
    expect(signIn.body.description).toBe(TOO_MANY_ATTEMPTS);
  });

  it('a right guess is not counted: wrong guesses short of the limit leave the right password working', async () => {
    const u = await newUser();
    const change = (current: string) =>
      call('POST', '/api/user/password', { token: u.token, body: { current, password: u.password } });
    for (let i = 0; i < SIGNIN_MAX_FAILURES - 1; i++) expect((await change('not the password')).status).toBe(400);
    expect((await change(u.password)).status).toBe(200);
    expect((await change(u.password)).status).toBe(200);
  });

  it('setting up two-factor sign-in: refused after the limit with the right password, no secret stored', async () => {
    const u = await newUser();
    await exhaust((right) =>
      call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: right ? u.password : 'not it' } }),
    );
    const row = await userRow(u.id);
    expect(row.totp_secret).toBeNull();
    expect(Number(row.totp_enabled)).toBe(0);
  });

  it('switching two-factor sign-in on: refused after the limit with the right code, still off', async () => {
    const u = await newUser();
    const setup = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } });
    expect(setup.status).toBe(200);
    const secret: string = setup.body.secret;
    await exhaust(async (right) =>
      call('POST', '/api/user/2fa/enable', {
        token: u.token,
        body: { code: right ? await totpAt(secret) : await wrongTotp(secret) },
      }),
    );
    expect(Number((await userRow(u.id)).totp_enabled)).toBe(0);
  });

  it('switching two-factor sign-in off: refused after the limit with the right password, still on', async () => {
    const u = await newUser();
    const setup = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } });
    const on = await call('POST', '/api/user/2fa/enable', {
      token: u.token,
      body: { code: await totpAt(setup.body.secret) },
    });
    expect(on.status).toBe(200);
    await exhaust((right) =>
      call('POST', '/api/user/2fa/disable', { token: u.token, body: { password: right ? u.password : 'not it' } }),
    );
    expect(await userRow(u.id)).toMatchObject({ totp_secret: setup.body.secret });
    expect(Number((await userRow(u.id)).totp_enabled)).toBe(1);
  });
});
