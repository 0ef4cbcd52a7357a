import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import type { DB } from '../../platform/db/db.js';
import { addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { smtpSink } from '../../testing/smtp.js';
import { createWorkspaceVia, dialects, startTestServer } from '../../testing/support.js';
import { RESET_SENT, RESET_TOO_MANY, SIGNUP_DISABLED, SIGNUP_TOO_MANY } from './signup.routes.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const HOUR = 3600_000;

const count = async (db: DB, table: 'accounts' | 'users' | 'sessions' | 'one_time_tokens') =>
  Number((await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);

const signupBody = (suffix = uniq()) => ({
  company: `Burst ${suffix}`,
  name: `Burst ${suffix}`,
  username: `burst-${suffix}`,
  email: `burst-${suffix}@example.com`,
  password: 'burst password 1',
});

/** The hits move an hour and a minute into the past: the window has passed. */
const passTheHour = (db: DB) =>
  db
    .updateTable('rate_limit_hits')
    .set({ created_at: sql`created_at - ${HOUR + 60_000}` })
    .execute();

describe.each(dialects)('sign-up and password-reset limits (%s)', (dialect) => {
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  const mailsTo = (email: string) => sink.mail.filter((m) => m.to.includes(email)).length;

  beforeAll(async () => {
    // A slow mail server: a reset answer that waited for the mail would take this long.
    sink = await smtpSink({ delayMs: 2500 });
    s = await startTestServer(dialect, {
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      SIGNUP_LIMIT_PER_IP: '5',
      RESET_LIMIT_PER_ADDRESS: '3',
      RESET_LIMIT_PER_IP: '10',
    });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
    await sink?.close();
  });

  it('30 sign-ups at once from one IP: 5 accounts, the rest 429 with a sentence and nothing created', async () => {
    await db().deleteFrom('rate_limit_hits').execute();
    const before = { accounts: await count(db(), 'accounts'), users: await count(db(), 'users') };
    const answers = await Promise.all(
      // A made-up X-Forwarded-For does not make another IP (TRUST_PROXY is off).
      Array.from({ length: 30 }, (_, i) =>
        call('POST', '/api/signup', { body: signupBody(), headers: { 'x-forwarded-for': `198.51.100.${i}` } }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(25);
    for (const r of refused) {
      expect(r.body).toEqual({ result: 'failed', code: 'RATE_LIMITED', description: SIGNUP_TOO_MANY });
      expect(r.cookies).toEqual({});
    }
    expect(await count(db(), 'accounts')).toBe(before.accounts + 5);
    expect(await count(db(), 'users')).toBe(before.users + 5);

    // An hour later the IP may sign up again.
    await passTheHour(db());
    expect((await call('POST', '/api/signup', { body: signupBody() })).status).toBe(200);
  });

  it('a taken username is answered only for an otherwise valid form, and every probe counts', async () => {
    await db().deleteFrom('rate_limit_hits').execute();
    const first = await signUpVia(call);
    const probe = (over: Record<string, string> = {}) =>
      call('POST', '/api/signup', { body: { ...signupBody(), username: first.username, ...over } });
    // Another field wrong: the form's own error, and no word about the username.
    const badEmail = await probe({ email: 'not an address' });
    expect(badEmail.status).toBe(400);
    expect(badEmail.text).not.toContain('taken');
    const short = await probe({ password: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).not.toContain('taken');

    for (let i = 0; i < 4; i++) expect((await probe()).status).toBe(409);
    // One sign-up and four probes: the sixth call of the hour is refused whatever the username.
    const sixth = await probe();
    expect(sixth.status).toBe(429);
    expect(sixth.body.description).toBe(SIGNUP_TOO_MANY);
    expect((await call('POST', '/api/signup', { body: signupBody() })).status).toBe(429);
  });

  it('50 reset requests for one address at once: 3 mails; an unknown address gets the very same answers', async () => {
    await db().deleteFrom('rate_limit_hits').execute();
    const a = await signUpVia(call);
    const nobody = `nobody-${uniq()}@example.com`;
    const tokensBefore = await count(db(), 'one_time_tokens');
    const burst = async (email: string) => {
      // The per-IP budget is not what this part is about: each burst comes after a fresh hour.
      await passTheHour(db());
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => call('POST', '/api/password_reset', { body: { email } })),
      );
      return answers.map((r) => [r.status, r.body]).sort((x, y) => Number(x[0]) - Number(y[0]));
    };
    const known = await burst(a.email.toUpperCase());
    const unknown = await burst(nobody);
    expect(unknown).toEqual(known);
    expect(known.filter(([st]) => st === 200)).toHaveLength(3);
    expect(known.filter(([st]) => st === 429)).toHaveLength(47);
    expect(known[0]![1]).toEqual({ result: 'success', description: RESET_SENT });
    expect(known[49]![1]).toEqual({ result: 'failed', code: 'RATE_LIMITED', description: RESET_TOO_MANY });
    await expect.poll(() => mailsTo(a.email), { timeout: 15_000 }).toBe(3);
    expect(await count(db(), 'one_time_tokens')).toBe(tokensBefore + 3);
    expect(mailsTo(nobody)).toBe(0);
  });

  it('reset requests: 10 per IP an hour whatever the addresses', async () => {
    await db().deleteFrom('rate_limit_hits').execute();
    for (let i = 0; i < 10; i++) {
      const r = await call('POST', '/api/password_reset', { body: { email: `ip-${i}-${uniq()}@example.com` } });
      expect(r.status).toBe(200);
    }
    const eleventh = await call('POST', '/api/password_reset', { body: { email: `ip-11-${uniq()}@example.com` } });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.description).toBe(RESET_TOO_MANY);
  });

  it('the reset answer does not wait for the mail: a known address answers as fast as an unknown one', async () => {
    await db().deleteFrom('rate_limit_hits').execute();
    const a = await signUpVia(call);
    const timed = async (email: string) => {
      const t0 = performance.now();
      const r = await call('POST', '/api/password_reset', { body: { email } });
      expect(r.status).toBe(200);
      return performance.now() - t0;
    };
    const unknown = await timed(`nobody-${uniq()}@example.com`);
    const known = await timed(a.email);
    // The mail server holds each message 2.5 s: the answer came before the mail was taken.
    expect(mailsTo(a.email), `known ${known} ms, unknown ${unknown} ms`).toBe(0);
    expect(known).toBeLessThan(2500);
    await expect.poll(() => mailsTo(a.email), { timeout: 10_000 }).toBe(1);
  });
});

describe.each(dialects)('SIGNUP_ENABLED=false (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  beforeAll(async () => {
    s = await startTestServer(dialect, { SIGNUP_ENABLED: 'false' });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('public sign-up answers 403 with a sentence and creates nothing; first run and admins still add people', async () => {
    expect((await call('GET', '/api/setup')).body).toEqual({ needed: true, signup: false });
    const refused = await call('POST', '/api/signup', { body: signupBody() });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ result: 'failed', code: 'SIGNUP_DISABLED', description: SIGNUP_DISABLED });
    expect(refused.cookies).toEqual({});
    expect(await count(s.handle.db, 'accounts')).toBe(0);

    const admin = await createWorkspaceVia(s.url);
    expect((await call('GET', '/api/setup')).body).toEqual({ needed: false, signup: false });
    const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent' });
    expect((await signInVia(call, agent.username, agent.password)).status).toBe(200);
    expect((await call('POST', '/api/signup', { body: signupBody() })).status).toBe(403);
    expect(await count(s.handle.db, 'accounts')).toBe(1);
  });
});

