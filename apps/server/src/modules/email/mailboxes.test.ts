import { randomBytes } from 'node:crypto';
import { EMAIL_STRINGS } from '@parley/contracts';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { type Dovecot, hasDovecot, startDovecot } from '../../testing/dovecot.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { Secrets } from './secrets.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const KEY = randomBytes(32).toString('base64');

describe('mailbox secrets', () => {
  it('EMAIL seals with AES-256-GCM: opens under its key and account only', () => {
    const s = new Secrets(KEY);
    const sealed = s.seal(7, 'hunter2');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('hunter2');
    expect(s.seal(7, 'hunter2')).not.toBe(sealed);
    expect(s.open(7, sealed)).toBe('hunter2');
    expect(s.open(8, sealed)).toBeNull();
    expect(new Secrets(randomBytes(32).toString('base64')).open(7, sealed)).toBeNull();
    expect(s.open(7, `${sealed.slice(0, -2)}xx`)).toBeNull();
  });
});

describe('e-mail settings', () => {
  it('EMAIL SECRETS_KEY must be 32 bytes in base64; EMAIL_POLL_MS defaults to a minute', () => {
    expect(loadConfig({ SECRETS_KEY: KEY }).SECRETS_KEY).toBe(KEY);
    expect(loadConfig({}).SECRETS_KEY).toBeUndefined();
    expect(loadConfig({ SECRETS_KEY: '' }).SECRETS_KEY).toBeUndefined();
    expect(loadConfig({}).EMAIL_POLL_MS).toBe(60_000);
    for (const bad of ['short', randomBytes(16).toString('base64'), `${KEY}!`])
      expect(() => loadConfig({ SECRETS_KEY: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ SECRETS_KEY: 'short' })).toThrow(
      'Invalid configuration: SECRETS_KEY must be 32 bytes in base64 (openssl rand -base64 32)',
    );
  });
});

