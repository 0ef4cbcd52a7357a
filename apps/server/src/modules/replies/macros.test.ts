import { REPLY_STRINGS } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountRows, twoAccounts } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, uniq } from '../../testing/api.js';
import { collect, connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('macros (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { id: number; token: string; username: string };
  let mate: { id: number; token: string; username: string };
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  const { ticket, label, lastNumber } = accountRows(db, (n) => ({ channel: 'WHATSAPP', name: `Customer ${n}` }));
  const stateOf = async (ids: number[]) =>
    (
      await db()
        .selectFrom('tickets')
        .select(['id', 'closed', 'label', 'assignee', 'priority'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute()
    ).map((t) => ({
      id: Number(t.id),
      closed: Number(t.closed),
      label: t.label,
      assignee: t.assignee,
      priority: t.priority,
    }));
  const totals = async () => ({
    tickets: await db().selectFrom('tickets').selectAll().orderBy('id').execute(),
    messages: (await db().selectFrom('messages').select('id').execute()).length,
    runs: (await db().selectFrom('macro_runs').select('id').execute()).length,
    macros: await db().selectFrom('macros').selectAll().orderBy('id').execute(),
  });

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    ({
      a,
      b,
      agents: [agent, mate],
    } = await twoAccounts(call, { as: 'agent', name: 'Agent Ann' }, { as: 'mate' }));
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('MACROS a run applies every action to every ticket through the ticket commands, and undo restores them', async () => {
    const vip = await label(a.accountId);
    const old = await label(a.accountId);
    const made = await call('POST', '/api/macros', {
      token: a.token,
      body: {
        name: `Resolve refund ${uniq()}`,
        actions: [
          { type: 'reply', text: 'Hi {{customer.name}}, ticket #{{ticket.number}} is done. {{agent.name}}' },
          { type: 'status', status: 2 },
          { type: 'add_labels', labels: [vip] },
          { type: 'remove_labels', labels: [old] },
          { type: 'assignee', assignee: [mate.username] },
          { type: 'priority', priority: 'H' },
        ],
      },
    });
    expect(made.status, made.text).toBe(200);
    const macroId = made.body.data.id;
    // Agents see macros but do not manage them.
    expect(
      (await call('GET', '/api/macros', { token: agent.token })).body.data.map((m: { id: number }) => m.id),
    ).toContain(macroId);
    expect(
      (
        await call('POST', '/api/macros', {
          token: agent.token,
          body: { name: 'x', actions: [{ type: 'status', status: 1 }] },
        })
      ).status,
    ).toBe(403);

    const ids = [
      await ticket(a.accountId, { label: JSON.stringify([old]), priority: 'L', assignee: agent.username }),
      await ticket(a.accountId, { closed: 1 }),
      await ticket(a.accountId, { label: JSON.stringify([vip]) }),
    ];
    const before = await stateOf(ids);
    const updates = collect(await connectSocket(s.url, a.token, opened), 'updateTicket');
    const messages = collect(await connectSocket(s.url, a.token, opened), 'newMessage');

    const run = await call('POST', `/api/macros/${macroId}/run`, { token: agent.token, body: { ticket_ids: ids } });
    expect(run.status, run.text).toBe(200);
    expect(run.body.description).toBe(REPLY_STRINGS.ran(3));
    expect(run.body.data).toMatchObject({ tickets: ids, replies: 3 });

    const after = await stateOf(ids);
    for (const t of after) {
      expect(t.closed).toBe(2);
      expect(JSON.parse(t.label)).toEqual([vip]);
      expect(t.assignee).toBe(mate.username);
      expect(t.priority).toBe('H');
    }
    // The reply went out with the variables filled, as the agent.
    const replies = await db()
      .selectFrom('messages')
      .select(['ticket_id', 'message', 'sender', 'type'])
      .where('ticket_id', 'in', ids)
      .where('type', '=', 'text')
      .orderBy('id')
      .execute();
    expect(replies.map((r) => [Number(r.ticket_id), r.message, r.sender])).toEqual(
      ids.map((id, i) => [
        id,
        `Hi Customer ${lastNumber() - 2 + i}, ticket #${lastNumber() - 2 + i} is done. Agent Ann`,
        agent.username,
      ]),
    );
    // Each change posted its system message, was audited and reached the sockets as if done by hand.
    const system = await db()
      .selectFrom('messages')
      .select('message')
      .where('ticket_id', '=', ids[0]!)
      .where('type', '=', 'system')
      .execute();
    expect(system.map((m) => m.message)).toEqual([
      'Agent Ann set the status to Resolved.',
      expect.stringContaining('Agent Ann set the labels to'),
      expect.stringContaining('Agent Ann set the labels to'),
      `Agent Ann assigned the ticket to ${mate.username}.`,
    ]);
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'ticket.priority_set')
      .execute();
    expect(audit.length).toBeGreaterThanOrEqual(3);
    await waitFor(() => messages.filter((m) => m.type === 'text').length === 3, 'three replies live');
    await waitFor(
      () => ids.every((id) => updates.some((u) => u.id === id && u.severity === 'H' && u.closed === 2)),
      `updateTicket for each ticket ${JSON.stringify(updates.map((u) => [u.id, u.closed, u.severity]))}`,
    );

    // Another user cannot undo it; the agent can, once.
    expect((await call('POST', `/api/macros/runs/${run.body.data.run_id}/undo`, { token: mate.token })).status).toBe(
      404,
    );
    expect((await call('POST', `/api/macros/runs/${run.body.data.run_id}/undo`, { token: b.token })).status).toBe(404);
    const undo = await call('POST', `/api/macros/runs/${run.body.data.run_id}/undo`, { token: agent.token });
    expect(undo.status, undo.text).toBe(200);
    expect(undo.body.description).toBe(REPLY_STRINGS.replyKept(3));
    expect(undo.body.data).toEqual({ tickets: ids, replies_kept: 3 });
    expect(await stateOf(ids)).toEqual(before);
    // The replies stay.
    expect(
      (
        await db()
          .selectFrom('messages')
          .select('id')
          .where('ticket_id', 'in', ids)
          .where('type', '=', 'text')
          .execute()
      ).length,
    ).toBe(3);
    const again = await call('POST', `/api/macros/runs/${run.body.data.run_id}/undo`, { token: agent.token });
    expect(again.status).toBe(409);
    expect(again.body.description).toBe(REPLY_STRINGS.alreadyUndone);
  });

  it('MACROS only the last run of the user can be undone; a run without a reply says plainly it was undone', async () => {
    const made = await call('POST', '/api/macros', {
      token: a.token,
      body: { name: `Pend ${uniq()}`, actions: [{ type: 'status', status: 1 }] },
    });
    const id = await ticket(a.accountId);
    const first = await call('POST', `/api/macros/${made.body.data.id}/run`, {
      token: agent.token,
      body: { ticket_ids: [id] },
    });
    const second = await call('POST', `/api/macros/${made.body.data.id}/run`, {
      token: agent.token,
      body: { ticket_ids: [id] },
    });
    expect(second.status).toBe(200);
    const old = await call('POST', `/api/macros/runs/${first.body.data.run_id}/undo`, { token: agent.token });
    expect(old.status).toBe(409);
    expect(old.body.description).toBe(REPLY_STRINGS.notLastRun);
    // The second run changed nothing (already pending): undoing it changes nothing either.
    const undo = await call('POST', `/api/macros/runs/${second.body.data.run_id}/undo`, { token: agent.token });
    expect(undo.status).toBe(200);
    expect(undo.body.description).toBe(REPLY_STRINGS.undone);
    expect((await stateOf([id]))[0]!.closed).toBe(1);
  });

  it('MACROS a deleted label, unknown status, deactivated user or unknown variable: 4xx naming it, nothing half-applied', async () => {
    const doomed = await label(a.accountId);
    const leaving = await addUserVia(call, a.token, { username: `leaving-${uniq()}`, type: 'agent' });
    // Checked at save time.
    for (const [actions, text] of [
      [[{ type: 'status', status: 77 }], REPLY_STRINGS.unknownStatus(77)],
      [[{ type: 'add_labels', labels: [987654] }], REPLY_STRINGS.unknownLabel(987654)],
      [[{ type: 'assignee', assignee: ['nobody-here'] }], REPLY_STRINGS.unknownUser('nobody-here')],
      [[{ type: 'reply', text: 'Hi {{customer.first_name}}' }], REPLY_STRINGS.unknownVariable('customer.first_name')],
    ] as const) {
      const before = await totals();
      const r = await call('POST', '/api/macros', { token: a.token, body: { name: `Bad ${uniq()}`, actions } });
      expect(r.status, r.text).toBe(400);
      expect(r.body.description).toBe(text);
      expect(await totals()).toEqual(before);
    }
    // Things gone between saving and running: checked at run time, before any write.
    const made = await call('POST', '/api/macros', {
      token: a.token,
      body: {
        name: `Later ${uniq()}`,
        actions: [
          { type: 'reply', text: 'Working on it' },
          { type: 'status', status: 1 },
          { type: 'add_labels', labels: [doomed] },
          { type: 'assignee', assignee: [leaving.username] },
        ],
      },
    });
    expect(made.status, made.text).toBe(200);
    const ids = [await ticket(a.accountId), await ticket(a.accountId)];
    await db().updateTable('labels').set({ removed: 1 }).where('id', '=', doomed).execute();
    let before = await totals();
    let r = await call('POST', `/api/macros/${made.body.data.id}/run`, {
      token: agent.token,
      body: { ticket_ids: ids },
    });
    expect(r.status).toBe(400);
    expect(r.body.description).toBe(REPLY_STRINGS.unknownLabel(doomed));
    expect(await totals()).toEqual(before);

    await db().updateTable('labels').set({ removed: 0 }).where('id', '=', doomed).execute();
    await db().updateTable('users').set({ active: 0 }).where('id', '=', leaving.id).execute();
    before = await totals();
    r = await call('POST', `/api/macros/${made.body.data.id}/run`, { token: agent.token, body: { ticket_ids: ids } });
    expect(r.status).toBe(400);
    expect(r.body.description).toBe(REPLY_STRINGS.unknownUser(leaving.username));
    expect(await totals()).toEqual(before);

    // A reply macro cannot e-mail: an e-mail ticket among them refuses the whole run.
    await db().updateTable('users').set({ active: 1 }).where('id', '=', leaving.id).execute();
    const mail = await ticket(a.accountId, { channel: 'EMAIL' });
    before = await totals();
    r = await call('POST', `/api/macros/${made.body.data.id}/run`, {
      token: agent.token,
      body: { ticket_ids: [...ids, mail] },
    });
    expect(r.status).toBe(400);
    expect(r.body.description).toContain('e-mail ticket');
    expect(await totals()).toEqual(before);
  });

  it("MACROS another account's macro, ticket or run is not found; the run changes nothing", async () => {
    const theirs = await call('POST', '/api/macros', {
      token: b.token,
      body: { name: `B ${uniq()}`, actions: [{ type: 'priority', priority: 'L' }] },
    });
    const mine = await call('POST', '/api/macros', {
      token: a.token,
      body: { name: `A ${uniq()}`, actions: [{ type: 'priority', priority: 'M' }] },
    });
    const myTicket = await ticket(a.accountId);
    const theirTicket = await ticket(b.accountId);
    const before = await totals();
    const tries = [
      call('POST', `/api/macros/${theirs.body.data.id}/run`, { token: agent.token, body: { ticket_ids: [myTicket] } }),
      call('POST', `/api/macros/${mine.body.data.id}/run`, {
        token: agent.token,
        body: { ticket_ids: [myTicket, theirTicket] },
      }),
      call('PUT', `/api/macros/${theirs.body.data.id}`, {
        token: a.token,
        body: { name: 'taken', actions: [{ type: 'status', status: 0 }] },
      }),
      call('DELETE', `/api/macros/${theirs.body.data.id}`, { token: a.token }),
    ];
    for (const r of await Promise.all(tries)) expect(r.status, r.text).toBe(404);
    expect(await totals()).toEqual(before);
    const ranB = await call('POST', `/api/macros/${theirs.body.data.id}/run`, {
      token: b.token,
      body: { ticket_ids: [theirTicket] },
    });
    expect(ranB.status).toBe(200);
    expect((await call('POST', `/api/macros/runs/${ranB.body.data.run_id}/undo`, { token: agent.token })).status).toBe(
      404,
    );
    for (const body of [
      {},
      { ticket_ids: [] },
      { ticket_ids: ['x'] },
      { ticket_ids: Array.from({ length: 101 }, (_, i) => i + 1) },
    ]) {
      const r = await call('POST', `/api/macros/${mine.body.data.id}/run`, { token: agent.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });
});