describe('SIGNUP_ENABLED by default', () => {
  it('the setup answer says sign-up is on', async () => {
    const s = await startTestServer('sqlite');
    try {
      expect((await apiClient(s.url)('GET', '/api/setup')).body).toEqual({ needed: true, signup: true });
    } finally {
      await s.stop();
    }
  });
});

describe('the settings of sign-up, reset limits and links', () => {
  const NAMES = [
    'PUBLIC_URL',
    'SIGNUP_ENABLED',
    'SIGNUP_LIMIT_PER_IP',
    'RESET_LIMIT_PER_ADDRESS',
    'RESET_LIMIT_PER_IP',
  ];

  it('default to the documented limits, and a bad value is one error naming the variable', () => {
    expect(loadConfig({})).toMatchObject({
      SIGNUP_ENABLED: true,
      SIGNUP_LIMIT_PER_IP: 5,
      RESET_LIMIT_PER_ADDRESS: 3,
      RESET_LIMIT_PER_IP: 10,
    });
    expect(loadConfig({ SIGNUP_ENABLED: 'false' }).SIGNUP_ENABLED).toBe(false);
    for (const [name, value] of [
      ['SIGNUP_ENABLED', 'no'],
      ['SIGNUP_LIMIT_PER_IP', '0'],
      ['RESET_LIMIT_PER_ADDRESS', 'many'],
      ['RESET_LIMIT_PER_IP', '-1'],
    ]) {
      expect(() => loadConfig({ [name!]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name!]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
    }
  });

  it('are in the README table and in .env.example', () => {
    const root = path.resolve(import.meta.dirname, '../../../../..');
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    const env: Record<string, string> = {};
    for (const line of example.split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line);
      if (m) env[m[1]!] = m[2]!;
    }
    for (const name of NAMES) {
      expect(readme, name).toMatch(new RegExp(`^\\| \`${name}\` +\\|`, 'm'));
      expect(env, name).toHaveProperty(name);
    }
    // The example's values load, and are the defaults.
    const picked = Object.fromEntries(NAMES.map((n) => [n, env[n]]));
    expect(loadConfig(picked)).toMatchObject(loadConfig({}));
  });
});
