import { randomBytes } from 'node:crypto';
import { EMAIL_STRINGS } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules, createParley, type Parley } from '../../app.js';
import { apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { type Dovecot, hasDovecot, rawMail, startDovecot } from '../../testing/dovecot.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { StaleFetch, storeBatch, storeMail } from './commands/storeMail.js';
import { parseMail } from './parseMail.js';

const KEY = randomBytes(32).toString('base64');

/** A Parley over a database that outlives it, so a test can stop one and start another on the same data. */
async function startOver(env: Record<string, string>, nodeId: string): Promise<Parley & { url: string }> {
  const parley = await createParley(
    // Polls a minute apart (the default): mail arriving within a test's waits came by IDLE.
    testConfig({ ...env, SECRETS_KEY: KEY, EMAIL_POLL_MS: '60000', NODE_ID: nodeId }),
    { logger: pino({ level: 'silent' }) },
  );
  const port = await parley.listen();
  return Object.assign(parley, { url: `http://127.0.0.1:${port}` });
}

/** The shared poll, read with what it waits for first; every 50 ms (these checks read a database). */
const until = <T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> =>
  waitFor(fn, what, ms, 50) as Promise<T>;

describe.skipIf(!hasDovecot).each(dialects)('e-mail in by IMAP from a real Dovecot (%s)', (dialect) => {
  let imap: Dovecot;
  let data: Awaited<ReturnType<typeof freshDatabase>>;
  let s: Parley & { url: string };
  let call: Call;
  let admin: SignedUp;
  let mailboxId: number;
  const address = 'help@example.test';
  const db = () => s.handle.db;

  const mailbox = (user: string, over: Record<string, unknown> = {}) => ({
    address: user === 'box1@example.test' ? address : user,
    name: 'Help',
    departmentId: null,
    active: true,
    imap: { host: '127.0.0.1', port: imap.port, tls: false, user, password: imap.password },
    smtp: { host: '127.0.0.1', port: 25, tls: false, user, password: '' },
    ...over,
  });
  const tickets = () =>
    db()
      .selectFrom('tickets')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('channel', '=', 'EMAIL')
      .orderBy('id')
      .execute();
  const messagesOf = (ticketId: number) =>
    db()
      .selectFrom('messages')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('ticket_id', '=', ticketId)
      .orderBy('id')
      .execute();
  const storedId = (messageId: string) =>
    db()
      .selectFrom('email_message_ids')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();

  beforeAll(async () => {
    imap = await startDovecot(['box1@example.test', 'box2@example.test', 'box3@example.test']);
    data = await freshDatabase(dialect, { migrated: true });
    s = await startOver(data.env, `node-a-${uniq()}`);
    call = apiClient(s.url);
    admin = await signUpVia(call);
    const dep = await call('POST', '/api/departments', { token: admin.token, body: { name: `help-${uniq()}` } });
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: mailbox('box1@example.test', { departmentId: dep.body.data.id }),
    });
    expect(made.status, made.text).toBe(200);
    mailboxId = made.body.data.id;
    // Connected: the first fetch has run (nothing was waiting).
    await until('the first fetch', async () =>
      (await call('GET', '/api/mailboxes', { token: admin.token })).body.data.find(
        (m: { id: number; lastFetchAt: number | null }) => m.id === mailboxId && m.lastFetchAt,
      ),
    );
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await imap?.stop();
    await data?.drop();
  });

  it('EMAIL a mail appended becomes a ticket with its customer, body and attachment; replies join it', async () => {
    const first = `first-${uniq()}@customer.example`;
    await imap.append(
      'box1@example.test',
      rawMail({
        from: 'Carl Customer <carl@customer.example>',
        to: address,
        subject: 'My order has not arrived',
        messageId: first,
        text: 'Where is order 42?',
        attachment: { name: 'receipt.txt', type: 'text/plain', content: Buffer.from('Receipt for order 42\n') },
      }),
    );
    const [ticket] = await until('the ticket', async () => {
      const t = await tickets();
      return t.length === 1 && t;
    });
    expect(ticket).toMatchObject({
      title: 'My order has not arrived',
      name: 'Carl Customer',
      email: 'carl@customer.example',
      receiver_email: address,
      closed: 0,
      has_responded: 0,
    });
    expect(ticket!.department_id).not.toBeNull();
    const [m] = await messagesOf(Number(ticket!.id));
    expect(m).toMatchObject({ type: 'text/html', sender: 'visitor', sender_name: 'Carl Customer' });
    expect(m!.message).toContain('Where is order 42?');
    expect(JSON.parse(String(m?.email_meta))).toEqual({ to: [address], cc: [], subject: 'My order has not arrived' });
    const files = JSON.parse(m!.files);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ fileName: 'receipt.txt', fileType: 'text/plain' });
    const served = await fetch(`${s.url}${files[0].file}`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(await served.text()).toBe('Receipt for order 42\n');
    expect(await storedId(first)).toMatchObject({ ticket_id: Number(ticket!.id), direction: 'in' });

    // In-Reply-To joins it.
    const reply = `reply-${uniq()}@customer.example`;
    await imap.append(
      'box1@example.test',
      rawMail({
        from: 'Carl Customer <carl@customer.example>',
        to: address,
        subject: 'Re: My order has not arrived',
        messageId: reply,
        inReplyTo: first,
        references: `<${first}>`,
        text: 'Any news?',
      }),
    );
    await until('the reply', async () => (await messagesOf(Number(ticket!.id))).length === 2);
    // A [#N] tag in the subject joins it too, even from a client that drops the headers.
    await imap.append(
      'box1@example.test',
      rawMail({
        from: 'carl@customer.example',
        to: address,
        subject: `Still waiting [#${ticket!.ticket_number}]`,
        messageId: `tag-${uniq()}@customer.example`,
        text: 'Hello again',
      }),
    );
    await until('the tagged mail', async () => (await messagesOf(Number(ticket!.id))).length === 3);
    expect(await tickets()).toHaveLength(1);
  });

  it('EMAIL a reply to a closed ticket reopens it with a system message; an auto-reply makes no ticket and no wait', async () => {
    const id = `closed-${uniq()}@customer.example`;
    await imap.append(
      'box1@example.test',
      rawMail({ from: 'Dana <dana@customer.example>', to: address, subject: 'Refund', messageId: id, text: 'Refund?' }),
    );
    const ticketId = (await until('the ticket', async () => (await storedId(id))?.ticket_id)) as number;
    const closed = await call('POST', '/api/ticket/status', { token: admin.token, body: { id: ticketId, status: 3 } });
    expect(closed.status, closed.text).toBe(200);
    const answered = await call('POST', '/api/ticket/message', {
      token: admin.token,
      body: { ticket_id: ticketId, message: 'Refunded.' },
    });
    expect(answered.status, answered.text).toBe(200);
    const before = await db().selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirstOrThrow();
    expect(before).toMatchObject({ closed: 3, has_responded: 1 });

    // An out-of-office answer threads to the ticket: stored, but neither reopens it nor makes it wait.
    const ooo = `ooo-${uniq()}@customer.example`;
    await imap.append(
      'box1@example.test',
      rawMail({
        from: 'Dana <dana@customer.example>',
        to: address,
        subject: 'Auto: Refund',
        messageId: ooo,
        inReplyTo: id,
        headers: { 'Auto-Submitted': 'auto-replied' },
        text: 'I am away.',
      }),
    );
    await until('the auto-reply', async () => storedId(ooo));
    const quiet = await db().selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirstOrThrow();
    expect(quiet).toMatchObject({ closed: 3, has_responded: 1, last_message_at: before.last_message_at });

    // Auto-replies and bounces of a new conversation make no ticket.
    const count = (await tickets()).length;
    const noise: Record<string, string>[] = [
      { 'Auto-Submitted': 'auto-generated' },
      { 'X-Autoreply': 'yes' },
      { 'X-Autorespond': 'yes' },
      { Precedence: 'bulk' },
      { Precedence: 'auto_reply' },
    ];
    for (const headers of noise)
      await imap.append(
        'box1@example.test',
        rawMail({
          from: 'robot@elsewhere.example',
          to: address,
          subject: 'Out of office',
          messageId: `noise-${uniq()}@elsewhere.example`,
          headers,
        }),
      );
    await imap.append(
      'box1@example.test',
      [
        'From: MAILER-DAEMON@elsewhere.example',
        `To: ${address}`,
        'Subject: Undelivered Mail Returned to Sender',
        `Message-ID: <bounce-${uniq()}@elsewhere.example>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'Delivery failed.',
        '--b',
        'Content-Type: message/delivery-status',
        '',
        'Status: 5.1.1',
        '--b--',
        '',
      ].join('\r\n'),
    );
    // The customer answers for real: the ticket opens again.
    const again = `again-${uniq()}@customer.example`;
    await imap.append(
      'box1@example.test',
      rawMail({
        from: 'Dana <dana@customer.example>',
        to: address,
        subject: 'Re: Refund',
        messageId: again,
        references: `<${id}>`,
        text: 'Not received yet.',
      }),
    );
    await until('the answer', async () => storedId(again));
    expect(await tickets()).toHaveLength(count);
    const reopened = await db().selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirstOrThrow();
    expect(reopened).toMatchObject({ closed: 0, has_responded: 0 });
    const said = (await messagesOf(ticketId)).filter((m) => m.type === 'system').map((m) => m.message);
    expect(said).toContain(EMAIL_STRINGS.reopened);
    const audit = await db()
      .selectFrom('audit_log')
      .select(['user_id', 'actor', 'detail'])
      .where('account_id', '=', admin.accountId)
      .where('action', '=', 'ticket.status_set')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ user_id: null, actor: 'server' });
  });

  it("EMAIL an attachment the plan's storage refuses leaves the mail stored with a note instead", async () => {
    // The account's storage is full (1 GB on a trial): a row standing for a big file.
    await db()
      .insertInto('uploads')
      .values({
        account_id: admin.accountId,
        ticket_id: null,
        user_id: null,
        key: `full${uniq()}${uniq()}${uniq()}`,
        name: 'big.bin',
        mime: 'application/octet-stream',
        size: 1024 ** 3,
        thumb_key: null,
        created_at: Date.now(),
      })
      .execute();
    try {
      const id = `full-${uniq()}@customer.example`;
      await imap.append(
        'box1@example.test',
        rawMail({
          from: 'Erin <erin@customer.example>',
          to: address,
          subject: 'Photo attached',
          messageId: id,
          text: 'See the photo.',
          attachment: { name: 'photo.txt', type: 'text/plain', content: Buffer.from('pretend photo') },
        }),
      );
      const ticketId = (await until('the mail', async () => (await storedId(id))?.ticket_id)) as number;
      const [m] = await messagesOf(ticketId);
      expect(JSON.parse(m!.files)).toEqual([]);
      expect(m!.message).toContain('See the photo.');
      expect(m!.message).toContain(EMAIL_STRINGS.attachmentNotStored('photo.txt', "Your plan's storage is full."));
    } finally {
      await db()
        .deleteFrom('uploads')
        .where('account_id', '=', admin.accountId)
        .where('name', '=', 'big.bin')
        .execute();
    }
  });

  it('EMAIL a stale fence writes nothing: another node or a stored UID', async () => {
    const mail = await parseMail(
      Buffer.from(rawMail({ from: 'x@customer.example', to: address, subject: 'x', messageId: `x-${uniq()}@c` })),
    );
    const row = await db().selectFrom('mailboxes').selectAll().where('id', '=', mailboxId).executeTakeFirstOrThrow();
    const box = { id: mailboxId, accountId: admin.accountId, address, departmentId: null };
    const deps = { db: db(), conversations: conversationRules(), dataDir: s.config.DATA_DIR };
    const before = (await tickets()).length;
    await expect(
      storeMail(
        deps,
        box,
        { nodeId: 'some-other-node', uidValidity: row.uid_validity!, uid: Number(row.last_uid) + 1 },
        mail,
      ),
    ).rejects.toBeInstanceOf(StaleFetch);
    await expect(
      storeMail(
        deps,
        box,
        { nodeId: row.lease_owner, uidValidity: row.uid_validity!, uid: Number(row.last_uid) },
        mail,
      ),
    ).rejects.toBeInstanceOf(StaleFetch);
    expect(await tickets()).toHaveLength(before);
  });

  it('EMAIL plain mails stored several to a transaction: threading, a duplicate and the UID fence inside one batch', async () => {
    // A switched-off mailbox whose lease the test holds itself, so no fetcher moves its UIDs meanwhile.
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: mailbox('box3@example.test', { active: false }),
    });
    expect(made.status, made.text).toBe(200);
    const id = made.body.data.id as number;
    await db()
      .updateTable('mailboxes')
      .set({ lease_owner: 'batch-node', lease_until: Date.now() + 600_000, uid_validity: '7', last_uid: 0 })
      .where('id', '=', id)
      .execute();
    const box = { id, accountId: admin.accountId, address: 'box3@example.test', departmentId: null };
    const deps = { db: db(), conversations: conversationRules(), dataDir: s.config.DATA_DIR };
    const fence = (uid: number) => ({ nodeId: 'batch-node', uidValidity: '7', uid });
    const parsed = (o: Parameters<typeof rawMail>[0]) => parseMail(Buffer.from(rawMail(o)));
    const a = `batch-a-${uniq()}@customer.example`;
    const d = `batch-d-${uniq()}@customer.example`;
    const mails = [
      await parsed({ from: 'Ann <ann@customer.example>', to: 'box3@example.test', subject: 'Batch A', messageId: a }),
      // A reply to the first mail of the same batch joins its ticket.
      await parsed({
        from: 'ann@customer.example',
        to: 'box3@example.test',
        subject: 'Re: Batch A',
        messageId: `batch-b-${uniq()}@customer.example`,
        inReplyTo: a,
      }),
      // The first mail again (the same Message-ID): once.
      await parsed({ from: 'ann@customer.example', to: 'box3@example.test', subject: 'Batch A', messageId: a }),
      await parsed({ from: 'dan@customer.example', to: 'box3@example.test', subject: 'Batch D', messageId: d }),
    ];
    const before = (await tickets()).length;
    const outcomes = await storeBatch(
      deps,
      box,
      mails.map((mail, i) => ({ fence: fence(i + 1), mail })),
    );
    expect(outcomes).toEqual(['stored', 'stored', 'duplicate', 'stored']);
    const made2 = (await tickets()).slice(before);
    expect(made2.map((t) => t.title)).toEqual(['Batch A', 'Batch D']);
    expect(await messagesOf(Number(made2[0]!.id))).toHaveLength(2);
    const row = await db().selectFrom('mailboxes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.last_uid)).toBe(4);

    // A batch whose first UID is counted already (another node stored it): nothing of it is written.
    const late = await parsed({
      from: 'eve@customer.example',
      to: 'box3@example.test',
      subject: 'Batch late',
      messageId: `batch-late-${uniq()}@customer.example`,
    });
    const e = `batch-e-${uniq()}@customer.example`;
    const other = await parsed({ from: 'eve@customer.example', to: 'box3@example.test', subject: 'E', messageId: e });
    await expect(
      storeBatch(deps, box, [
        { fence: fence(4), mail: late },
        { fence: fence(5), mail: other },
      ]),
    ).rejects.toBeInstanceOf(StaleFetch);
    expect(await storedId(e)).toBeUndefined();
    expect((await tickets()).length).toBe(before + 2);

    // A batch the database refuses (here: a new ticket in a department that does not exist) is stored one
    // mail at a time: the reply before the bad mail is stored and counted, the bad mail's error is thrown.
    const reply = `batch-r-${uniq()}@customer.example`;
    const bad = `batch-bad-${uniq()}@customer.example`;
    await expect(
      storeBatch(deps, { ...box, departmentId: 999_999_999 }, [
        {
          fence: fence(5),
          mail: await parsed({
            from: 'dan@customer.example',
            to: 'box3@example.test',
            subject: 'Re: Batch D',
            messageId: reply,
            inReplyTo: d,
          }),
        },
        {
          fence: fence(6),
          mail: await parsed({ from: 'x@customer.example', to: 'box3@example.test', subject: 'Bad', messageId: bad }),
        },
      ]),
    ).rejects.toThrow();
    expect(await storedId(reply)).toBeDefined();
    expect(await storedId(bad)).toBeUndefined();
    expect(
      Number(
        (await db().selectFrom('mailboxes').select('last_uid').where('id', '=', id).executeTakeFirstOrThrow()).last_uid,
      ),
    ).toBe(5);
  });

  it('EMAIL a restart (a new app over the same database) with mails added meanwhile stores each exactly once', async () => {
    const made = await call('POST', '/api/mailboxes', { token: admin.token, body: mailbox('box2@example.test') });
    const box2 = made.body.data.id as number;
    const sent: string[] = [];
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const id = `restart-${uniq()}@customer.example`;
        sent.push(id);
        await imap.append(
          'box2@example.test',
          rawMail({ from: `c${i}@customer.example`, to: 'box2@example.test', subject: `Restart ${i}`, messageId: id }),
        );
      }
    };
    await until(
      'box2 connected',
      async () =>
        (await db().selectFrom('mailboxes').select('last_fetch_at').where('id', '=', box2).executeTakeFirst())
          ?.last_fetch_at,
    );
    await send(5);
    await until('the first five', async () => (await Promise.all(sent.map(storedId))).every(Boolean));
    await s.close();
    await send(5);
    s = await startOver(data.env, `node-b-${uniq()}`);
    call = apiClient(s.url);
    await send(5);
    await until('all fifteen', async () => (await Promise.all(sent.map(storedId))).every(Boolean), 30_000);
    const rows = await db()
      .selectFrom('email_message_ids')
      .select(['message_id', 'message_row_id'])
      .where('account_id', '=', admin.accountId)
      .where('mailbox_id', '=', box2)
      .execute();
    expect(rows.map((r) => r.message_id).sort()).toEqual([...sent].sort());
    const msgs = await db()
      .selectFrom('messages')
      .select('id')
      .where('account_id', '=', admin.accountId)
      .where('sender', '=', 'visitor')
      .where(
        'id',
        'in',
        rows.map((r) => Number(r.message_row_id)),
      )
      .execute();
    expect(msgs).toHaveLength(15);
    const titles = (await tickets()).map((t) => t.title).filter((t) => t.startsWith('Restart '));
    expect(titles).toHaveLength(15);
  }, 60_000);
});

describe.skipIf(!hasDovecot || !dialects.includes('postgres'))('e-mail in on two nodes (postgres)', () => {
  it('EMAIL two app instances with one mailbox: 30 mails, each stored exactly once, across a hand-over', async () => {
    // An empty database: the two nodes migrate it as they start, as a real pair would.
    const data = await freshDatabase('postgres');
    const imap = await startDovecot(['shared@example.test']).catch(async (err) => {
      await data.drop();
      throw err;
    });
    const nodes: (Parley & { url: string })[] = [];
    try {
      nodes.push(await startOver(data.env, 'node-one'), await startOver(data.env, 'node-two'));
      const call = apiClient(nodes[0]!.url);
      const admin = await signUpVia(call);
      const made = await call('POST', '/api/mailboxes', {
        token: admin.token,
        body: {
          address: 'shared@example.test',
          name: 'Shared',
          departmentId: null,
          active: true,
          imap: {
            host: '127.0.0.1',
            port: imap.port,
            tls: false,
            user: 'shared@example.test',
            password: imap.password,
          },
          smtp: { host: '127.0.0.1', port: 25, tls: false, user: 'shared@example.test', password: '' },
        },
      });
      expect(made.status, made.text).toBe(200);
      // The other node learns of the mailbox by its own scan, and both try for the lease.
      nodes[1]!.email.refresh();
      let alive = 0;
      const db = () => nodes[alive]!.handle.db;
      const stored = async () =>
        db()
          .selectFrom('email_message_ids')
          .select(['message_id', 'message_row_id'])
          .where('account_id', '=', admin.accountId)
          .execute();
      const sent: string[] = [];
      // One after another on one IMAP connection, while the nodes fetch.
      const send = async (from: number, n: number) => {
        for (let i = from; i < from + n; i++) {
          const id = `pair-${i}-${uniq()}@customer.example`;
          sent.push(id);
          await imap.append(
            'shared@example.test',
            rawMail({ from: `p${i}@customer.example`, to: 'shared@example.test', subject: `Pair ${i}`, messageId: id }),
          );
        }
      };
      await send(0, 15);
      await until('the first fifteen', async () => (await stored()).length === 15, 30_000);
      // The node holding the lease stops; the other takes the mailbox over.
      const lease = await db().selectFrom('mailboxes').select('lease_owner').executeTakeFirstOrThrow();
      const holder = nodes.findIndex((n) => n.nodeId === lease.lease_owner);
      expect(holder).toBeGreaterThanOrEqual(0);
      alive = 1 - holder;
      await nodes[holder]!.close();
      await send(15, 15);
      await until('all thirty', async () => (await stored()).length >= 30, 40_000);
      // The survivor's count of UIDs has passed the last mail (the fresh mailbox numbers them from 1): what it
      // stores of a mail commits with that count's move, so every write for these thirty has landed and none
      // is fetched again.
      await until('the survivor past the last UID', async () => {
        const box = await db().selectFrom('mailboxes').select(['last_uid', 'lease_owner']).executeTakeFirst();
        return box && Number(box.last_uid) >= sent.length && box.lease_owner === nodes[alive]!.nodeId;
      });
      const rows = await stored();
      expect(rows.map((r) => r.message_id).sort()).toEqual([...sent].sort());
      const messages = await db()
        .selectFrom('messages')
        .select(['id', 'ticket_id'])
        .where('account_id', '=', admin.accountId)
        .where('sender', '=', 'visitor')
        .execute();
      expect(messages).toHaveLength(30);
      expect(new Set(messages.map((m) => Number(m.ticket_id))).size).toBe(30);
      const after = await db().selectFrom('mailboxes').select('lease_owner').executeTakeFirstOrThrow();
      expect(after.lease_owner).toBe(nodes[1 - holder]!.nodeId);
    } finally {
      for (const n of nodes) await n.close();
      await imap.stop();
      await data.drop();
    }
  }, 90_000);
});
