import { randomBytes } from 'node:crypto';
import { EMAIL_STRINGS, newQueueId } from '@parley/contracts';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { rawMail } from '../../testing/dovecot.js';
import { smtpSink } from '../../testing/smtp.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { bounceOf } from './bounces.js';
import { parseMail } from './parseMail.js';

const KEY = randomBytes(32).toString('base64');
const DOMAIN = 'in.parley.test';

/** A Postfix-like DSN: the human part, the delivery-status part, the original's headers. */
function dsn(o: { original: string; messageId: string; action?: string; status?: string; to?: string }) {
  const b = `dsn-${uniq()}`;
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.customer.example>',
    `To: ${o.to ?? 'help@acme.test'}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <${o.messageId}>`,
    'Date: Fri, 27 Nov 2026 12:00:00 +0000',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.customer.example.',
    '',
    "I'm sorry to have to inform you that your message could not be delivered.",
    `--${b}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.customer.example',
    '',
    'Final-Recipient: rfc822; ghost@customer.example',
    `Action: ${o.action ?? 'failed'}`,
    `Status: ${o.status ?? '5.1.1'}`,
    'Diagnostic-Code: smtp; 550 5.1.1 <ghost@customer.example>: Recipient address',
    '    rejected: User unknown',
    `--${b}`,
    'Content-Type: text/rfc822-headers',
    '',
    'From: Acme <help@acme.test>',
    'To: ghost@customer.example',
    `Message-ID: <${o.original}>`,
    'Subject: Re: My order',
    `--${b}--`,
    '',
  ].join('\r\n');
}

/** A bounce that is no DSN (qmail's style): from MAILER-DAEMON, the original attached as message/rfc822. */
function plainBounce(o: { original: string; messageId: string }) {
  const b = `nb-${uniq()}`;
  return [
    'From: MAILER-DAEMON@old.customer.example',
    'To: help@acme.test',
    'Subject: failure notice',
    `Message-ID: <${o.messageId}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain',
    '',
    "Hi. This is the qmail-send program at old.customer.example. I'm afraid I wasn't able to deliver your message.",
    `--${b}`,
    'Content-Type: message/rfc822',
    '',
    'From: Acme <help@acme.test>',
    `Message-ID: <${o.original}>`,
    'Subject: Re: My order',
    '',
    'It ships today.',
    `--${b}--`,
    '',
  ].join('\r\n');
}

describe('reading a bounce', () => {
  it('EMAIL a DSN names the original Message-ID and says why: Diagnostic-Code (unfolded) and the first line', async () => {
    const b = bounceOf(await parseMail(Buffer.from(dsn({ original: 'parley.1.2.x@acme.test', messageId: 'b@x' }))));
    expect(b).toEqual({
      ids: ['parley.1.2.x@acme.test'],
      reason:
        '550 5.1.1 <ghost@customer.example>: Recipient address rejected: User unknown \u2014 This is the mail system at host mx.customer.example.',
    });
  });
  it('EMAIL a delay report, a success report and an ordinary mail are no bounce', async () => {
    const delayed = dsn({ original: 'o@acme.test', messageId: 'd@x', action: 'delayed', status: '4.4.1' });
    expect(bounceOf(await parseMail(Buffer.from(delayed)))).toBeNull();
    const delivered = dsn({ original: 'o@acme.test', messageId: 'd@x', action: 'delivered', status: '2.0.0' });
    expect(bounceOf(await parseMail(Buffer.from(delivered)))).toBeNull();
    const mail = rawMail({
      from: 'carl@customer.example',
      to: 'help@acme.test',
      subject: 'Hi',
      messageId: 'm@x',
      inReplyTo: 'o@acme.test',
    });
    expect(bounceOf(await parseMail(Buffer.from(mail)))).toBeNull();
  });
});

