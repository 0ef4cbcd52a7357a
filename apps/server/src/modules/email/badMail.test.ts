import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EMAIL_STRINGS, MESSAGE_STRINGS } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParley, type Parley } from '../../app.js';
import { apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { type Dovecot, hasDovecot, rawMail, startDovecot } from '../../testing/dovecot.js';
import { smtpSink } from '../../testing/smtp.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { parseMail } from './parseMail.js';

/**
 * The inbound path under bad input, on a real Dovecot: each mail is handled (stored as well as it can be
 * read, or dropped as noise), nothing after it is lost, and the server keeps serving.
 */

const KEY = randomBytes(32).toString('base64');
const crlf = (lines: string[]) => lines.join('\r\n');
const b64 = (b: Buffer) => b.toString('base64');
const word = (charset: string, bytes: Buffer) => `=?${charset}?B?${b64(bytes)}?=`;

/** The named character references mailparser writes for the letters of the charset test. */
const NAMED: Record<string, string> = {
  agrave: 'à',
  ccedil: 'ç',
  ucirc: 'û',
  eacute: 'é',
  szlig: 'ß',
  iuml: 'ï',
  euro: '€',
  ndash: '–',
  ldquo: '“',
  rdquo: '”',
  check: '✓',
  amp: '&',
};

/** A mail with a header and a body given as bytes (a body in a legacy charset). */
function bytesMail(head: string[], body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${crlf(head)}\r\n\r\n`, 'latin1'), body, Buffer.from('\r\n')]);
}

describe.skipIf(!hasDovecot).each(dialects)('bad mail in by IMAP (%s)', (dialect) => {
  let imap: Dovecot;
  let smtp: Awaited<ReturnType<typeof smtpSink>>;
  let data: Awaited<ReturnType<typeof freshDatabase>>;
  let s: Parley & { url: string };
  let call: Call;
  let admin: SignedUp;
  const boxes: Record<string, number> = {};
  const address = 'bad@example.test';
  const db = () => s.handle.db;

  const storedId = (messageId: string) =>
    db()
      .selectFrom('email_message_ids')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
  const messageOf = async (messageId: string) => {
    const row = await waitFor(() => storedId(messageId), `the mail ${messageId}`, 60_000);
    const m = await db()
      .selectFrom('messages')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('id', '=', Number(row.message_row_id))
      .executeTakeFirstOrThrow();
    const t = await db()
      .selectFrom('tickets')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('id', '=', Number(row.ticket_id))
      .executeTakeFirstOrThrow();
    return { message: m, ticket: t };
  };
  const ticketCount = async () =>
    Number(
      (
        await db()
          .selectFrom('tickets')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', admin.accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const mailboxRow = (user: string) =>
    db()
      .selectFrom('mailboxes')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('id', '=', boxes[user]!)
      .executeTakeFirstOrThrow();
  /** A plain mail after the bad ones: when it is stored, every UID before it was handled. */
  const canary = async (user = address) => {
    const id = `canary-${uniq()}@customer.example`;
    await imap.append(
      user,
      rawMail({ from: 'Cleo <cleo@customer.example>', to: user, subject: 'Canary', messageId: id, text: 'Still here' }),
    );
    const { message } = await messageOf(id);
    expect(message.message).toContain('Still here');
    // The server still answers its API, and the mailbox carries no error.
    expect((await call('GET', '/api/mailboxes', { token: admin.token })).status).toBe(200);
    expect((await mailboxRow(user)).last_error).toBeNull();
  };

  beforeAll(async () => {
    imap = await startDovecot([address, 'loopa@example.test', 'loopb@example.test', 'burst@example.test']);
    smtp = await smtpSink();
    data = await freshDatabase(dialect, { migrated: true });
    s = Object.assign(
      await createParley(testConfig({ ...data.env, SECRETS_KEY: KEY, EMAIL_POLL_MS: '60000' }), {
        logger: pino({ level: 'silent' }),
      }),
      { url: '' },
    );
    s.url = `http://127.0.0.1:${await s.listen()}`;
    call = apiClient(s.url);
    admin = await signUpVia(call);
    for (const user of imap.users) {
      const made = await call('POST', '/api/mailboxes', {
        token: admin.token,
        body: {
          address: user,
          name: user.split('@')[0],
          departmentId: null,
          active: true,
          imap: { host: '127.0.0.1', port: imap.port, tls: false, user, password: imap.password },
          smtp: { host: '127.0.0.1', port: smtp.port, tls: false, user, password: '' },
        },
      });
      expect(made.status, made.text).toBe(200);
      boxes[user] = made.body.data.id;
    }
    await waitFor(
      async () => (await Promise.all(imap.users.map(mailboxRow))).every((r) => r.last_fetch_at),
      'every mailbox fetched once',
      30_000,
    );
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await smtp?.close();
    await imap?.stop();
    await data?.drop();
  });

  it("EMAIL a 30 MB mail over the plan's storage: stored without the attachment, with the note", async () => {
    // The trial's 1 GB is full but for 10 MB; the mail's attachment is 22 MB (30 MB as base64 in the mail).
    const filler = `filler${uniq()}${uniq()}${uniq()}`;
    await db()
      .insertInto('uploads')
      .values({
        account_id: admin.accountId,
        ticket_id: null,
        user_id: null,
        key: filler,
        name: 'filler.bin',
        mime: 'application/octet-stream',
        size: 1024 ** 3 - 10 * 1024 ** 2,
        thumb_key: null,
        created_at: Date.now(),
      })
      .execute();
    try {
      const id = `big-${uniq()}@customer.example`;
      const raw = rawMail({
        from: 'Bea <bea@customer.example>',
        to: address,
        subject: 'The whole archive',
        messageId: id,
        text: 'Here is everything.',
        attachment: { name: 'archive.zip', type: 'application/zip', content: randomBytes(22 * 1024 * 1024) },
      });
      expect(raw.length).toBeGreaterThan(30 * 1000 * 1000);
      await imap.append(address, raw);
      const { message, ticket } = await messageOf(id);
      expect(ticket.title).toBe('The whole archive');
      expect(JSON.parse(message.files)).toEqual([]);
      expect(message.message).toContain('Here is everything.');
      expect(message.message).toContain(EMAIL_STRINGS.attachmentNotStored('archive.zip', MESSAGE_STRINGS.storageFull));
      const uploads = await db()
        .selectFrom('uploads')
        .select('key')
        .where('account_id', '=', admin.accountId)
        .execute();
      expect(uploads.map((u) => u.key)).toEqual([filler]);
      // Nothing of it is left on disk.
      const incoming = path.join(s.config.DATA_DIR, 'uploads', 'incoming');
      expect(fs.existsSync(incoming) ? fs.readdirSync(incoming) : []).toEqual([]);
      await canary();
    } finally {
      await db().deleteFrom('uploads').where('account_id', '=', admin.accountId).where('key', '=', filler).execute();
    }
  }, 90_000);

  it('EMAIL broken MIME is stored as well as it can be read, and the next mail still arrives', async () => {
    const ids = {
      boundary: `boundary-${uniq()}@customer.example`,
      unclosed: `unclosed-${uniq()}@customer.example`,
      base64: `base64-${uniq()}@customer.example`,
      charset: `charset-${uniq()}@customer.example`,
    };
    const from = 'From: Dan <dan@customer.example>';
    // The boundary the header names never comes: the body's text is kept as it is.
    await imap.append(
      address,
      crlf([
        from,
        `To: ${address}`,
        'Subject: Wrong boundary',
        `Message-ID: <${ids.boundary}>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="RIGHT"',
        '',
        '--WRONG',
        'Content-Type: text/plain',
        '',
        'The text behind a wrong boundary',
        '--WRONG--',
        '',
      ]),
    );
    // Never closed, and the attachment's base64 is cut mid-line.
    await imap.append(
      address,
      crlf([
        from,
        `To: ${address}`,
        'Subject: Cut short',
        `Message-ID: <${ids.unclosed}>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'The first part arrived',
        '--b1',
        'Content-Type: application/octet-stream; name="cut.bin"',
        'Content-Disposition: attachment; filename="cut.bin"',
        'Content-Transfer-Encoding: base64',
        '',
        'SGVsbG8gd29ybGQh',
        'SGVsbG8',
        '',
      ]),
    );
    // A base64 body cut short and with bytes that are not base64.
    await imap.append(
      address,
      crlf([
        from,
        `To: ${address}`,
        'Subject: Truncated base64',
        `Message-ID: <${ids.base64}>`,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: base64',
        '',
        b64(Buffer.from('The base64 body, ')),
        'dHJ1bmNhdGVk!!*',
        '',
      ]),
    );
    // A charset nobody knows, in the subject's encoded word and the body.
    await imap.append(
      address,
      bytesMail(
        [
          from,
          `To: ${address}`,
          'Subject: =?x-no-such-charset?Q?Unknown_charset?=',
          `Message-ID: <${ids.charset}>`,
          'MIME-Version: 1.0',
          'Content-Type: text/plain; charset="x-no-such-charset"',
        ],
        Buffer.from('Plain words in an unknown charset', 'latin1'),
      ),
    );
    // Header garbage: control bytes, no usable sender, broken address lists and ids, a header with no name.
    const garbageSubject = `Header garbage ${uniq()}`;
    await imap.append(
      address,
      Buffer.from(
        crlf([
          'From: \x01\x02 <<<>>>@@',
          'To: ,,,;;;<',
          'Cc: "unclosed <quote@',
          `Subject: \x7f${garbageSubject}\x01`,
          'In-Reply-To: <<<<',
          'References: >>> <',
          'X-Folded-Nothing:',
          ' ',
          'Content-Type: text/plain; charset=',
          '',
          'The body under the garbage',
          '',
        ]),
        'latin1',
      ),
    );
    await canary();

    expect((await messageOf(ids.boundary)).message.message).toContain('The text behind a wrong boundary');
    const unclosed = await messageOf(ids.unclosed);
    expect(unclosed.message.message).toContain('The first part arrived');
    expect(JSON.parse(unclosed.message.files).map((f: { fileName: string }) => f.fileName)).toEqual(['cut.bin']);
    expect((await messageOf(ids.base64)).message.message).toContain('The base64 body, truncated');
    const charset = await messageOf(ids.charset);
    expect(charset.ticket.title).toContain('Unknown');
    expect(charset.message.message).toContain('Plain words in an unknown charset');
    // No Message-ID: stored under the hash of its bytes; no valid sender: a ticket without an address.
    const garbage = await db()
      .selectFrom('tickets')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('title', '=', garbageSubject)
      .executeTakeFirstOrThrow();
    expect(garbage.email).toBe('');
    const [m] = await db()
      .selectFrom('messages')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('ticket_id', '=', garbage.id)
      .execute();
    expect(m!.message).toContain('The body under the garbage');
    expect(JSON.parse(String(m!.email_meta))).toMatchObject({ to: [], cc: [] });
  }, 60_000);

  it('EMAIL a mail mailparser cannot read at all (a header over 1 MB) is passed over with an error naming its UID', async () => {
    const before = await ticketCount();
    const junk = Array.from({ length: 20_000 }, (_, i) => ` junk-${i}-${'x'.repeat(50)}`).join('\r\n');
    const uid = await imap.append(
      address,
      crlf([
        'From: Hugh <hugh@customer.example>',
        `To: ${address}`,
        'Subject: A header too big',
        `Message-ID: <huge-${uniq()}@customer.example>`,
        `X-Junk:${junk}`,
        'Content-Type: text/plain',
        '',
        'Never read',
        '',
      ]),
    );
    expect(uid).toBeGreaterThan(0);
    const row = await waitFor(
      async () => {
        const r = await mailboxRow(address);
        return r.last_error?.startsWith(`Mail UID ${uid} could not be read`) ? r : null;
      },
      'the error naming the UID',
      30_000,
    );
    expect(Number(row.last_uid)).toBe(uid);
    expect(await ticketCount()).toBe(before);
    // The next mail arrives, and clears the error.
    await canary();
    expect(await ticketCount()).toBe(before + 1);
  }, 60_000);

  it('EMAIL subjects and bodies in UTF-8, ISO-8859-1, Windows-1252, GB2312 and Shift_JIS are stored as Unicode', async () => {
    const cases = [
      {
        charset: 'utf-8',
        subject: 'Grüße — ünïcödé ✓ 😀',
        body: Buffer.from('Straße, naïve café ✓ 😀', 'utf8'),
        text: 'Straße, naïve café ✓ 😀',
        encoding: '8bit',
      },
      {
        charset: 'iso-8859-1',
        subject: 'Café crème brûlée',
        body: Buffer.from('566f696ce02c20e76120636ffb7465203520455552', 'hex'),
        text: 'Voilà, ça coûte 5 EUR',
        encoding: '8bit',
      },
      {
        charset: 'windows-1252',
        subject: '€ price “quoted” — dash',
        // quoted-printable over the Windows-1252 bytes of "Le prix: 5 € – “merci”".
        body: Buffer.from('Le prix: 5 =80 =96 =93merci=94'),
        text: 'Le prix: 5 € – “merci”',
        encoding: 'quoted-printable',
      },
      {
        charset: 'gb2312',
        subject: '你好世界',
        body: Buffer.from('d6d0cec4d3cabcfec4dac8dd', 'hex'),
        text: '中文邮件内容',
        encoding: '8bit',
      },
      {
        charset: 'shift_jis',
        subject: 'こんにちは',
        body: Buffer.from('93fa967b8cea82cc8381815b838b82c582b7', 'hex'),
        text: '日本語のメールです',
        encoding: '8bit',
      },
    ];
    const subjectBytes: Record<string, string> = {
      'utf-8': Buffer.from(cases[0]!.subject, 'utf8').toString('hex'),
      'iso-8859-1': '436166e9206372e86d65206272fb6ce965',
      'windows-1252': '80207072696365209371756f7465649420972064617368',
      gb2312: 'c4e3bac3cac0bde7',
      shift_jis: '82b182f182c982bf82cd',
    };
    const ids: string[] = [];
    for (const c of cases) {
      const id = `charset-${c.charset}-${uniq()}@customer.example`;
      ids.push(id);
      await imap.append(
        address,
        bytesMail(
          [
            `From: ${word(c.charset, Buffer.from(subjectBytes[c.charset]!.slice(0, 8), 'hex'))} <${c.charset}@customer.example>`,
            `To: ${address}`,
            `Subject: ${word(c.charset, Buffer.from(subjectBytes[c.charset]!, 'hex'))}`,
            `Message-ID: <${id}>`,
            'MIME-Version: 1.0',
            `Content-Type: text/plain; charset=${c.charset}`,
            `Content-Transfer-Encoding: ${c.encoding}`,
          ],
          c.body,
        ),
      );
    }
    for (const [i, c] of cases.entries()) {
      const { message, ticket } = await messageOf(ids[i]!);
      expect(ticket.title).toBe(c.subject);
      expect(JSON.parse(String(message.email_meta)).subject).toBe(c.subject);
      // mailparser writes non-ASCII text as HTML character references: read them as a browser would.
      const decoded = message.message
        .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
        .replace(/&#([0-9]+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
        .replace(/&([a-z]+);/gi, (all, name: string) => NAMED[name] ?? all);
      expect(decoded).toContain(c.text);
      expect(message.message).not.toContain('\ufffd');
    }
  }, 60_000);

  it('EMAIL 1,000 mails in a burst from one sender: all stored, in order, one ticket per new thread', async () => {
    const user = 'burst@example.test';
    const before = await ticketCount();
    const threads = 100;
    const per = 10;
    const ids: string[][] = Array.from({ length: threads }, () => []);
    for (let i = 0; i < threads * per; i++) {
      const t = i % threads;
      const n = ids[t]!.length;
      const id = `burst-${t}-${n}-${uniq()}@customer.example`;
      const parent = ids[t]![n - 1];
      ids[t]!.push(id);
      await imap.append(
        user,
        rawMail({
          from: 'Flo Flood <flo@customer.example>',
          to: user,
          subject: n === 0 ? `Burst thread ${t}` : `Re: Burst thread ${t}`,
          messageId: id,
          text: `thread ${t} mail ${n}`,
          ...(parent ? { inReplyTo: parent, references: `<${parent}>` } : {}),
        }),
      );
    }
    const last = String(ids.at(-1)?.at(-1));
    await waitFor(() => storedId(last), 'the last mail of the burst', 240_000, 100);
    expect(await ticketCount()).toBe(before + threads);
    const rows = await db()
      .selectFrom('email_message_ids')
      .select(['message_id', 'ticket_id', 'message_row_id'])
      .where('account_id', '=', admin.accountId)
      .where('mailbox_id', '=', boxes[user]!)
      .orderBy('message_row_id')
      .execute();
    expect(rows).toHaveLength(threads * per);
    // Stored in the order they arrived (message ids grow with the UIDs), each thread in one ticket.
    expect(rows.map((r) => r.message_id)).toEqual(
      Array.from({ length: threads * per }, (_, i) => ids[i % threads]![Math.floor(i / threads)]),
    );
    for (const thread of ids) {
      const tickets = new Set(thread.map((id) => Number(rows.find((r) => r.message_id === id)!.ticket_id)));
      expect(tickets.size).toBe(1);
    }
    await canary(user);
  }, 300_000);

  it('EMAIL a loop between two of our mailboxes: mail from our own address or auto-submitted sends nothing and makes no ticket', async () => {
    const before = await ticketCount();
    const queued = async () =>
      Number(
        (
          await db()
            .selectFrom('events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', admin.accountId)
            .where('type', 'like', 'email.%')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const queuedBefore = await queued();
    const loop: string[] = [];
    // A's auto-reply lands in B, B's in A, a few rounds; then one from our own address with no auto header
    // (a forward or an out-of-office that does not say so), and an outside auto-reply.
    for (let round = 0; round < 3; round++)
      for (const [fromBox, toBox] of [
        ['loopa@example.test', 'loopb@example.test'],
        ['loopb@example.test', 'loopa@example.test'],
      ] as const) {
        const id = `loop-${round}-${uniq()}@example.test`;
        loop.push(id);
        await imap.append(
          toBox,
          rawMail({
            from: `Loop <${fromBox.toUpperCase()}>`,
            to: toBox,
            subject: `Auto: out of office (${round})`,
            messageId: id,
            headers: { 'Auto-Submitted': 'auto-replied' },
          }),
        );
      }
    await imap.append(
      'loopb@example.test',
      rawMail({
        from: 'loopa@example.test',
        to: 'loopb@example.test',
        subject: 'Forwarded',
        messageId: `fw-${uniq()}@x`,
      }),
    );
    await imap.append(
      'loopa@example.test',
      rawMail({
        from: 'Someone <someone@customer.example>',
        to: 'loopa@example.test',
        subject: 'I am away',
        messageId: `away-${uniq()}@customer.example`,
        headers: { 'Auto-Submitted': 'auto-replied' },
      }),
    );
    await canary('loopa@example.test');
    await canary('loopb@example.test');
    // Only the two canaries made tickets; nothing was queued to send, nothing reached the SMTP server.
    expect(await ticketCount()).toBe(before + 2);
    for (const id of loop) expect(await storedId(id)).toBeUndefined();
    expect(await queued()).toBe(queuedBefore);
    expect(smtp.mail).toEqual([]);
  }, 60_000);

  it('EMAIL HTML with <script> and on* handlers is stored as sent', async () => {
    const id = `script-${uniq()}@customer.example`;
    const html =
      '<p>Hi</p><script>window.__pwned=1</script><img src="x" onerror="window.__pwned=2"><a href="javascript:alert(1)">x</a>';
    await imap.append(
      address,
      crlf([
        'From: Mal <mal@customer.example>',
        `To: ${address}`,
        'Subject: Scripted',
        `Message-ID: <${id}>`,
        'MIME-Version: 1.0',
        'Content-Type: text/html; charset=utf-8',
        '',
        html,
        '',
      ]),
    );
    const { message } = await messageOf(id);
    expect(message.type).toBe('text/html');
    expect(message.message).toContain(html);
  });
});

describe('bad mail parsed', () => {
  it('EMAIL control bytes and NUL (which Postgres refuses in text) never reach what is stored', async () => {
    // Dovecot drops NUL on APPEND; another IMAP server or a relay may not.
    const mail = await parseMail(
      Buffer.from(
        crlf([
          'From: Nu\x00l \x01<nul@customer.example>',
          'To: help@example.test, \x00bad',
          'Subject: a\x00b\x1bc',
          'Message-ID: <id\x00x@customer.example>',
          'In-Reply-To: <re\x00ply@customer.example>',
          'Content-Type: multipart/mixed; boundary="b"',
          '',
          '--b',
          'Content-Type: text/html; charset=utf-8',
          '',
          '<p>bo\x00dy</p>',
          '--b',
          'Content-Type: text/plain; name="fi\x00le.txt"',
          'Content-Disposition: attachment; filename="fi\x00le.txt"',
          '',
          'x',
          '--b--',
          '',
        ]),
        'latin1',
      ),
    );
    const text = JSON.stringify({ ...mail, attachments: mail.attachments.map((a) => a.name) });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the bytes looked for
    expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(mail).toMatchObject({
      subject: 'abc',
      from: { name: 'Nul', address: 'nul@customer.example' },
      to: ['help@example.test'],
      messageId: 'idx@customer.example',
      parents: ['reply@customer.example'],
    });
    expect(mail.html).toContain('<p>body</p>');
    expect(mail.attachments.map((a) => a.name)).toEqual(['file.txt']);
  });
});
