import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EMAIL_STRINGS, newQueueId } from '@parley/contracts';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { rawMail } from '../../testing/dovecot.js';
import { rsaCertificate } from '../../testing/samlIdp.js';
import { smtpSink } from '../../testing/smtp.js';
import { dialects, startTestServer, tempDir } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { storeMail } from './commands/storeMail.js';
import { parseMail } from './parseMail.js';

const KEY = randomBytes(32).toString('base64');
const DOMAIN = 'in.parley.test';
const MAX_BYTES = 60_000;

describe.each(dialects)('e-mail in by forwarding to the inbound SMTP listener (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let boxA: { id: number; address: string; forwardingAddress: string };
  let boxB: { id: number; address: string; forwardingAddress: string };
  const db = () => s.handle.db;

  /** A mailbox of the account, active (its IMAP server is nowhere: mail comes by forwarding only here). */
  async function mailbox(admin: SignedUp) {
    const address = `help-${uniq()}@acme.test`;
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: {
        address,
        active: true,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'imap secret' },
        smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'help' },
      },
    });
    expect(made.status, made.text).toBe(200);
    return made.body.data as { id: number; address: string; forwardingAddress: string };
  }

  beforeAll(async () => {
    s = await startTestServer(dialect, {
      SECRETS_KEY: KEY,
      INBOUND_SMTP_PORT: '0',
      INBOUND_SMTP_DOMAIN: DOMAIN,
      INBOUND_SMTP_MAX_BYTES: String(MAX_BYTES),
      EMAIL_POLL_MS: '3600000',
    });
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    boxA = await mailbox(a);
    boxB = await mailbox(b);
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** A forwarding server: plain SMTP to the listener on loopback. */
  const forward = (o: { to: string | string[]; raw: string; from?: string }) => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: s.inbound!.port, secure: false, ignoreTLS: true });
    const to = Array.isArray(o.to) ? o.to : [o.to];
    return t.sendMail({ envelope: { from: o.from ?? 'forwarder@acme.test', to }, raw: o.raw }).finally(() => t.close());
  };
  const ticketOf = (accountId: number, messageId: string) =>
    db()
      .selectFrom('email_message_ids as e')
      .innerJoin('tickets as t', 't.id', 'e.ticket_id')
      .select(['t.id', 't.title', 't.channel', 't.mailbox_id', 't.receiver_email', 'e.message_row_id'])
      .where('e.account_id', '=', accountId)
      .where('e.message_id', '=', messageId)
      .executeTakeFirst();
  const messagesIn = (accountId: number, ticketId: number) =>
    db()
      .selectFrom('messages')
      .select(['id', 'message', 'sender'])
      .where('account_id', '=', accountId)
      .where('ticket_id', '=', ticketId)
      .where('sender', '=', 'visitor')
      .execute();

  it('EMAIL each mailbox shows its forwarding address while the listener is on', async () => {
    expect(boxA.forwardingAddress).toMatch(new RegExp(`^mbx-${boxA.id}-[0-9a-f]{20}@${DOMAIN.replace(/\./g, '\\.')}$`));
    expect(boxB.forwardingAddress).not.toBe(boxA.forwardingAddress);
    const list = await call('GET', '/api/mailboxes', { token: a.token });
    expect(list.body.data).toEqual([
      expect.objectContaining({ id: boxA.id, forwardingAddress: boxA.forwardingAddress }),
    ]);
  });

  it('EMAIL a forwarded mail becomes a ticket, committed before 250; a reply by In-Reply-To joins it', async () => {
    const id = `first-${uniq()}@customer.example`;
    const sent = await forward({
      to: boxA.forwardingAddress,
      raw: rawMail({
        from: 'Carl Client <carl@customer.example>',
        to: boxA.address,
        subject: 'Where is my parcel?',
        messageId: id,
        text: 'It has not arrived.',
      }),
    });
    expect(sent.response).toMatch(/^250/);
    // No wait: the 250 came after the commit.
    const t = await ticketOf(a.accountId, id);
    if (!t) throw new Error('no ticket for the forwarded mail');
    expect(t).toMatchObject({
      title: 'Where is my parcel?',
      channel: 'EMAIL',
      mailbox_id: boxA.id,
      receiver_email: boxA.address,
    });
    expect((await messagesIn(a.accountId, Number(t.id)))[0]!.message).toContain('It has not arrived.');

    const answer = `second-${uniq()}@customer.example`;
    await forward({
      to: boxA.forwardingAddress,
      raw: rawMail({
        from: 'Carl Client <carl@customer.example>',
        to: boxA.address,
        subject: 'Any news?',
        messageId: answer,
        inReplyTo: id,
      }),
    });
    expect((await ticketOf(a.accountId, answer))?.id).toBe(t!.id);
    expect(await messagesIn(a.accountId, Number(t!.id))).toHaveLength(2);
  });

  it('EMAIL an unknown forwarding address is refused with 550 at RCPT, another account reached by a guessed id is too', async () => {
    const token = /-([0-9a-f]{20})@/.exec(boxA.forwardingAddress)?.[1] ?? '';
    expect(token).toHaveLength(20);
    const refused = [
      `mbx-${boxA.id}-${'0'.repeat(20)}@${DOMAIN}`,
      // Account B's mailbox id with A's token: the token is what opens it.
      `mbx-${boxB.id}-${token}@${DOMAIN}`,
      `mbx-${boxA.id}@${DOMAIN}`,
      `mbx-${boxA.id}-${token}@elsewhere.test`,
      `nobody@${DOMAIN}`,
    ];
    for (const to of refused) {
      const id = `guess-${uniq()}@customer.example`;
      const err = await forward({
        to,
        raw: rawMail({ from: 'eve@customer.example', to, subject: 'Guess', messageId: id }),
      }).catch((e: { responseCode?: number; command?: string }) => e);
      expect(err, to).toMatchObject({ responseCode: 550, command: 'RCPT TO' });
      expect(await ticketOf(a.accountId, id)).toBeUndefined();
      expect(await ticketOf(b.accountId, id)).toBeUndefined();
    }
  });

  it('EMAIL a mail over INBOUND_SMTP_MAX_BYTES is refused with 552 at DATA and nothing is stored', async () => {
    const id = `big-${uniq()}@customer.example`;
    const err = await forward({
      to: boxA.forwardingAddress,
      raw: rawMail({
        from: 'carl@customer.example',
        to: boxA.address,
        subject: 'Big',
        messageId: id,
        attachment: { name: 'big.bin', type: 'application/octet-stream', content: randomBytes(MAX_BYTES) },
      }),
    }).catch((e: { responseCode?: number; command?: string }) => e);
    expect(err).toMatchObject({ responseCode: 552, command: 'DATA' });
    expect(await ticketOf(a.accountId, id)).toBeUndefined();
  });

  it('EMAIL the same Message-ID twice, and by IMAP then by forwarding, makes one message', async () => {
    const id = `twice-${uniq()}@customer.example`;
    const raw = rawMail({ from: 'dora@customer.example', to: boxA.address, subject: 'Twice', messageId: id });
    await forward({ to: boxA.forwardingAddress, raw });
    await forward({ to: boxA.forwardingAddress, raw });
    const t = await ticketOf(a.accountId, id);
    expect(await messagesIn(a.accountId, Number(t!.id))).toHaveLength(1);

    // At the same moment, from two sessions (two forwarding servers, or one retrying): both 250, one message.
    const racing = `race-${uniq()}@customer.example`;
    const raceRaw = rawMail({ from: 'dora@customer.example', to: boxA.address, subject: 'Race', messageId: racing });
    const both = await Promise.all([1, 2, 3].map(() => forward({ to: boxA.forwardingAddress, raw: raceRaw })));
    expect(both.map((r) => r.response.slice(0, 3))).toEqual(['250', '250', '250']);
    const rt = await ticketOf(a.accountId, racing);
    expect(await messagesIn(a.accountId, Number(rt?.id))).toHaveLength(1);

    // The fetcher's way in (its fence: this test holds the lease), then the same mail forwarded.
    await db()
      .updateTable('mailboxes')
      .set({ lease_owner: 'imap-test', lease_until: Date.now() + 3_600_000, uid_validity: '1', last_uid: 0 })
      .where('id', '=', boxA.id)
      .execute();
    const imapId = `imap-${uniq()}@customer.example`;
    const imapRaw = rawMail({ from: 'dora@customer.example', to: boxA.address, subject: 'By IMAP', messageId: imapId });
    const ref = { id: boxA.id, accountId: a.accountId, address: boxA.address, departmentId: null };
    expect(
      await storeMail(
        { db: db(), conversations: conversationRules(), dataDir: s.config.DATA_DIR },
        ref,
        { nodeId: 'imap-test', uidValidity: '1', uid: 1 },
        await parseMail(Buffer.from(imapRaw)),
      ),
    ).toBe('stored');
    const sent = await forward({ to: boxA.forwardingAddress, raw: imapRaw });
    expect(sent.response).toMatch(/^250/);
    const it2 = await ticketOf(a.accountId, imapId);
    expect(await messagesIn(a.accountId, Number(it2!.id))).toHaveLength(1);
  });

  it('EMAIL one mail to the forwarding addresses of two accounts is stored in each account', async () => {
    const id = `both-${uniq()}@customer.example`;
    const sent = await forward({
      to: [boxA.forwardingAddress, boxB.forwardingAddress],
      raw: rawMail({ from: 'erin@customer.example', to: 'team@acme.test', subject: 'To you both', messageId: id }),
    });
    expect(sent.accepted).toHaveLength(2);
    const ta = await ticketOf(a.accountId, id);
    const tb = await ticketOf(b.accountId, id);
    expect(ta?.mailbox_id).toBe(boxA.id);
    expect(tb?.mailbox_id).toBe(boxB.id);
    expect(ta!.id).not.toBe(tb!.id);
  });

  it('EMAIL a new forwarding address: the old one is refused from then on, the new one takes mail; audited; admins of the own account only', async () => {
    const box = await mailbox(a);
    const renewed = await call('POST', `/api/mailboxes/${box.id}/forwarding`, { token: a.token });
    expect(renewed.status, renewed.text).toBe(200);
    const fresh = renewed.body.data.forwardingAddress as string;
    expect(fresh).toMatch(new RegExp(`^mbx-${box.id}-[0-9a-f]{20}@`));
    expect(fresh).not.toBe(box.forwardingAddress);
    const oldId = `old-${uniq()}@customer.example`;
    const err = await forward({
      to: box.forwardingAddress,
      raw: rawMail({ from: 'c@customer.example', to: box.address, subject: 'Old', messageId: oldId }),
    }).catch((e: { responseCode?: number; command?: string }) => e);
    expect(err).toMatchObject({ responseCode: 550, command: 'RCPT TO' });
    expect(await ticketOf(a.accountId, oldId)).toBeUndefined();
    const newId = `new-${uniq()}@customer.example`;
    await forward({
      to: fresh,
      raw: rawMail({ from: 'c@customer.example', to: box.address, subject: 'New', messageId: newId }),
    });
    expect(await ticketOf(a.accountId, newId)).toMatchObject({ title: 'New', mailbox_id: box.id });
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'mailbox.forwarding_renewed')
      .execute();
    expect(audit).toHaveLength(1);
    // Another account's mailbox is not found and keeps its address; an agent may not; a bad id is a 400.
    const other = await call('POST', `/api/mailboxes/${boxB.id}/forwarding`, { token: a.token });
    expect(other.status).toBe(404);
    const listB = await call('GET', '/api/mailboxes', { token: b.token });
    expect(listB.body.data[0].forwardingAddress).toBe(boxB.forwardingAddress);
    const agent = await addUserVia(call, a.token, { username: `fwd-agent-${uniq()}`, type: 'agent' });
    expect((await call('POST', `/api/mailboxes/${box.id}/forwarding`, { token: agent.token })).status).toBe(403);
    expect((await call('POST', '/api/mailboxes/x/forwarding', { token: a.token })).status).toBe(400);
  });

  it('EMAIL a forwarding-only mailbox: no IMAP login; forwarded mail becomes tickets; replies leave by its SMTP; never fetched', async () => {
    const sink = await smtpSink();
    try {
      const address = `fwd-${uniq()}@acme.test`;
      const body = {
        kind: 'forwarding',
        address,
        name: 'Acme Forwarded',
        active: true,
        smtp: { host: '127.0.0.1', port: sink.port, tls: false, user: 'help' },
      };
      const made = await call('POST', '/api/mailboxes', { token: a.token, body });
      expect(made.status, made.text).toBe(200);
      const box = made.body.data;
      expect(box).toMatchObject({
        kind: 'forwarding',
        imap: { host: '', hasPassword: false },
        smtp: { host: '127.0.0.1', port: sink.port },
      });
      expect(box.forwardingAddress).toMatch(new RegExp(`^mbx-${box.id}-[0-9a-f]{20}@`));
      expect((await call('GET', '/api/mailboxes', { token: a.token })).body.forwarding).toBe(true);

      const id = `fwd-only-${uniq()}@customer.example`;
      await forward({
        to: box.forwardingAddress,
        raw: rawMail({ from: 'Cleo <cleo@customer.example>', to: address, subject: 'Forwarded only', messageId: id }),
      });
      const t = (await ticketOf(a.accountId, id))!;
      expect(t).toMatchObject({ title: 'Forwarded only', channel: 'EMAIL', receiver_email: address });
      expect(Number(t.mailbox_id)).toBe(box.id);

      // The reply leaves from the mailbox's own SMTP server, threaded to the customer's mail.
      const reply = await call('POST', '/api/ticket/message/reply', {
        token: a.token,
        body: {
          ticket_id: Number(t.id),
          type: 'text',
          message: 'On it.',
          email: 'cleo@customer.example',
          client_id: newQueueId(),
        },
      });
      expect(reply.status, reply.text).toBe(200);
      await waitFor(() => sink.mail.length > 0, 'the reply at the SMTP server', 15_000);
      expect(sink.mail[0]!.to).toEqual(['cleo@customer.example']);
      expect(sink.mail[0]!.raw).toContain(`In-Reply-To: <${id}>`);
      expect(sink.mail[0]!.raw).toMatch(/^From: Acme Forwarded <fwd-[^>]+@acme\.test>/m);

      // The connection test tries the SMTP login only (there is no IMAP login to try).
      const test = await call('POST', `/api/mailboxes/${box.id}/test`, { token: a.token });
      expect(test.status, test.text).toBe(200);
      expect(test.body.imap).toBeUndefined();
      expect(test.body.smtp).toMatchObject({ ok: true });

      // No fetcher ever takes it: no lease, no fetch, no connection error.
      const row = await db().selectFrom('mailboxes').selectAll().where('id', '=', box.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        kind: 'forwarding',
        imap_secret: '',
        lease_owner: '',
        last_fetch_at: null,
        last_error: null,
      });

      // A change keeps the kind; it cannot become an IMAP mailbox (nor an IMAP one forwarding-only).
      const renamed = await call('PUT', `/api/mailboxes/${box.id}`, {
        token: a.token,
        body: { ...body, name: 'Renamed' },
      });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body.data).toMatchObject({ kind: 'forwarding', name: 'Renamed' });
      const asImap = await call('PUT', `/api/mailboxes/${box.id}`, {
        token: a.token,
        body: { ...body, kind: 'imap', imap: { host: '127.0.0.1', port: 9, tls: false, user: 'h', password: 'p' } },
      });
      expect(asImap.status).toBe(409);
      expect(asImap.body.description).toBe(EMAIL_STRINGS.kindFixedForwarding);
      const imapBox = await mailbox(a);
      const asForwarding = await call('PUT', `/api/mailboxes/${imapBox.id}`, { token: a.token, body });
      expect(asForwarding.status).toBe(409);
      expect(asForwarding.body.description).toBe(EMAIL_STRINGS.kindFixedForwarding);

      // Bad input: 400, nothing stored.
      const count = async () => (await call('GET', '/api/mailboxes', { token: a.token })).body.data.length;
      const before = await count();
      for (const bad of [
        { ...body, address: 'not an address' },
        { ...body, smtp: undefined },
        { ...body, smtp: { ...body.smtp, port: 70_000 } },
        { ...body, kind: 'pigeon' },
      ]) {
        const r = await call('POST', '/api/mailboxes', { token: a.token, body: bad });
        expect(r.status, JSON.stringify(bad)).toBe(400);
      }
      expect(await count()).toBe(before);
    } finally {
      await sink.close();
    }
  });

  it('EMAIL an inline cid: image of an HTML mail is stored as a file of its message, like an attachment', async () => {
    // The smallest PNG (1x1), as a mail client puts a pasted image: multipart/related, Content-ID, inline.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const id = `inline-${uniq()}@customer.example`;
    const raw = [
      'From: Ina <ina@customer.example>',
      `To: ${boxA.address}`,
      'Subject: Inline image',
      `Message-ID: <${id}>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/related; boundary="rel"',
      '',
      '--rel',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>See <img src="cid:logo@ina"></p>',
      '--rel',
      'Content-Type: image/png; name="logo.png"',
      'Content-Transfer-Encoding: base64',
      'Content-ID: <logo@ina>',
      'Content-Disposition: inline; filename="logo.png"',
      '',
      png.toString('base64'),
      '--rel--',
      '',
    ].join('\r\n');
    await forward({ to: boxA.forwardingAddress, raw });
    const t = (await ticketOf(a.accountId, id))!;
    const m = await db()
      .selectFrom('messages')
      .select(['message', 'files'])
      .where('account_id', '=', a.accountId)
      .where('id', '=', Number(t.message_row_id))
      .executeTakeFirstOrThrow();
    expect(m.message).toContain('See');
    const files = JSON.parse(m.files);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ fileName: 'logo.png', fileType: 'image/png' });
  });

  it('EMAIL a switched-off mailbox takes no forwarded mail (550)', async () => {
    const box = await mailbox(a);
    await db().updateTable('mailboxes').set({ active: 0 }).where('id', '=', box.id).execute();
    const err = await forward({
      to: box.forwardingAddress,
      raw: rawMail({ from: 'f@customer.example', to: box.address, subject: 'Off', messageId: `off-${uniq()}@x` }),
    }).catch((e: { responseCode?: number }) => e);
    expect(err).toMatchObject({ responseCode: 550 });
  });
});

describe('the inbound SMTP listener is off by default', () => {
  it('EMAIL no INBOUND_SMTP_PORT: no listener and no forwarding address', async () => {
    const s = await startTestServer('sqlite', { SECRETS_KEY: KEY });
    try {
      expect(s.inbound).toBeNull();
      const call = apiClient(s.url);
      const admin = await signUpVia(call);
      const made = await call('POST', '/api/mailboxes', {
        token: admin.token,
        body: {
          address: `help-${uniq()}@acme.test`,
          active: false,
          imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'imap secret' },
          smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'help' },
        },
      });
      expect(made.status, made.text).toBe(200);
      expect(made.body.data.forwardingAddress).toBeNull();
      // No listener: no new address either, and nothing changes.
      const renew = await call('POST', `/api/mailboxes/${made.body.data.id}/forwarding`, { token: admin.token });
      expect(renew.status).toBe(409);
      expect(renew.body.description).toBe(EMAIL_STRINGS.forwardingOff);
      // A forwarding-only mailbox would never get mail: refused with the reason, nothing stored.
      const list = await call('GET', '/api/mailboxes', { token: admin.token });
      expect(list.body.forwarding).toBe(false);
      const fwd = await call('POST', '/api/mailboxes', {
        token: admin.token,
        body: {
          kind: 'forwarding',
          address: `fwd-${uniq()}@acme.test`,
          smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'help' },
        },
      });
      expect(fwd.status).toBe(409);
      expect(fwd.body.description).toBe(EMAIL_STRINGS.forwardingOnlyOff);
      expect((await call('GET', '/api/mailboxes', { token: admin.token })).body.data).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });
});

describe('the inbound SMTP listener with STARTTLS', () => {
  const tls = rsaCertificate('in.parley.test');
  const files = () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'smtp.key'), tls.key);
    fs.writeFileSync(path.join(dir, 'smtp.crt'), tls.cert);
    return { key: path.join(dir, 'smtp.key'), cert: path.join(dir, 'smtp.crt') };
  };
  /** A sender that will not go on in plain text: STARTTLS or nothing, the listener's certificate trusted. */
  const sendTls = (port: number, to: string, raw: string) => {
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      // The certificate names the forwarding domain, not 127.0.0.1: its chain is checked, not the name.
      tls: { ca: [tls.cert], checkServerIdentity: () => undefined },
    });
    return t.sendMail({ envelope: { from: 'forwarder@acme.test', to: [to] }, raw }).finally(() => t.close());
  };

  it('EMAIL with INBOUND_SMTP_TLS_KEY_FILE and _CERT_FILE a sender upgrades to TLS and the mail becomes a ticket; without them STARTTLS is not offered', async () => {
    const f = files();
    const s = await startTestServer('sqlite', {
      SECRETS_KEY: KEY,
      INBOUND_SMTP_PORT: '0',
      INBOUND_SMTP_DOMAIN: DOMAIN,
      INBOUND_SMTP_TLS_KEY_FILE: f.key,
      INBOUND_SMTP_TLS_CERT_FILE: f.cert,
      EMAIL_POLL_MS: '3600000',
    });
    const plain = await startTestServer('sqlite', {
      SECRETS_KEY: KEY,
      INBOUND_SMTP_PORT: '0',
      INBOUND_SMTP_DOMAIN: DOMAIN,
    });
    try {
      const call = apiClient(s.url);
      const admin = await signUpVia(call);
      const made = await call('POST', '/api/mailboxes', {
        token: admin.token,
        body: {
          address: `help-${uniq()}@acme.test`,
          active: true,
          imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'imap secret' },
          smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'help' },
        },
      });
      expect(made.status, made.text).toBe(200);
      const box = made.body.data as { id: number; address: string; forwardingAddress: string };
      const id = `tls-${uniq()}@customer.example`;
      const raw = rawMail({
        from: 'Carl <carl@customer.example>',
        to: box.address,
        subject: 'Over TLS',
        messageId: id,
      });
      const sent = await sendTls(s.inbound!.port, box.forwardingAddress, raw);
      expect(sent.response).toMatch(/^250/);
      const stored = await s.handle.db
        .selectFrom('email_message_ids as e')
        .innerJoin('tickets as t', 't.id', 'e.ticket_id')
        .select(['t.title'])
        .where('e.account_id', '=', admin.accountId)
        .where('e.message_id', '=', id)
        .executeTakeFirst();
      expect(stored).toEqual({ title: 'Over TLS' });

      // The listener without a key: a sender that requires TLS gets no STARTTLS and sends nothing.
      const err = await sendTls(plain.inbound!.port, box.forwardingAddress, raw).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toMatch(/STARTTLS/i);
    } finally {
      await s.stop();
      await plain.stop();
    }
  });

  it('EMAIL a TLS key without its certificate, or a file that is not a key, stops the server with the reason', async () => {
    const f = files();
    await expect(
      startTestServer('sqlite', { SECRETS_KEY: KEY, INBOUND_SMTP_PORT: '0', INBOUND_SMTP_TLS_KEY_FILE: f.key }),
    ).rejects.toThrow('INBOUND_SMTP_TLS_KEY_FILE and INBOUND_SMTP_TLS_CERT_FILE go together: set both or neither.');
    await expect(
      startTestServer('sqlite', {
        SECRETS_KEY: KEY,
        INBOUND_SMTP_PORT: '0',
        INBOUND_SMTP_TLS_KEY_FILE: f.cert,
        INBOUND_SMTP_TLS_CERT_FILE: f.cert,
      }),
    ).rejects.toThrow(/INBOUND_SMTP_TLS_KEY_FILE \(.*\) is not a PEM private key\./);
  });
});
