import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { EMAIL_STRINGS, MESSAGE_STRINGS, newQueueId, REPLY_STRINGS } from '@parley/contracts';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { rawMail } from '../../testing/dovecot.js';
import { insertTicket } from '../../testing/messages.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { EMAIL_INTERRUPTED_MS, failInterruptedEmails, sendMailboxReply } from './commands/sendMailboxReply.js';
import { storeMail } from './commands/storeMail.js';
import { parseMail } from './parseMail.js';
import { Secrets } from './secrets.js';
import { taggedSubject } from './threading.js';

const KEY = randomBytes(32).toString('base64');
const SMTP_PASSWORD = 'smtp secret';

/** The decoded text of a quoted-printable MIME message (soft line breaks joined). */
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ');
const header = (raw: string, name: string) =>
  new RegExp(`^${name}: (.*)$`, 'mi').exec(unfold(raw).split(/\r?\n\r?\n/)[0]!)?.[1]?.trim();

interface Received {
  user: string;
  from: string;
  to: string[];
  raw: string;
}

/**
 * A mailbox's SMTP server on loopback: login required, keeps what it takes. Addresses in `refused` get a 550
 * with the server's words; an address in `later` gets a 451 that many times, then is taken.
 */
async function mailboxServer() {
  const mail: Received[] = [];
  const refused = new Set<string>();
  const later = new Map<string, number>();
  const tries = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _s, done) {
      if (auth.password === SMTP_PASSWORD) return done(null, { user: auth.username });
      done(Object.assign(new Error('5.7.8 Bad credentials'), { responseCode: 535 }));
    },
    onRcptTo(address, _s, done) {
      const a = address.address;
      tries.set(a, (tries.get(a) ?? 0) + 1);
      if (refused.has(a))
        return done(
          Object.assign(new Error(`5.1.1 <${a}>: Recipient address rejected: User unknown`), { responseCode: 550 }),
        );
      const wait = later.get(a) ?? 0;
      if (wait > 0) {
        later.set(a, wait - 1);
        return done(Object.assign(new Error('4.7.1 Greylisted, try again later'), { responseCode: 451 }));
      }
      done();
    },
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (d: Buffer) => {
        raw += d.toString();
      });
      stream.on('end', () => {
        mail.push({
          user: String(session.user ?? ''),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mail, refused, later, tries, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The shared poll, read with what it waits for first; every 50 ms (these checks read a database). */
const until = <T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> =>
  waitFor(fn, what, ms, 50) as Promise<T>;

describe('threading of our replies', () => {
  it('EMAIL the subject carries the [#N] tag once and one "Re: "', () => {
    expect(taggedSubject('Re: My order', 42)).toBe('Re: My order [#42]');
    expect(taggedSubject('Re: Re: RE: My order [#42]', 42)).toBe('Re: My order [#42]');
    expect(taggedSubject('[#42] Re: My order', 42)).toBe('Re: My order [#42]');
    expect(taggedSubject('My order [#7]', 42)).toBe('My order [#7] [#42]');
    expect(taggedSubject('', 42)).toBe('[#42]');
  });
});

describe.each(dialects)('e-mail out through the ticket mailbox (%s)', (dialect) => {
  let smtp: Awaited<ReturnType<typeof mailboxServer>>;
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string };
  let box: { id: number; accountId: number; address: string; departmentId: number | null };
  let uid = 0;
  const db = () => s.handle.db;
  const deps = () => ({ db: db(), conversations: conversationRules(), dataDir: s.config.DATA_DIR });

  beforeAll(async () => {
    smtp = await mailboxServer();
    // SMTP_URL is the installation's way out: a mailbox ticket's reply must not take it.
    s = await startTestServer(dialect, { SECRETS_KEY: KEY, SMTP_URL: 'smtp://127.0.0.1:9' });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
    const address = `help-${uniq()}@acme.test`;
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: {
        address,
        name: 'Acme Help',
        departmentId: null,
        // Inactive: no fetcher; the mail comes in through the ingest itself below.
        active: false,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'imap secret' },
        smtp: { host: '127.0.0.1', port: smtp.port, tls: false, user: 'help-out', password: SMTP_PASSWORD },
      },
    });
    expect(made.status, made.text).toBe(200);
    box = { id: made.body.data.id, accountId: admin.accountId, address, departmentId: null };
    // The ingest's fence: this test holds the mailbox's lease.
    await db()
      .updateTable('mailboxes')
      .set({ lease_owner: 'send-test', lease_until: Date.now() + 3_600_000, uid_validity: '1' })
      .where('id', '=', box.id)
      .execute();
  });
  afterAll(async () => {
    await s?.stop();
    await smtp?.close();
  });

  /** A customer's mail fed to the ingest, as the fetcher would store it. */
  async function ingest(o: Parameters<typeof rawMail>[0]) {
    uid++;
    return storeMail(
      deps(),
      box,
      { nodeId: 'send-test', uidValidity: '1', uid },
      await parseMail(Buffer.from(rawMail(o))),
    );
  }
  const ticketOf = (messageId: string) =>
    db()
      .selectFrom('email_message_ids as e')
      .innerJoin('tickets as t', 't.id', 'e.ticket_id')
      .select(['t.id', 't.ticket_number', 't.mailbox_id', 't.title', 'e.direction'])
      .where('e.account_id', '=', admin.accountId)
      .where('e.message_id', '=', messageId)
      .executeTakeFirst();
  /** A new mailbox ticket from `from`, and the Message-ID of its first mail. */
  async function mailboxTicket(from = `carl-${uniq()}@customer.example`, references?: string) {
    const id = `first-${uniq()}@customer.example`;
    expect(
      await ingest({
        from: `Carl <${from}>`,
        to: box.address,
        subject: 'My order has not arrived',
        messageId: id,
        references,
      }),
    ).toBe('stored');
    const t = (await ticketOf(id))!;
    return { id: Number(t.id), number: Number(t.ticket_number), mailboxId: t.mailbox_id, inbound: id, from };
  }
  const reply = (ticket: number, to: string, over: Record<string, unknown> = {}) =>
    call('POST', '/api/ticket/message/reply', {
      token: agent.token,
      body: {
        ticket_id: ticket,
        type: 'text',
        message: 'It ships today.',
        email: to,
        client_id: newQueueId(),
        ...over,
      },
    });
  const row = (id: number) =>
    db()
      .selectFrom('messages')
      .select(['email_state', 'email_error', 'email_attempt_at'])
      .where('account_id', '=', admin.accountId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const settled = (id: number) =>
    until(`message ${id} settled`, async () => {
      const r = await row(id);
      return r.email_state !== 'sending' && r;
    });
  const stateEvents = async (messageId: number) =>
    (
      await db()
        .selectFrom('events')
        .select(['payload', 'socket_event'])
        .where('account_id', '=', admin.accountId)
        .where('type', '=', 'message.email_state_changed')
        .orderBy('seq')
        .execute()
    )
      .map((e) => ({ socket: e.socket_event, ...JSON.parse(e.payload) }))
      .filter((e) => e.messageId === messageId);
  const mailTo = (address: string) => smtp.mail.filter((m) => m.to.includes(address));

  it('EMAIL a reply leaves through the mailbox SMTP: From, Message-ID, In-Reply-To, References, one [#N]; the answer threads back', async () => {
    const t = await mailboxTicket(undefined, '<older-1@customer.example> <older-2@customer.example>');
    expect(t.mailboxId).toBe(box.id);
    const r = await reply(t.id, t.from, { title: `Re: Re: My order has not arrived [#${t.number}]` });
    expect(r.status, r.text).toBe(200);
    expect(r.body.mail).toBe('sending');
    expect(r.body.data.email).toMatchObject({ to: [t.from], state: 'sending' });

    const [got] = await until('the mail', async () => mailTo(t.from).length === 1 && mailTo(t.from));
    expect(got!.user).toBe('help-out');
    expect(got!.from).toBe(box.address);
    expect(header(got!.raw, 'From')).toBe(`Acme Help <${box.address}>`);
    expect(header(got!.raw, 'Subject')).toBe(`Re: My order has not arrived [#${t.number}]`);
    expect(header(got!.raw, 'In-Reply-To')).toBe(`<${t.inbound}>`);
    expect(header(got!.raw, 'References')).toBe(`<older-1@customer.example> <older-2@customer.example> <${t.inbound}>`);
    const ours = /^<(parley\.[^>]+@acme\.test)>$/.exec(header(got!.raw, 'Message-ID') ?? '')?.[1];
    expect(ours).toBeDefined();
    expect(await settled(r.body.id)).toEqual({ email_state: 'sent', email_error: null, email_attempt_at: null });
    expect(await ticketOf(ours!)).toMatchObject({ id: t.id, direction: 'out' });
    expect(await stateEvents(r.body.id)).toEqual([
      { socket: 'messageEmailState', ticketId: t.id, messageId: r.body.id, state: 'sent', error: null },
    ]);
    // The history shows it sent; SMTP_URL (nothing listens there) was never tried.
    const history = await call('GET', `/api/ticket/data3/${t.id}/0`, { token: agent.token });
    expect(history.body.data.find((m: { id: number }) => m.id === r.body.id).email.state).toBe('sent');

    // The customer answers our reply with a subject of their own: it joins the same ticket by our Message-ID.
    const answer = `answer-${uniq()}@customer.example`;
    expect(
      await ingest({
        from: `Carl <${t.from}>`,
        to: box.address,
        subject: 'Thanks!',
        messageId: answer,
        inReplyTo: ours,
        references: `<${ours}>`,
      }),
    ).toBe('stored');
    expect((await ticketOf(answer))?.id).toBe(t.id);
    // The next reply answers that mail, the chain carried on.
    const next = await reply(t.id, t.from);
    expect(next.status, next.text).toBe(200);
    const [, second] = await until('the second mail', async () => mailTo(t.from).length === 2 && mailTo(t.from));
    expect(header(second!.raw, 'In-Reply-To')).toBe(`<${answer}>`);
    expect(header(second!.raw, 'References')).toBe(`<${ours}> <${answer}>`);
    expect(header(second!.raw, 'Subject')).toBe(`Re: My order has not arrived [#${t.number}]`);
  });

  it('EMAIL MSG-25 a reply with copies and a file leaves through the mailbox SMTP: Cc header, every recipient in the envelope, the file attached', async () => {
    const t = await mailboxTicket();
    // The composer's way: one multipart call, the file as `attachment[]`, the copies as a list.
    const text = `Invoice ${uniq()}: 3 items, total 42.00\n`;
    const boss = `boss-${uniq()}@customer.example`;
    const form = new FormData();
    const fields = { ticket_id: t.id, type: 'text', message: 'Your invoice is attached.', email: t.from, cc: boss };
    for (const [k, v] of Object.entries({ ...fields, client_id: newQueueId() })) form.append(k, String(v));
    form.append('attachment[]', new Blob([text], { type: 'text/plain' }), 'invoice.txt');
    const res = await fetch(`${s.url}/api/ticket/message/reply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}` },
      body: form,
    });
    const r = { status: res.status, body: (await res.json()) as { id: number; data: { files: unknown[] } } };
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.files).toEqual([expect.objectContaining({ fileName: 'invoice.txt' })]);
    const [got] = await until('the mail', async () => mailTo(t.from).length === 1 && mailTo(t.from));
    expect(got!.user).toBe('help-out');
    expect(got!.to.sort()).toEqual([t.from, boss].sort());
    expect(header(got!.raw, 'Cc')).toBe(boss);
    const raw = unfold(got!.raw);
    expect(raw).toMatch(/Content-Disposition: attachment; filename=invoice\.txt/i);
    // The part's body as sent (quoted-printable or base64), decoded, is the file.
    const part = raw.split(/\r?\n--/).find((p) => /filename=invoice\.txt/i.test(p))!;
    const [head, ...rest] = part.split(/\r?\n\r?\n/);
    const bodyText = rest.join('\n\n').trim();
    const decoded = /base64/i.test(head!)
      ? Buffer.from(bodyText.replace(/\s+/g, ''), 'base64').toString()
      : bodyText
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    expect(decoded.trim()).toBe(text.trim());
    expect(await settled(r.body.id)).toEqual({ email_state: 'sent', email_error: null, email_attempt_at: null });
  });

  it('EMAIL a 5xx refusal marks the reply failed with the server words, tried once', async () => {
    const to = `ghost-${uniq()}@customer.example`;
    smtp.refused.add(to);
    const t = await mailboxTicket(to);
    const r = await reply(t.id, to);
    expect(r.status, r.text).toBe(200);
    const done = await settled(r.body.id);
    expect(done.email_state).toBe('failed');
    expect(done.email_error).toContain('Recipient address rejected: User unknown');
    expect(smtp.tries.get(to)).toBe(1);
    expect(mailTo(to)).toHaveLength(0);
    expect(await stateEvents(r.body.id)).toEqual([
      expect.objectContaining({ socket: 'messageEmailState', state: 'failed', error: done.email_error }),
    ]);
    const history = await call('GET', `/api/ticket/data3/${t.id}/0`, { token: agent.token });
    expect(history.body.data.find((m: { id: number }) => m.id === r.body.id).email).toMatchObject({
      state: 'failed',
      error: done.email_error,
    });
  });

  it('EMAIL a 4xx is tried again with backoff and ends sent once', async () => {
    const to = `grey-${uniq()}@customer.example`;
    smtp.later.set(to, 1);
    const t = await mailboxTicket(to);
    const r = await reply(t.id, to);
    expect(r.status, r.text).toBe(200);
    expect(await settled(r.body.id)).toEqual({ email_state: 'sent', email_error: null, email_attempt_at: null });
    expect(smtp.tries.get(to)).toBe(2);
    expect(mailTo(to)).toHaveLength(1);
    // Delivered again (a relay repeat after a crash): the recorded outcome stops a second send.
    await sendMailboxReply(
      { ...deps(), secrets: null, log: s.app.log as never },
      admin.accountId,
      { messageId: r.body.id, ticketId: t.id },
      1,
    );
    expect(mailTo(to)).toHaveLength(1);
    expect((await stateEvents(r.body.id)).map((e) => e.state)).toEqual(['sent']);
  });

  it('EMAIL a failed reply is sent again by retry, once; a retry of one not failed is a 409', async () => {
    const to = `later-${uniq()}@customer.example`;
    smtp.refused.add(to);
    const t = await mailboxTicket(to);
    const r = await reply(t.id, to);
    expect((await settled(r.body.id)).email_state).toBe('failed');
    smtp.refused.delete(to);
    const again = await call('POST', '/api/ticket/message/reply/retry', {
      token: agent.token,
      body: { id: r.body.id },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toEqual({ ticketId: t.id, messageId: r.body.id, state: 'sending', error: null });
    expect(await settled(r.body.id)).toEqual({ email_state: 'sent', email_error: null, email_attempt_at: null });
    expect(mailTo(to)).toHaveLength(1);
    expect((await stateEvents(r.body.id)).map((e) => e.state)).toEqual(['failed', 'sending', 'sent']);
    const twice = await call('POST', '/api/ticket/message/reply/retry', {
      token: agent.token,
      body: { id: r.body.id },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.description).toBe(MESSAGE_STRINGS.emailNotFailed);
    expect(mailTo(to)).toHaveLength(1);
  });

  it("EMAIL a retry of another account's message is a 404, bad ids a 400, and nothing changes", async () => {
    const to = `other-${uniq()}@customer.example`;
    smtp.refused.add(to);
    const t = await mailboxTicket(to);
    const r = await reply(t.id, to);
    expect((await settled(r.body.id)).email_state).toBe('failed');
    const other = await signUpVia(call);
    const theirs = await call('POST', '/api/ticket/message/reply/retry', {
      token: other.token,
      body: { id: r.body.id },
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.description).toBe(MESSAGE_STRINGS.messageNotFound);
    for (const body of [{}, { id: 'x' }, { id: -1 }, { id: 1.5 }]) {
      const bad = await call('POST', '/api/ticket/message/reply/retry', { token: agent.token, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    const manual = await insertTicket(db(), admin.accountId, { channel: 'MANUAL' });
    const chat = await call('POST', '/api/ticket/message', {
      token: agent.token,
      body: { ticket_id: manual, message: 'not an e-mail' },
    });
    const notMail = await call('POST', '/api/ticket/message/reply/retry', {
      token: agent.token,
      body: { id: chat.body.data.id },
    });
    expect(notMail.status).toBe(409);
    expect(await row(r.body.id)).toMatchObject({ email_state: 'failed' });
    expect(smtp.tries.get(to)).toBe(1);
  });

  it('EMAIL a send cut short by a crash is never sent again by itself: the sweep marks it failed', async () => {
    const to = `crash-${uniq()}@customer.example`;
    smtp.refused.add(to);
    const t = await mailboxTicket(to);
    const r = await reply(t.id, to);
    expect((await settled(r.body.id)).email_state).toBe('failed');
    smtp.refused.delete(to);
    // As a node that died between the server's answer and recording it leaves the row.
    const attemptAt = Date.now() - EMAIL_INTERRUPTED_MS - 1_000;
    await db()
      .updateTable('messages')
      .set({ email_state: 'sending', email_error: null, email_attempt_at: attemptAt })
      .where('id', '=', r.body.id)
      .execute();
    // The event delivered again finds the attempt under way and sends nothing.
    await sendMailboxReply(
      { ...deps(), secrets: null, log: s.app.log as never },
      admin.accountId,
      { messageId: r.body.id, ticketId: t.id },
      1,
    );
    expect(mailTo(to)).toHaveLength(0);
    await failInterruptedEmails(db(), conversationRules()).run(Date.now());
    expect(await row(r.body.id)).toEqual({
      email_state: 'failed',
      email_error: MESSAGE_STRINGS.emailInterrupted,
      email_attempt_at: null,
    });
    expect(mailTo(to)).toHaveLength(0);
  });

  it('MACROS a macro reply on a mailbox ticket is sent from the mailbox; an e-mail ticket without one still refuses it', async () => {
    const t = await mailboxTicket();
    const made = await call('POST', '/api/macros', {
      token: admin.token,
      body: { name: `Shipped ${uniq()}`, actions: [{ type: 'reply', text: 'Hi {{customer.name}}, it shipped.' }] },
    });
    expect(made.status, made.text).toBe(200);
    const run = await call('POST', `/api/macros/${made.body.data.id}/run`, {
      token: agent.token,
      body: { ticket_ids: [t.id] },
    });
    expect(run.status, run.text).toBe(200);
    const [got] = await until('the macro mail', async () => mailTo(t.from).length === 1 && mailTo(t.from));
    expect(header(got!.raw, 'From')).toBe(`Acme Help <${box.address}>`);
    expect(header(got!.raw, 'Subject')).toBe(`Re: My order has not arrived [#${t.number}]`);
    expect(header(got!.raw, 'In-Reply-To')).toBe(`<${t.inbound}>`);
    expect(unfold(got!.raw)).toContain('Hi Carl, it shipped.');
    const sent = await db()
      .selectFrom('messages')
      .select(['id', 'email_state'])
      .where('ticket_id', '=', t.id)
      .where('sender', '!=', 'visitor')
      .where('type', '!=', 'system')
      .execute();
    expect(sent).toHaveLength(1);
    expect((await settled(Number(sent[0]!.id))).email_state).toBe('sent');

    const plain = await insertTicket(db(), admin.accountId);
    const refused = await call('POST', `/api/macros/${made.body.data.id}/run`, {
      token: agent.token,
      body: { ticket_ids: [plain] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.description).toContain('e-mail ticket');
    expect(REPLY_STRINGS.noEmailReply(1)).toContain('e-mail ticket');
  });

  it('EMAIL a mailbox whose password cannot be read fails the reply with that reason', async () => {
    const t = await mailboxTicket();
    await db().updateTable('mailboxes').set({ smtp_secret: 'v1.broken' }).where('id', '=', box.id).execute();
    try {
      const r = await reply(t.id, t.from);
      expect(await settled(r.body.id)).toMatchObject({
        email_state: 'failed',
        email_error: EMAIL_STRINGS.cannotDecrypt,
      });
    } finally {
      await db()
        .updateTable('mailboxes')
        .set({ smtp_secret: new Secrets(KEY).seal(admin.accountId, SMTP_PASSWORD) })
        .where('id', '=', box.id)
        .execute();
    }
    expect(mailTo(t.from)).toHaveLength(0);
  });
});
