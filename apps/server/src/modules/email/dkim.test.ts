import { createHash, generateKeyPairSync, type KeyObject, randomBytes, verify } from 'node:crypto';
import { EMAIL_STRINGS, newQueueId } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { rawMail } from '../../testing/dovecot.js';
import { smtpSink } from '../../testing/smtp.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { storeMail } from './commands/storeMail.js';
import { parseMail } from './parseMail.js';
import { Secrets } from './secrets.js';

const KEY = randomBytes(32).toString('base64');
const rsa = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits });
const pem = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }).toString();

/** The header fields of a raw mail, unfolded lines kept as sent, and its body. */
function split(raw: string) {
  const at = raw.indexOf('\r\n\r\n');
  const fields = raw
    .slice(0, at)
    .split(/\r\n(?![ \t])/)
    .map((f) => ({ name: f.slice(0, f.indexOf(':')).trim().toLowerCase(), value: f.slice(f.indexOf(':') + 1) }));
  return { fields, body: raw.slice(at + 4) };
}
/** RFC 6376 3.4.2 relaxed header canonicalization of one field. */
const relaxedHeader = (name: string, value: string) =>
  `${name}:${value
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim()}`;
/** RFC 6376 3.4.4 relaxed body canonicalization. */
function relaxedBody(body: string) {
  const lines = body.split('\r\n').map((l) => l.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.length ? `${lines.join('\r\n')}\r\n` : '';
}
const tags = (v: string) =>
  Object.fromEntries(
    v
      .replace(/\r\n[ \t]+/g, '')
      .split(';')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((t) => [t.slice(0, t.indexOf('=')).trim(), t.slice(t.indexOf('=') + 1).replace(/\s+/g, '')]),
  ) as Record<string, string>;

/** Checks a DKIM-Signature (relaxed/relaxed, rsa-sha256) against the public key: its body hash and its b=. */
function checkDkim(raw: string, publicKey: KeyObject) {
  const { fields, body } = split(raw);
  const sig = fields.find((f) => f.name === 'dkim-signature');
  if (!sig) return null;
  const t = tags(sig.value);
  const bh = createHash('sha256').update(relaxedBody(body)).digest('base64');
  // Listed headers from the bottom up, each instance once; the signature itself with b= empty, last.
  const used = new Map<string, number>();
  const signed = t.h!.split(':').flatMap((h) => {
    const name = h.trim().toLowerCase();
    const all = fields.filter((f) => f.name === name);
    const n = used.get(name) ?? 0;
    used.set(name, n + 1);
    const f = all[all.length - 1 - n];
    return f ? [`${relaxedHeader(name, f.value)}\r\n`] : [];
  });
  const self = relaxedHeader('dkim-signature', sig.value).replace(/(^dkim-signature:|;\s*)b=[^;]*/, '$1b=');
  const ok = verify('sha256', Buffer.from(signed.join('') + self), publicKey, Buffer.from(t.b!, 'base64'));
  return { d: t.d, s: t.s, a: t.a, c: t.c, bhMatches: t.bh === bh, verified: ok };
}

describe.each(dialects)('DKIM-signed replies (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let call: Call;
  let admin: SignedUp;
  const keys = rsa(2048);
  const db = () => s.handle.db;
  const input = (address: string, over: Record<string, unknown> = {}) => ({
    address,
    name: 'Acme Help',
    active: false,
    imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'imap secret' },
    smtp: { host: '127.0.0.1', port: sink.port, tls: false, user: 'help' },
    ...over,
  });
  const boxRow = (id: number) =>
    db()
      .selectFrom('mailboxes')
      .select(['dkim_selector', 'dkim_secret', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    sink = await smtpSink();
    s = await startTestServer(dialect, { SECRETS_KEY: KEY });
    call = apiClient(s.url);
    admin = await signUpVia(call);
  });
  afterAll(async () => {
    await s?.stop();
    await sink?.close();
  });

  it('EMAIL a bad DKIM selector or key is a 400 in clear words and changes nothing', async () => {
    const made = await call('POST', '/api/mailboxes', { token: admin.token, body: input(`k-${uniq()}@acme.test`) });
    expect(made.status, made.text).toBe(200);
    const id = made.body.data.id as number;
    const before = await boxRow(id);
    const count = async () => (await call('GET', '/api/mailboxes', { token: admin.token })).body.data.length;
    const n = await count();
    const cases: [string, Record<string, unknown>, string][] = [
      ['selector without a key', { dkimSelector: 'parley' }, EMAIL_STRINGS.dkimKeyRequired],
      ['key without a selector', { dkimPrivateKey: pem(keys.privateKey) }, EMAIL_STRINGS.dkimSelectorRequired],
      ['not a key', { dkimSelector: 'parley', dkimPrivateKey: 'hello' }, EMAIL_STRINGS.dkimBadKey],
      [
        'a public key',
        { dkimSelector: 'parley', dkimPrivateKey: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString() },
        EMAIL_STRINGS.dkimBadKey,
      ],
      [
        'an Ed25519 key',
        { dkimSelector: 'parley', dkimPrivateKey: pem(generateKeyPairSync('ed25519').privateKey) },
        EMAIL_STRINGS.dkimBadKey,
      ],
      [
        'a 512-bit key',
        { dkimSelector: 'parley', dkimPrivateKey: pem(rsa(512).privateKey) },
        EMAIL_STRINGS.dkimShortKey,
      ],
      [
        'a bad selector',
        { dkimSelector: 'no spaces!', dkimPrivateKey: pem(keys.privateKey) },
        EMAIL_STRINGS.dkimBadSelector,
      ],
    ];
    for (const [name, over, words] of cases) {
      const created = await call('POST', '/api/mailboxes', {
        token: admin.token,
        body: input(`c-${uniq()}@acme.test`, over),
      });
      expect(created.status, `${name}: ${created.text}`).toBe(400);
      expect(created.body.description, name).toBe(words);
      const changed = await call('PUT', `/api/mailboxes/${id}`, {
        token: admin.token,
        body: input(made.body.data.address, over),
      });
      expect(changed.status, `${name} (change): ${changed.text}`).toBe(400);
      expect(changed.body.description, name).toBe(words);
    }
    expect(await boxRow(id)).toEqual(before);
    expect(await count()).toBe(n);
  });

  it('EMAIL a reply from a mailbox with a DKIM key carries a DKIM-Signature that verifies (d=, s=, bh=, b=); the key is never answered', async () => {
    const address = `help-${uniq()}@Acme.Test`;
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: input(address, { dkimSelector: 'parley2026', dkimPrivateKey: pem(keys.privateKey) }),
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data).toMatchObject({ dkimSelector: 'parley2026', hasDkimKey: true });
    expect(made.text).not.toContain('PRIVATE KEY');
    const id = made.body.data.id as number;
    const sealed = await boxRow(id);
    expect(sealed.dkim_secret).toMatch(/^v1\./);
    expect(sealed.dkim_secret).not.toContain('PRIVATE');
    const list = await call('GET', '/api/mailboxes', { token: admin.token });
    expect(list.text).not.toContain('PRIVATE KEY');

    // A change without a key keeps the stored one.
    const kept = await call('PUT', `/api/mailboxes/${id}`, {
      token: admin.token,
      body: input(address, { dkimSelector: 'parley2026' }),
    });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.hasDkimKey).toBe(true);
    expect((await boxRow(id)).dkim_secret).toBe(sealed.dkim_secret);

    // A customer's mail to the mailbox (the ingest's fence held by this test), and our reply.
    await db()
      .updateTable('mailboxes')
      .set({ lease_owner: 'dkim-test', lease_until: Date.now() + 3_600_000, uid_validity: '1' })
      .where('id', '=', id)
      .execute();
    let uid = 0;
    const customer = `carl-${uniq()}@customer.example`;
    const ticketFor = async () => {
      const first = `m-${uniq()}@customer.example`;
      uid++;
      await storeMail(
        { db: db(), conversations: conversationRules(), dataDir: s.config.DATA_DIR },
        { id, accountId: admin.accountId, address, departmentId: null },
        { nodeId: 'dkim-test', uidValidity: '1', uid },
        await parseMail(Buffer.from(rawMail({ from: customer, to: address, subject: 'Order', messageId: first }))),
      );
      const t = await db()
        .selectFrom('email_message_ids')
        .select('ticket_id')
        .where('account_id', '=', admin.accountId)
        .where('message_id', '=', first)
        .executeTakeFirstOrThrow();
      return Number(t.ticket_id);
    };
    const replyAndReceive = async () => {
      const ticket = await ticketFor();
      const before = sink.mail.length;
      const r = await call('POST', '/api/ticket/message/reply', {
        token: admin.token,
        body: {
          ticket_id: ticket,
          type: 'text',
          message: 'It  ships\ttoday. \n\nRegards',
          email: customer,
          client_id: newQueueId(),
        },
      });
      expect(r.status, r.text).toBe(200);
      await waitFor(() => sink.mail.length > before, 'the reply at the SMTP server');
      return sink.mail[sink.mail.length - 1]!.raw;
    };

    const signed = checkDkim(await replyAndReceive(), keys.publicKey);
    expect(signed).toEqual({
      d: 'acme.test',
      s: 'parley2026',
      a: 'rsa-sha256',
      c: 'relaxed/relaxed',
      bhMatches: true,
      verified: true,
    });
    // Checked against another key it does not verify: the check above can fail.
    const other = checkDkim(sink.mail[sink.mail.length - 1]!.raw, rsa(1024).publicKey);
    expect(other?.verified).toBe(false);

    // DKIM off: the key is dropped, and the next reply is not signed.
    const off = await call('PUT', `/api/mailboxes/${id}`, { token: admin.token, body: input(address) });
    expect(off.body.data).toMatchObject({ dkimSelector: '', hasDkimKey: false });
    expect((await boxRow(id)).dkim_secret).toBe('');
    expect(checkDkim(await replyAndReceive(), keys.publicKey)).toBeNull();

    // A key sealed under another SECRETS_KEY: the reply is not sent unsigned, it fails in clear words.
    const foreign = new Secrets(randomBytes(32).toString('base64')).seal(admin.accountId, pem(keys.privateKey));
    await db()
      .updateTable('mailboxes')
      .set({ dkim_selector: 'parley2026', dkim_secret: foreign })
      .where('id', '=', id)
      .execute();
    const before = sink.mail.length;
    const r = await call('POST', '/api/ticket/message/reply', {
      token: admin.token,
      body: { ticket_id: await ticketFor(), type: 'text', message: 'Hi', email: customer, client_id: newQueueId() },
    });
    expect(r.status, r.text).toBe(200);
    const failed = await waitFor(async () => {
      const m = await db()
        .selectFrom('messages')
        .select(['email_state', 'email_error'])
        .where('id', '=', Number(r.body.id))
        .executeTakeFirstOrThrow();
      return m.email_state !== 'sending' && m;
    }, 'the reply settled');
    expect(failed).toEqual({ email_state: 'failed', email_error: EMAIL_STRINGS.dkimCannotDecrypt });
    expect(sink.mail.length).toBe(before);
  });
});
