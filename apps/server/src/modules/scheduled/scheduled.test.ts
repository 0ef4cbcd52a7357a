import { SCHEDULED_STRINGS } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { sendScheduledMessages } from './scheduled.js';

describe.each(dialects)('scheduled messages (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string; username: string };
  let other: { token: string };
  const db = () => s.handle.db;
  const newTicket = async (title = `Scheduled ${uniq()}`) => {
    const r = await call('POST', '/api/ticket/create', { token: admin.token, body: { title } });
    expect(r.status, r.text).toBe(200);
    return r.body.data.id as number;
  };
  const messagesOf = (ticketId: number) =>
    db()
      .selectFrom('messages')
      .select(['id', 'message', 'sender', 'sender_name'])
      .where('ticket_id', '=', ticketId)
      .where('type', '!=', 'system')
      .orderBy('id')
      .execute();
  const rowsCount = async () =>
    Number(
      (
        await db()
          .selectFrom('scheduled_messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    admin = await signUpVia(call);
    const name = `sched-${uniq()}`;
    agent = {
      ...(await addUserVia(call, admin.token, { username: name, type: 'agent', name: 'Sam Sched' })),
      username: name,
    };
    other = await addUserVia(call, admin.token, { username: `other-${uniq()}`, type: 'agent', name: 'Olga' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('SCHEDULED a reply kept until its time is posted once as its author, then no longer listed as pending', async () => {
    const ticket = await newTicket();
    const made = await call('POST', '/api/ticket/scheduled', {
      token: agent.token,
      body: { ticket_id: ticket, message: 'Following up as promised.', send_at: Date.now() + 1_500 },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data).toMatchObject({ state: 'pending', sender: agent.username, senderName: 'Sam Sched' });
    const listed = await call('GET', `/api/ticket/scheduled/${ticket}`, { token: agent.token });
    expect(listed.body.data.map((x: { id: number }) => x.id)).toEqual([made.body.data.id]);
    expect(await messagesOf(ticket)).toEqual([]);
    const sent = await waitFor(async () => {
      const ms = await messagesOf(ticket);
      return ms.length ? ms : null;
    }, 'the scheduled message');
    expect(sent.map((m) => [m.message, m.sender, m.sender_name])).toEqual([
      ['Following up as promised.', agent.username, 'Sam Sched'],
    ]);
    const row = await db()
      .selectFrom('scheduled_messages')
      .selectAll()
      .where('id', '=', made.body.data.id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('sent');
    expect(Number(row.message_row_id)).toBe(sent[0]!.id);
    expect((await call('GET', `/api/ticket/scheduled/${ticket}`, { token: agent.token })).body.data).toEqual([]);
  });

  it('SCHEDULED two senders at once (two nodes, or a run overlapping a slow one) send a due message once', async () => {
    const ticket = await newTicket();
    const at = Date.now() + 60 * 60_000;
    await call('POST', '/api/ticket/scheduled', {
      token: agent.token,
      body: { ticket_id: ticket, message: 'Exactly once', send_at: at },
    });
    // Two tasks of their own, with a clock past the time: the server's own task has not reached it.
    const later = () => at + 1;
    const log = pino({ level: 'silent' });
    const a = sendScheduledMessages(db(), conversationRules(), log, later);
    const b = sendScheduledMessages(db(), conversationRules(), log, later);
    await Promise.all([a.run(later()), b.run(later()), a.run(later())]);
    expect((await messagesOf(ticket)).map((m) => m.message)).toEqual(['Exactly once']);
  });

  it('SCHEDULED its author changes or cancels it until it goes; another agent may not; an admin may', async () => {
    const ticket = await newTicket();
    const made = await call('POST', '/api/ticket/scheduled', {
      token: agent.token,
      body: { ticket_id: ticket, message: 'Draft', send_at: Date.now() + 3_600_000 },
    });
    const id = made.body.data.id as number;
    const sendAt = Date.now() + 7_200_000;
    const changed = await call('PUT', `/api/ticket/scheduled/${id}`, {
      token: agent.token,
      body: { message: 'Final words', send_at: sendAt },
    });
    expect(changed.body.data).toMatchObject({ message: 'Final words', sendAt, state: 'pending' });
    const theirs = await call('PUT', `/api/ticket/scheduled/${id}`, {
      token: other.token,
      body: { message: 'Hijacked', send_at: sendAt },
    });
    expect(theirs.status).toBe(403);
    expect(theirs.body.description).toBe(SCHEDULED_STRINGS.notYours);
    expect((await call('DELETE', `/api/ticket/scheduled/${id}`, { token: other.token })).status).toBe(403);
    expect((await call('DELETE', `/api/ticket/scheduled/${id}`, { token: admin.token })).status).toBe(200);
    const after = await call('PUT', `/api/ticket/scheduled/${id}`, {
      token: agent.token,
      body: { message: 'Too late', send_at: sendAt },
    });
    expect(after.status).toBe(409);
    expect(after.body.description).toBe(SCHEDULED_STRINGS.notPending);
    const row = await db().selectFrom('scheduled_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect([row.state, row.message]).toEqual(['cancelled', 'Final words']);
  });

  it('SCHEDULED bad input: past, too far, empty, unknown or unschedulable ticket: clear errors, nothing written', async () => {
    const ticket = await newTicket();
    const before = await rowsCount();
    const cases: [unknown, number, string | undefined][] = [
      [{ ticket_id: ticket, message: 'x', send_at: Date.now() - 1000 }, 400, SCHEDULED_STRINGS.inPast],
      [{ ticket_id: ticket, message: 'x', send_at: Date.now() + 400 * 86_400_000 }, 400, SCHEDULED_STRINGS.tooFar],
      [{ ticket_id: ticket, message: '   ', send_at: Date.now() + 60_000 }, 400, undefined],
      [{ ticket_id: ticket, message: 'x', send_at: 'tomorrow' }, 400, undefined],
      [{ ticket_id: ticket, message: 'x'.repeat(20_001), send_at: Date.now() + 60_000 }, 400, undefined],
      [{ ticket_id: 987654321, message: 'x', send_at: Date.now() + 60_000 }, 404, undefined],
    ];
    for (const [body, status, words] of cases) {
      const r = await call('POST', '/api/ticket/scheduled', { token: agent.token, body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(r.body.description).toBeTruthy();
      if (words) expect(r.body.description).toBe(words);
    }
    // An e-mail ticket without a mailbox replies through SMTP_URL at once: it cannot wait.
    const mail = await db()
      .updateTable('tickets')
      .set({ channel: 'EMAIL' })
      .where('id', '=', await newTicket())
      .returning('id')
      .executeTakeFirstOrThrow();
    const r = await call('POST', '/api/ticket/scheduled', {
      token: agent.token,
      body: { ticket_id: Number(mail.id), message: 'x', send_at: Date.now() + 60_000 },
    });
    expect([r.status, r.body.description]).toEqual([409, SCHEDULED_STRINGS.noMailbox]);
    expect(await rowsCount()).toBe(before);
  });

  it('SCHEDULED an e-mail reply goes to the recipients and with the subject written; bad ones are refused', async () => {
    const mailbox = await db()
      .insertInto('mailboxes')
      .values({
        account_id: admin.accountId,
        address: `help-${uniq()}@example.net`,
        address_lower: `help-${uniq()}@example.net`,
        department_id: null,
        imap_host: '127.0.0.1',
        imap_port: 1,
        imap_tls: 0,
        imap_user: 'u',
        smtp_host: '127.0.0.1',
        smtp_port: 1,
        smtp_tls: 0,
        smtp_user: 'u',
        uid_validity: null,
        last_error: null,
        last_error_at: null,
        last_fetch_at: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const ticket = await newTicket('Invoice copy');
    await db()
      .updateTable('tickets')
      .set({ channel: 'EMAIL', mailbox_id: Number(mailbox.id), email: 'cara@example.net' })
      .where('id', '=', ticket)
      .execute();
    const at = Date.now() + 60 * 60_000;
    const schedule = (body: Record<string, unknown>) =>
      call('POST', '/api/ticket/scheduled', {
        token: agent.token,
        body: { ticket_id: ticket, message: 'Here is the copy.', send_at: at, ...body },
      });
    const before = await rowsCount();
    const refused = await schedule({ email: { to: ['cara@example.net', 'not an address'], cc: [], subject: 'x' } });
    expect([refused.status, refused.body.description]).toEqual([400, 'Please check the email address. not an address']);
    const noOne = await schedule({ email: { to: [], cc: [], subject: 'x' } });
    expect([noOne.status, noOne.body.description]).toEqual([400, SCHEDULED_STRINGS.noRecipient]);
    const chat = await schedule({
      ticket_id: await newTicket(),
      email: { to: ['a@example.net'], cc: [], subject: '' },
    });
    expect([chat.status, chat.body.description]).toEqual([400, SCHEDULED_STRINGS.notEmail]);
    expect(await rowsCount()).toBe(before);

    const made = await schedule({
      email: { to: ['cara@example.net', 'billing@example.net'], cc: ['boss@example.net'], subject: 'Your invoice' },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data.email).toEqual({
      to: ['cara@example.net', 'billing@example.net'],
      cc: ['boss@example.net'],
      subject: 'Your invoice',
    });
    // Without recipients: the ticket's customer and "Re: <title>".
    const plain = await schedule({ message: 'Plain follow-up.' });
    expect(plain.body.data.email).toBeNull();
    const later = () => at + 1;
    await sendScheduledMessages(db(), conversationRules(), pino({ level: 'silent' }), later).run(later());
    const sent = await db()
      .selectFrom('messages')
      .select(['message', 'email_meta'])
      .where('ticket_id', '=', ticket)
      .where('type', '!=', 'system')
      .orderBy('id')
      .execute();
    expect(sent.map((m) => [m.message, JSON.parse(m.email_meta ?? 'null')])).toEqual([
      [
        'Here is the copy.',
        expect.objectContaining({
          to: ['cara@example.net', 'billing@example.net'],
          cc: ['boss@example.net'],
          subject: 'Your invoice',
        }),
      ],
      ['Plain follow-up.', expect.objectContaining({ to: ['cara@example.net'], cc: [], subject: 'Re: Invoice copy' })],
    ]);
  });

  it("SCHEDULED another account's scheduled messages and tickets are not found", async () => {
    const ticket = await newTicket();
    const made = await call('POST', '/api/ticket/scheduled', {
      token: agent.token,
      body: { ticket_id: ticket, message: 'Mine', send_at: Date.now() + 3_600_000 },
    });
    const stranger = await signUpVia(call);
    const id = made.body.data.id;
    expect((await call('GET', `/api/ticket/scheduled/${ticket}`, { token: stranger.token })).status).toBe(404);
    expect(
      (
        await call('PUT', `/api/ticket/scheduled/${id}`, {
          token: stranger.token,
          body: { message: 'x', send_at: Date.now() + 60_000 },
        })
      ).status,
    ).toBe(404);
    expect((await call('DELETE', `/api/ticket/scheduled/${id}`, { token: stranger.token })).status).toBe(404);
    const row = await db().selectFrom('scheduled_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect([row.state, row.message]).toEqual(['pending', 'Mine']);
  });
});