describe.each(dialects)('bounces of our replies (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let call: Call;
  let admin: SignedUp;
  let box: { id: number; address: string; forwardingAddress: string };
  const db = () => s.handle.db;

  beforeAll(async () => {
    sink = await smtpSink();
    s = await startTestServer(dialect, {
      SECRETS_KEY: KEY,
      INBOUND_SMTP_PORT: '0',
      INBOUND_SMTP_DOMAIN: DOMAIN,
      EMAIL_POLL_MS: '3600000',
    });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: {
        address: `help-${uniq()}@acme.test`,
        active: true,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'imap secret' },
        smtp: { host: '127.0.0.1', port: sink.port, tls: false, user: 'help' },
      },
    });
    expect(made.status, made.text).toBe(200);
    box = made.body.data;
  });
  afterAll(async () => {
    await s?.stop();
    await sink?.close();
  });

  const forward = async (raw: string) => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: s.inbound!.port, secure: false, ignoreTLS: true });
    try {
      // A bounce travels with the null sender.
      return await t.sendMail({ envelope: { from: '', to: [box.forwardingAddress] }, raw });
    } finally {
      t.close();
    }
  };
  const countTickets = async () =>
    Number(
      (
        await db()
          .selectFrom('tickets')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', admin.accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const countMessages = async (ticketId: number) =>
    (
      await db()
        .selectFrom('messages')
        .select('id')
        .where('account_id', '=', admin.accountId)
        .where('ticket_id', '=', ticketId)
        .execute()
    ).length;
  const row = (id: number) =>
    db()
      .selectFrom('messages')
      .select(['email_state', 'email_error', 'email_attempt_at'])
      .where('account_id', '=', admin.accountId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
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

  /** A customer's ticket by forwarding, and our reply to it, sent: its message id and our Message-ID. */
  async function sentReply() {
    const from = `ghost-${uniq()}@customer.example`;
    const first = `first-${uniq()}@customer.example`;
    await forward(rawMail({ from, to: box.address, subject: 'My order', messageId: first }));
    const ticket = await db()
      .selectFrom('email_message_ids')
      .select('ticket_id')
      .where('account_id', '=', admin.accountId)
      .where('message_id', '=', first)
      .executeTakeFirstOrThrow();
    const ticketId = Number(ticket.ticket_id);
    const r = await call('POST', '/api/ticket/message/reply', {
      token: admin.token,
      body: { ticket_id: ticketId, type: 'text', message: 'It ships today.', email: from, client_id: newQueueId() },
    });
    expect(r.status, r.text).toBe(200);
    const messageId = Number(r.body.id);
    await waitFor(async () => (await row(messageId)).email_state === 'sent', `reply ${messageId} sent`);
    const out = await db()
      .selectFrom('email_message_ids')
      .select('message_id')
      .where('account_id', '=', admin.accountId)
      .where('message_row_id', '=', messageId)
      .where('direction', '=', 'out')
      .executeTakeFirstOrThrow();
    return { ticketId, messageId, ours: out.message_id, from, first };
  }

  it('EMAIL a DSN naming our reply marks it failed with the reason, tells the staff, and makes no ticket nor message', async () => {
    const r = await sentReply();
    const tickets = await countTickets();
    const messages = await countMessages(r.ticketId);
    const bounceId = `bounce-${uniq()}@mx.customer.example`;
    const sent = await forward(dsn({ original: r.ours, messageId: bounceId, to: box.address }));
    expect(sent.response).toMatch(/^250/);
    const error = EMAIL_STRINGS.bounced(
      '550 5.1.1 <ghost@customer.example>: Recipient address rejected: User unknown \u2014 This is the mail system at host mx.customer.example.',
    );
    expect(await row(r.messageId)).toEqual({ email_state: 'failed', email_error: error, email_attempt_at: null });
    expect(await stateEvents(r.messageId)).toEqual([
      expect.objectContaining({ state: 'sent' }),
      { socket: 'messageEmailState', ticketId: r.ticketId, messageId: r.messageId, state: 'failed', error },
    ]);
    expect(await countTickets()).toBe(tickets);
    expect(await countMessages(r.ticketId)).toBe(messages);
    // The history shows it failed with the bounce's words.
    const history = await call('GET', `/api/ticket/data3/${r.ticketId}/0`, { token: admin.token });
    expect(history.body.data.find((m: { id: number }) => m.id === r.messageId).email).toMatchObject({
      state: 'failed',
      error,
    });

    // The same bounce again (by IMAP too, or forwarded twice): nothing more.
    await forward(dsn({ original: r.ours, messageId: bounceId, to: box.address }));
    expect(await stateEvents(r.messageId)).toHaveLength(2);
    expect(await countTickets()).toBe(tickets);
  });

  it('EMAIL a bounce that is no DSN, from MAILER-DAEMON with the original attached, marks the reply failed', async () => {
    const r = await sentReply();
    const tickets = await countTickets();
    await forward(plainBounce({ original: r.ours, messageId: `nb-${uniq()}@old.customer.example` }));
    const done = await row(r.messageId);
    expect(done.email_state).toBe('failed');
    expect(done.email_error).toBe(
      EMAIL_STRINGS.bounced(
        "Hi. This is the qmail-send program at old.customer.example. I'm afraid I wasn't able to deliver your message.",
      ),
    );
    expect(await countTickets()).toBe(tickets);
  });

  it('EMAIL a delay report leaves the reply sent and makes no ticket; the customer answering our reply fails nothing', async () => {
    const r = await sentReply();
    const tickets = await countTickets();
    await forward(dsn({ original: r.ours, messageId: `delay-${uniq()}@x`, action: 'delayed', status: '4.4.1' }));
    expect((await row(r.messageId)).email_state).toBe('sent');
    expect(await countTickets()).toBe(tickets);
    const messages = await countMessages(r.ticketId);
    await forward(
      rawMail({ from: r.from, to: box.address, subject: 'Thanks', messageId: `thx-${uniq()}@x`, inReplyTo: r.ours }),
    );
    expect((await row(r.messageId)).email_state).toBe('sent');
    expect(await countMessages(r.ticketId)).toBe(messages + 1);
  });

  it('EMAIL a bounce naming a reply of another account changes nothing there', async () => {
    const r = await sentReply();
    const other = await signUpVia(call);
    const made = await call('POST', '/api/mailboxes', {
      token: other.token,
      body: {
        address: `help-${uniq()}@other.test`,
        active: true,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'imap secret' },
        smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'help' },
      },
    });
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: s.inbound!.port, secure: false, ignoreTLS: true });
    await t.sendMail({
      envelope: { from: '', to: [made.body.data.forwardingAddress] },
      raw: dsn({ original: r.ours, messageId: `x-${uniq()}@x` }),
    });
    t.close();
    expect((await row(r.messageId)).email_state).toBe('sent');
  });
});
