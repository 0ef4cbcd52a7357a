import {
  TICKET_CREATE_STRINGS,
  TicketCreateAnswer,
  TicketLoadAnswer,
  TicketReadAnswer,
  UnreadAnswer,
} from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { connectSocket, flushSockets, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { createTicket, touchTicketOnMessage } from './index.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Everything a socket receives of one event (the envelope's data). */
function listen<T = any>(so: TestSocket, name: string): T[] {
  const got: T[] = [];
  (so as unknown as { on(n: string, f: (e: { data: T }) => void): void }).on(name, (e) => got.push(e.data));
  return got;
}

describe.each(dialects)('ticket creation and read state (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  beforeAll(async () => {
    s = await startTestServer(dialect, { PRESENCE_GRACE_MS: String(3_600_000) });
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });
  const department = async (accountId: number) =>
    Number(
      (
        await db()
          .insertInto('departments')
          .values({ account_id: accountId, name: `D-${uniq()}`, created_at: Date.now() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );

  it('RT-31 RT-21 TICKET-01 TICKET-49 an agent creates a MANUAL ticket: numbered, createTicket to the account, channelData to non-admins', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const adminSo = await connectSocket(s.url, a.token, opened);
    const agentSo = await connectSocket(s.url, agent.token, opened);
    const otherSo = await connectSocket(s.url, b.token, opened);
    const created = [listen(adminSo, 'createTicket'), listen(agentSo, 'createTicket'), listen(otherSo, 'createTicket')];
    const channelAdmin = listen(adminSo, 'channelDataUpdated');
    const channelAgent = listen(agentSo, 'channelDataUpdated');

    const r = await call('POST', '/api/ticket/create', {
      token: agent.token,
      body: { title: 'Call back about invoice', name: 'Pat', phone: '+1 555', priority: 'H' },
    });
    expect(r.status, r.text).toBe(200);
    const t = TicketCreateAnswer.parse(r.body).data;
    expect(t).toMatchObject({
      channel: 'MANUAL',
      closed: 0,
      severity: 'H',
      title: 'Call back about invoice',
      read: false,
    });
    const second = await call('POST', '/api/ticket/create', { token: a.token, body: { title: 'Second' } });
    expect(second.body.data.ticket_number).toBe(t.ticket_number + 1);
    expect(
      (await call('POST', '/api/ticket/create', { token: b.token, body: { title: 'Theirs' } })).body.data.ticket_number,
    ).toBe(1);

    await waitFor(() => created[1]!.length >= 2 && channelAgent.length >= 2, 'createTicket and channelDataUpdated');
    await flushSockets(db(), a.accountId, [adminSo, agentSo]);
    await flushSockets(db(), b.accountId, [otherSo]);
    expect(created[0]!.map((x: { id: number }) => x.id)).toEqual([t.id, second.body.data.id]);
    expect(created[1]![0]).toMatchObject({ id: t.id, ticket_number: t.ticket_number, channel: 'MANUAL' });
    expect(created[1]![0]).not.toHaveProperty('read');
    expect(created[2]!.map((x: { title: string }) => x.title)).toEqual(['Theirs']);
    expect(channelAgent[0]).toEqual({ type: 'ticket', channel: 'MANUAL', ticketId: t.id, reason: 'created' });
    expect(channelAdmin).toEqual([]);

    // Bad input: nothing created.
    const before = (await db().selectFrom('tickets').select('id').execute()).length;
    const dOther = await department(b.accountId);
    for (const [body, msg] of [
      [{ title: '' }, 'Title is required.'],
      [{ title: 'x'.repeat(201) }, 'Title is too long.'],
      [{ title: 'ok', priority: 'X' }, null],
      [{ title: 'ok', department_id: dOther }, TICKET_CREATE_STRINGS.unknownDepartment],
      [{ title: 'ok', label: [999999] }, TICKET_CREATE_STRINGS.unknownLabel(999999)],
      [{ title: 'ok', campaign_id: 999999 }, TICKET_CREATE_STRINGS.unknownCampaign],
    ] as const) {
      const x = await call('POST', '/api/ticket/create', { token: a.token, body });
      expect(x.status, JSON.stringify(body)).toBe(400);
      if (msg) expect(x.body.description).toBe(msg);
    }
    expect((await db().selectFrom('tickets').select('id').execute()).length).toBe(before);
  });

  it('RT-21 createTicket inside a caller transaction: rolled back with it; department auto-assignment on creation', async () => {
    const a = await signUpVia(call);
    const dep = await department(a.accountId);
    const online = await addUserVia(call, a.token, { username: `on-${uniq()}`, type: 'agent' });
    await db()
      .updateTable('users')
      .set({ departments: JSON.stringify([dep]), status: 'ONLINE', second_status: '', status_since: Date.now() })
      .where('id', '=', online.id)
      .execute();

    // Used by other modules inside their own transaction: a failure after it leaves nothing behind.
    await expect(
      runCommand(db(), async (trx) => {
        await createTicket(trx, conversationRules(), {
          accountId: a.accountId,
          channel: 'EMAIL',
          title: 'Rolled back',
        });
        throw new Error('later step failed');
      }),
    ).rejects.toThrow('later step failed');
    expect(await db().selectFrom('tickets').where('title', '=', 'Rolled back').selectAll().execute()).toEqual([]);
    await expect(
      runCommand(db(), (trx) =>
        createTicket(trx, conversationRules(), { accountId: a.accountId, channel: 'NOPE', title: 'x' }),
      ),
    ).rejects.toThrow('Unknown channel');

    // Off by default: no assignee.
    const off = await runCommand(db(), (trx) =>
      createTicket(trx, conversationRules(), {
        accountId: a.accountId,
        channel: 'EMAIL',
        title: 'Unassigned',
        departmentId: dep,
      }),
    );
    expect(
      (await db().selectFrom('tickets').select('assignee').where('id', '=', off).executeTakeFirstOrThrow()).assignee,
    ).toBe('');

    // Switched on for the department (admin only; another account's department refused).
    const agentSet = await call('POST', '/api/ticket/autoassign/settings', {
      token: online.token,
      body: { department_id: dep, strategy: 'round_robin' },
    });
    expect(agentSet.status).toBe(403);
    const b = await signUpVia(call);
    const foreign = await call('POST', '/api/ticket/autoassign/settings', {
      token: b.token,
      body: { department_id: dep, strategy: 'round_robin' },
    });
    expect(foreign.status).toBe(400);
    const set = await call('POST', '/api/ticket/autoassign/settings', {
      token: a.token,
      body: { department_id: dep, strategy: 'least_loaded' },
    });
    expect(set.body.data).toEqual([{ department_id: dep, strategy: 'least_loaded' }]);
    expect((await call('GET', '/api/ticket/autoassign/settings', { token: a.token })).body.data).toHaveLength(1);

    const so = await connectSocket(s.url, a.token, opened);
    const order: string[] = [];
    for (const n of ['createTicket', 'updateTicket'])
      (so as unknown as { on(e: string, f: () => void): void }).on(n, () => order.push(n));
    const made = await call('POST', '/api/ticket/create', {
      token: a.token,
      body: { title: 'Routed', department_id: dep, email: 'c@example.net' },
    });
    expect(made.body.data.assignee).toBe(online.username);
    const rec = await db()
      .selectFrom('ticket_assignments')
      .selectAll()
      .where('ticket_id', '=', made.body.data.id)
      .execute();
    expect(rec.map((x) => [x.username, x.how])).toEqual([[online.username, 'least_loaded']]);
    await waitFor(() => order.length >= 2, 'createTicket then updateTicket');
    expect(order.slice(0, 2)).toEqual(['createTicket', 'updateTicket']);

    // Off again.
    await call('POST', '/api/ticket/autoassign/settings', {
      token: a.token,
      body: { department_id: dep, strategy: null },
    });
    const after = await call('POST', '/api/ticket/create', {
      token: a.token,
      body: { title: 'Off', department_id: dep },
    });
    expect(after.body.data.assignee).toBe('');
  });

  it('TICKET-41 TICKET-42 TICKET-57 RT-17 RT-33 RT-43 RT-44 messages mark news; reading clears it; unread counts per list', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const mk = (channel: string, title: string) =>
      runCommand(db(), (trx) =>
        createTicket(trx, conversationRules(), { accountId: a.accountId, channel, title, fromCustomer: true }),
      );
    const t1 = await mk('EMAIL', 'Mail');
    const t2 = await mk('WHATSAPP', 'Whatsapp');
    const lc = await mk('LIVECHAT', 'Visitor');
    const unread = async (token: string) => UnreadAnswer.parse((await call('GET', '/api/unread', { token })).body).data;
    expect(await unread(agent.token)).toEqual([
      { type: 'ticket', count: 2 },
      { type: 'livechat', count: 1 },
      { type: 'chat', count: 0 },
    ]);

    const agentSo = await connectSocket(s.url, agent.token, opened);
    const counts = listen(agentSo, 'unreadCount2');
    const updates = listen(agentSo, 'updateTicket');
    const channel2 = listen(agentSo, 'channelDataUpdated2');
    const read = await call('POST', '/api/ticket/read', { token: agent.token, body: { id: t1 } });
    expect(TicketReadAnswer.parse(read.body).unread[0]).toEqual({ type: 'ticket', count: 1 });
    await waitFor(() => counts.length > 0, 'unreadCount2');
    expect(counts[0]).toEqual({ data: TicketReadAnswer.parse(read.body).unread });
    expect(await agentSo.emitWithAck('receivedTicket', t2)).toMatchObject({ ok: true });
    expect(await agentSo.emitWithAck('receivedTicket', 999999)).toEqual({ ok: false, error: 'Not found.' });
    expect(await agentSo.emitWithAck('refreshTicketUnreadCount')).toEqual({
      ok: true,
      unread: [
        { type: 'ticket', count: 0 },
        { type: 'livechat', count: 1 },
        { type: 'chat', count: 0 },
      ],
    });
    // The admin's own read state is separate.
    expect((await unread(a.token))[0]).toEqual({ type: 'ticket', count: 2 });

    const list = async (token: string) =>
      TicketLoadAnswer.parse((await call('GET', '/ticket/load/me/open/ticket/0', { token })).body).data;
    expect((await list(agent.token)).find((x) => x.id === t1)).toMatchObject({ read: true, newMessage: false });

    // A customer writes again: news for the agent; updateTicket carries last_message_at.
    const at = Date.now() + 1000;
    await runCommand(db(), (trx) =>
      touchTicketOnMessage(trx, { accountId: a.accountId, ticketId: t1, fromCustomer: true, at }),
    );
    await waitFor(() => updates.some((u: { id: number }) => u.id === t1), 'updateTicket');
    expect(updates.find((u: { id: number }) => u.id === t1)).toMatchObject({ updated_at: at, last_message_at: at });
    expect((await list(agent.token)).find((x) => x.id === t1)).toMatchObject({ newMessage: true, hasResponded: false });
    expect((await unread(agent.token))[0]!.count).toBe(1);
    // An agent answers: "Replied", and read for the one who answered.
    await runCommand(db(), (trx) =>
      touchTicketOnMessage(trx, {
        accountId: a.accountId,
        ticketId: t1,
        fromCustomer: false,
        at: at + 1,
        readerId: agent.id,
      }),
    );
    expect((await list(agent.token)).find((x) => x.id === t1)).toMatchObject({ newMessage: false, hasResponded: true });
    expect((await list(a.token)).find((x) => x.id === t1)).toMatchObject({ newMessage: true, hasResponded: true });
    // A customer message in a live chat goes out as channelDataUpdated2.
    await runCommand(db(), (trx) =>
      touchTicketOnMessage(trx, { accountId: a.accountId, ticketId: lc, fromCustomer: true }),
    );
    // The live chat's own creation event may reach the socket late (the relay runs after the commit): wait
    // for the message's.
    const isMessage = (e: unknown) => (e as { reason?: string }).reason === 'message';
    await waitFor(() => channel2.some(isMessage), 'channelDataUpdated2');
    expect(channel2.find(isMessage)).toEqual({
      type: 'livechat',
      channel: 'LIVECHAT',
      ticketId: lc,
      reason: 'message',
    });
    // Another account's ticket: not found, nothing changed.
    const b = await signUpVia(call);
    expect((await call('POST', '/api/ticket/read', { token: b.token, body: { id: t1 } })).status).toBe(404);
    await expect(
      runCommand(db(), (trx) =>
        touchTicketOnMessage(trx, { accountId: b.accountId, ticketId: t1, fromCustomer: true }),
      ),
    ).rejects.toThrow();
    expect((await call('POST', '/api/ticket/read', { token: a.token, body: { id: 'x' } })).status).toBe(400);
  });

  it('TICKET-45 TICKET-60 popup_on_call is an account setting only admins change; encrypted tickets are flagged', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    expect((await call('GET', '/api/ticket/settings', { token: agent.token })).body.data).toEqual({ popup_on_call: 0 });
    expect(
      (await call('POST', '/api/ticket/settings', { token: agent.token, body: { popup_on_call: 1 } })).status,
    ).toBe(403);
    for (const body of [{ popup_on_call: 2 }, { popup_on_call: '1' }, {}])
      expect((await call('POST', '/api/ticket/settings', { token: a.token, body })).status).toBe(400);
    const set = await call('POST', '/api/ticket/settings', { token: a.token, body: { popup_on_call: 1 } });
    expect(set.body.data).toEqual({ popup_on_call: 1 });
    expect((await call('GET', '/api/ticket/settings', { token: agent.token })).body.data).toEqual({ popup_on_call: 1 });
    const b = await signUpVia(call);
    expect((await call('GET', '/api/ticket/settings', { token: b.token })).body.data).toEqual({ popup_on_call: 0 });

    const id = await runCommand(db(), (trx) =>
      createTicket(trx, conversationRules(), { accountId: a.accountId, channel: 'WHATSAPP', title: 'Secret' }),
    );
    await db().updateTable('tickets').set({ encryption_method: 'aes' }).where('id', '=', id).execute();
    const info = await call('GET', `/ticket/info/me/${id}`, { token: agent.token });
    expect(info.body.data.encryption).toBe(true);
  });
});
