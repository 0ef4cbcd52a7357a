import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { totpAt } from '../../testing/totp.js';
import { BAD_TFA } from './commands/signIn.js';

/**
 * A TOTP code works once: the time step of the last code a user used is remembered, and a code of that step or
 * an older one is refused, at sign-in and when turning two-factor sign-in on. Enrolling asks for the password.
 */
describe.each(dialects)('AUTH two-factor codes and enrolment (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(() => s?.stop());

  const secretOf = async (userId: number) =>
    (
      await s.handle.db
        .selectFrom('users')
        .select(['totp_secret', 'totp_enabled'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow()
    ).totp_secret;

  /** An agent with two-factor sign-in on, turned on with the code of the current step. */
  async function enrolled() {
    const admin = await signUpVia(call);
    const u = await addUserVia(call, admin.token, { username: `otp-${uniq()}`, type: 'agent' });
    const setup = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } });
    expect(setup.status, setup.text).toBe(200);
    const secret: string = setup.body.secret;
    const code = await totpAt(secret);
    const on = await call('POST', '/api/user/2fa/enable', { token: u.token, body: { code } });
    expect(on.status, on.text).toBe(200);
    return { u, secret, code };
  }

  it('AUTH-05 a TOTP code signs in once; the same code again, or an older one, is refused', async () => {
    const { u, secret, code } = await enrolled();
    // The code that turned it on is used up.
    const reused = await signInVia(call, u.username, u.password, { tfa: code });
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual({ result: 'failed', description: BAD_TFA });
    // The next step's code (accepted for a phone clock a little ahead) signs in, once.
    const next = await totpAt(secret, 30);
    const first = await signInVia(call, u.username, u.password, { tfa: next });
    expect(first.status, first.text).toBe(200);
    const again = await signInVia(call, u.username, u.password, { tfa: next });
    expect(again.status).toBe(401);
    expect(again.body.description).toBe(BAD_TFA);
    expect(again.cookies).toEqual({});
    // After a newer code, an older step's code is refused though it is still within the clock tolerance.
    expect((await signInVia(call, u.username, u.password, { tfa: await totpAt(secret, -30) })).status).toBe(401);
  });

  it('AUTH-05 one code sent twice at the same moment signs in once', async () => {
    const { u, secret } = await enrolled();
    const next = await totpAt(secret, 30);
    const both = await Promise.all([1, 2].map(() => signInVia(call, u.username, u.password, { tfa: next })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('AUTH-05 turning two-factor sign-in on again does not take a code already used', async () => {
    const { u, secret, code } = await enrolled();
    const off = await call('POST', '/api/user/2fa/disable', { token: u.token, body: { password: u.password } });
    expect(off.status).toBe(200);
    const setup = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } });
    expect(setup.status).toBe(200);
    // A new secret, but the step already used stays used: the new secret's code of that step is refused.
    const { totp_last_step } = await s.handle.db
      .selectFrom('users')
      .select('totp_last_step')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(Number(totp_last_step)).toBeGreaterThan(0);
    const stale = await generate({ secret: setup.body.secret, epoch: Number(totp_last_step) * 30 + 15 });
    const refused = await call('POST', '/api/user/2fa/enable', { token: u.token, body: { code: stale } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('TFA_BAD_CODE');
    expect(secret).not.toBe(setup.body.secret);
    expect(code).toMatch(/^\d{6}$/);
    const on = await call('POST', '/api/user/2fa/enable', {
      token: u.token,
      body: { code: await totpAt(setup.body.secret, 30) },
    });
    expect(on.status, on.text).toBe(200);
  });

  it('AUTH-05 enrolling asks for the current password; without it nothing is set up', async () => {
    const admin = await signUpVia(call);
    const u = await addUserVia(call, admin.token, { username: `enrol-${uniq()}`, type: 'agent' });
    const none = await call('POST', '/api/user/2fa/setup', { token: u.token });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ result: 'failed', code: 'VALIDATION_FAILED' });
    const empty = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.description).toBe('Password is required.');
    const wrong = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: 'not it' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      result: 'failed',
      code: 'WRONG_PASSWORD',
      description: 'Your current password is not correct.',
    });
    expect(await secretOf(u.id)).toBeNull();
    const right = await call('POST', '/api/user/2fa/setup', { token: u.token, body: { password: u.password } });
    expect(right.status).toBe(200);
    expect(await secretOf(u.id)).toBe(right.body.secret);
  });
});