describe.each(dialects)('mailboxes (%s)', (dialect) => {
  let s: Server;
  let bare: Server;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { token: string };
  let imap: Dovecot | null = null;
  let smtp: SMTPServer;
  let smtpPort = 0;
  const db = () => s.handle.db;
  const snapshot = async () => ({
    mailboxes: await db().selectFrom('mailboxes').selectAll().orderBy('id').execute(),
    audit: (await db().selectFrom('audit_log').select('id').execute()).length,
  });

  beforeAll(async () => {
    s = await startTestServer(dialect, { SECRETS_KEY: KEY });
    bare = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    if (hasDovecot) imap = await startDovecot(['box@example.test']);
    smtp = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      onAuth(auth, _session, done) {
        if (auth.password === 'smtp secret') return done(null, { user: auth.username });
        done(Object.assign(new Error('5.7.8 Bad credentials, try again'), { responseCode: 535 }));
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    smtpPort = (smtp.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await imap?.stop();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
    await s?.stop();
    await bare?.stop();
  });

  const input = (over: Record<string, unknown> = {}) => ({
    address: `support-${uniq()}@example.test`,
    name: 'Acme Support',
    departmentId: null,
    active: false,
    imap: { host: '127.0.0.1', port: imap?.port ?? 1, tls: false, user: 'box@example.test', password: 'secret' },
    smtp: { host: '127.0.0.1', port: smtpPort, tls: false, user: 'box@example.test', password: 'smtp secret' },
    ...over,
  });

  it('EMAIL admins connect, list, change and remove mailboxes; passwords are never answered', async () => {
    const dep = await call('POST', '/api/departments', { token: a.token, body: { name: `mail-${uniq()}` } });
    const made = await call('POST', '/api/mailboxes', {
      token: a.token,
      body: input({ departmentId: dep.body.data.id }),
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data).toMatchObject({
      name: 'Acme Support',
      departmentId: dep.body.data.id,
      active: false,
      imap: { host: '127.0.0.1', tls: false, user: 'box@example.test', hasPassword: true },
      smtp: { hasPassword: true },
      lastError: null,
    });
    expect(made.text).not.toContain('secret');
    const id = made.body.data.id as number;

    const list = await call('GET', '/api/mailboxes', { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ configured: true, limit: 5 });
    expect(list.body.data.map((m: { id: number }) => m.id)).toContain(id);
    expect(list.text).not.toContain('secret');

    // Stored sealed: the password is not in the row.
    const row = await db().selectFrom('mailboxes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.imap_secret).toMatch(/^v1\./);
    expect(Object.values(row).filter((v) => typeof v === 'string' && v.includes('secret'))).toEqual([]);
    expect(new Secrets(KEY).open(a.accountId, row.imap_secret)).toBe('secret');

    // A change without passwords keeps them.
    const changed = await call('PUT', `/api/mailboxes/${id}`, {
      token: a.token,
      body: input({
        address: made.body.data.address,
        name: 'Acme Help',
        imap: { ...input().imap, password: undefined },
        smtp: { ...input().smtp, password: '' },
      }),
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toMatchObject({ name: 'Acme Help', departmentId: null, imap: { hasPassword: true } });
    const after = await db().selectFrom('mailboxes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.imap_secret).toBe(row.imap_secret);
    expect(after.smtp_secret).toBe(row.smtp_secret);

    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('account_id', '=', a.accountId)
      .where('action', 'like', 'mailbox.%')
      .execute();
    expect(audit.map((x) => x.action)).toEqual(['mailbox.created', 'mailbox.updated']);
    expect(JSON.stringify(audit)).not.toContain('secret');

    // Agents may not.
    expect((await call('GET', '/api/mailboxes', { token: agent.token })).status).toBe(403);
    expect((await call('POST', '/api/mailboxes', { token: agent.token, body: input() })).status).toBe(403);

    const gone = await call('DELETE', `/api/mailboxes/${id}`, { token: a.token });
    expect(gone.status, gone.text).toBe(200);
    expect(
      (await call('GET', '/api/mailboxes', { token: a.token })).body.data.map((m: { id: number }) => m.id),
    ).not.toContain(id);
  });

  it("EMAIL another account's mailbox is a 404 to every call and stays as it was", async () => {
    const made = await call('POST', '/api/mailboxes', { token: a.token, body: input() });
    const id = made.body.data.id as number;
    const before = await snapshot();
    for (const [method, path, body] of [
      ['PUT', `/api/mailboxes/${id}`, input()],
      ['DELETE', `/api/mailboxes/${id}`, undefined],
      ['POST', `/api/mailboxes/${id}/test`, undefined],
    ] as const) {
      const r = await call(method, path, { token: b.token, body });
      expect(r.status, `${method} ${path} ${r.text}`).toBe(404);
      expect(r.body.description).toBe(EMAIL_STRINGS.notFound);
    }
    const list = await call('GET', '/api/mailboxes', { token: b.token });
    expect(list.body.data).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('EMAIL bad input is a clear 4xx and changes nothing', async () => {
    const made = await call('POST', '/api/mailboxes', { token: a.token, body: input() });
    const id = made.body.data.id as number;
    const otherDep = await call('POST', '/api/departments', { token: b.token, body: { name: `b-${uniq()}` } });
    const before = await snapshot();
    const cases: [string, Record<string, unknown>, number, string][] = [
      ['bad address', input({ address: 'not-an-address' }), 400, 'Please check the email address. not-an-address'],
      ['port 0', input({ imap: { ...input().imap, port: 0 } }), 400, EMAIL_STRINGS.badPort],
      ['port 70000', input({ smtp: { ...input().smtp, port: 70000 } }), 400, EMAIL_STRINGS.badPort],
      ['port as text', input({ imap: { ...input().imap, port: 'x' } }), 400, EMAIL_STRINGS.badPort],
      ['no host', input({ imap: { ...input().imap, host: '' } }), 400, EMAIL_STRINGS.hostRequired],
      [
        "another account's department",
        input({ departmentId: otherDep.body.data.id }),
        400,
        EMAIL_STRINGS.unknownDepartment,
      ],
      ['no IMAP password', input({ imap: { ...input().imap, password: '' } }), 400, EMAIL_STRINGS.imapPasswordRequired],
      [
        'address taken',
        input({ address: made.body.data.address.toUpperCase() }),
        409,
        EMAIL_STRINGS.addressTaken(made.body.data.address.toUpperCase()),
      ],
    ];
    for (const [name, body, status, description] of cases) {
      const r = await call('POST', '/api/mailboxes', { token: a.token, body });
      expect(r.status, `${name}: ${r.text}`).toBe(status);
      expect(r.body.description, name).toBe(description);
      if (name !== 'no IMAP password' && name !== 'address taken') {
        const u = await call('PUT', `/api/mailboxes/${id}`, { token: a.token, body });
        expect(u.status, `${name} (change): ${u.text}`).toBe(status);
      }
    }
    expect((await call('PUT', '/api/mailboxes/abc', { token: a.token, body: input() })).status).toBe(400);
    expect((await call('DELETE', '/api/mailboxes/0', { token: a.token })).status).toBe(400);
    expect((await call('DELETE', '/api/mailboxes/99999999999', { token: a.token })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it('EMAIL a plan allows its number of mailboxes (Starter and trial 5, Basic 10, Pro 15, Enterprise unlimited)', async () => {
    const c = await signUpVia(call);
    for (let i = 0; i < 5; i++)
      expect((await call('POST', '/api/mailboxes', { token: c.token, body: input() })).status).toBe(200);
    const over = await call('POST', '/api/mailboxes', { token: c.token, body: input() });
    expect(over.status).toBe(403);
    expect(over.body.description).toBe(EMAIL_STRINGS.planLimit(5, 0));
    // PLAN-24: the plan by name and the way up.
    expect(over.body.description).toBe(
      'Your trial allows 5 e-mail mailboxes. Basic allows 10: upgrade on the Plans page.',
    );
    await db().updateTable('accounts').set({ plan: 2 }).where('id', '=', c.accountId).execute();
    expect((await call('GET', '/api/mailboxes', { token: c.token })).body.limit).toBe(10);
    expect((await call('POST', '/api/mailboxes', { token: c.token, body: input() })).status).toBe(200);
    await db().updateTable('accounts').set({ plan: 4 }).where('id', '=', c.accountId).execute();
    expect((await call('GET', '/api/mailboxes', { token: c.token })).body.limit).toBeNull();
    for (let i = 0; i < 10; i++)
      expect((await call('POST', '/api/mailboxes', { token: c.token, body: input() })).status).toBe(200);
    expect((await call('GET', '/api/mailboxes', { token: c.token })).body.data).toHaveLength(16);
  });

  it('EMAIL without SECRETS_KEY the list says so and writes answer 409, storing nothing', async () => {
    const bcall = apiClient(bare.url);
    const c = await signUpVia(bcall);
    const list = await bcall('GET', '/api/mailboxes', { token: c.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ configured: false, description: EMAIL_STRINGS.notConfigured, data: [] });
    const made = await bcall('POST', '/api/mailboxes', { token: c.token, body: input() });
    expect(made.status).toBe(409);
    expect(made.body.description).toBe(EMAIL_STRINGS.notConfigured);
    expect((await bcall('PUT', '/api/mailboxes/1', { token: c.token, body: input() })).status).toBe(409);
    expect((await bcall('POST', '/api/mailboxes/1/test', { token: c.token })).status).toBe(409);
    expect(await bare.handle.db.selectFrom('mailboxes').select('id').execute()).toEqual([]);
  });

  it.skipIf(!hasDovecot)('EMAIL the connection test answers each side in the server own words', async () => {
    const good = await call('POST', '/api/mailboxes', { token: a.token, body: input() });
    const ok = await call('POST', `/api/mailboxes/${good.body.data.id}/test`, { token: a.token });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.imap.ok).toBe(true);
    expect(ok.body.smtp).toEqual({ ok: true, response: EMAIL_STRINGS.testOk });

    const bad = await call('POST', '/api/mailboxes', {
      token: a.token,
      body: input({
        imap: { ...input().imap, password: 'wrong' },
        smtp: { ...input().smtp, password: 'wrong' },
      }),
    });
    const failed = await call('POST', `/api/mailboxes/${bad.body.data.id}/test`, { token: a.token });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body.imap.ok).toBe(false);
    expect(failed.body.imap.response).toMatch(/Authentication failed/i);
    expect(failed.body.smtp.ok).toBe(false);
    expect(failed.body.smtp.response).toContain('5.7.8 Bad credentials, try again');
    expect(failed.text).not.toContain('wrong');
  });
});
