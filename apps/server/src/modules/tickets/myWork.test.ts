import { BULK_MAX, TICKET_STRINGS, WORK_STRINGS } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountRows, twoAccounts } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { collect, connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { myQueue } from './myWork.js';
import { OpenCodesSeen } from './tickets.queries.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('my work: views, queue, bulk and merge (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { id: number; token: string; username: string };
  const { ticket, label } = accountRows(db, (n) => ({ created_at: 1_000 + n, updated_at: 1_000 + n }));
  const message = async (accountId: number, ticketId: number, text: string) =>
    db()
      .insertInto('messages')
      .values({
        account_id: accountId,
        ticket_id: ticketId,
        type: 'text',
        message: text,
        sender: 'visitor',
        client_id: null,
        created_at: Date.now(),
        reply_id: null,
        deleted_at: null,
        deleted_by: null,
      })
      .execute();
  const row = (id: number) => db().selectFrom('tickets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const state = async () => ({
    tickets: await db().selectFrom('tickets').selectAll().orderBy('id').execute(),
    messages: await db().selectFrom('messages').select(['id', 'ticket_id']).orderBy('id').execute(),
    audit: (await db().selectFrom('audit_log').select('id').execute()).length,
    // Presence events left out: a socket closed by an earlier test may still be going offline.
    events: (await db().selectFrom('events').select('id').where('type', '<>', 'status.updated').execute()).length,
  });
  const bulk = (token: string, body: unknown) => call('POST', '/api/ticket/bulk', { token, body });

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    ({
      a,
      b,
      agents: [agent],
    } = await twoAccounts(call, { as: 'agent', name: 'Ada Agent' }));
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('VIEWS the counts of Mine, Unassigned and All follow the status filter, the list agrees, Workspace chats left out', async () => {
    const acc = await signUpVia(call);
    const me = await addUserVia(call, acc.token, { username: `me-${uniq()}`, type: 'agent' });
    await ticket(acc.accountId, { assignee: me.username });
    await ticket(acc.accountId, { assignee: `${acc.username},${me.username}` });
    await ticket(acc.accountId, { assignee: me.username, closed: 1 });
    await ticket(acc.accountId);
    await ticket(acc.accountId, { assignee: acc.username });
    // A Workspace chat the agent is not a member of, and another account's tickets: never counted.
    await ticket(acc.accountId, { channel: 'chat' });
    await ticket(b.accountId, { assignee: me.username });
    const views = async (filter: string) =>
      (await call('GET', `/api/ticket/views?filter=${filter}`, { token: me.token })).body.data;
    expect(await views('open')).toEqual({ mine: 2, unassigned: 1, all: 4 });
    expect(await views('all')).toEqual({ mine: 3, unassigned: 1, all: 5 });
    expect(await views('1')).toEqual({ mine: 1, unassigned: 0, all: 1 });
    // The list's own counts for the same views are the same numbers.
    const list = async (q: string) =>
      (await call('GET', `/api/ticket/load/me/open/ticket/0${q}`, { token: me.token })).body;
    expect((await list(`?agent=${me.username}`)).count).toBe(2);
    const unassigned = await list('?assigned=0');
    expect(unassigned.count).toBe(1);
    expect(unassigned.data.every((t: { assignee: string }) => t.assignee === '')).toBe(true);
    expect((await list('?assigned=1')).count).toBe(3);
    // Bad input is a clear 400.
    const badFilter = await call('GET', '/api/ticket/views?filter=nope', { token: me.token });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.description).toBe(TICKET_STRINGS.badFilter);
    expect((await call('GET', '/api/ticket/load/me/open/ticket/0?assigned=2', { token: me.token })).status).toBe(400);
  });

  it('VIEWS Home queue: my open and waiting counts, my SLA response waits and resolution clocks past their warning (not paused), due soonest first', async () => {
    const acc = await signUpVia(call);
    const me = await addUserVia(call, acc.token, { username: `q-${uniq()}`, type: 'agent' });
    const now = 10_000_000;
    const soon = await ticket(acc.accountId, { assignee: me.username });
    const late = await ticket(acc.accountId, { assignee: me.username });
    const calm = await ticket(acc.accountId, { assignee: me.username });
    const answered = await ticket(acc.accountId, { assignee: me.username });
    const others = await ticket(acc.accountId, { assignee: acc.username });
    await ticket(acc.accountId, { assignee: me.username, closed: 1 });
    const timer = (ticket_id: number, warn_at: number, due_at: number, answered_at: number | null = null) =>
      db()
        .insertInto('sla_timers')
        .values({
          ticket_id,
          account_id: acc.accountId,
          label_id: 1,
          sla_minutes: 30,
          started_at: now - 3_600_000,
          warn_at,
          due_at,
          warned_at: null,
          violated_at: null,
          answered_at,
          next_at: null,
          updated_at: now,
        })
        .execute();
    await timer(soon, now - 60_000, now + 60_000);
    await timer(late, now - 120_000, now - 1_000);
    await timer(calm, now + 60_000, now + 120_000);
    await timer(answered, now - 60_000, now - 30_000, now - 40_000);
    await timer(others, now - 60_000, now + 1_000);
    // A wait paused while the ticket waited for the customer is not at risk; resolution clocks are.
    const paused = await ticket(acc.accountId, { assignee: me.username });
    await timer(paused, now - 60_000, now + 5_000);
    await db()
      .updateTable('sla_timers')
      .set({ paused_at: now - 10_000 })
      .where('ticket_id', '=', paused)
      .execute();
    const resolution = (ticket_id: number, warn_at: number, due_at: number, stopped_at: number | null = null) =>
      db()
        .insertInto('sla_resolution_timers')
        .values({
          ticket_id,
          account_id: acc.accountId,
          sla_minutes: 240,
          started_at: now - 3_600_000,
          warn_at,
          due_at,
          stopped_at,
          updated_at: now,
        })
        .execute();
    const slow = await ticket(acc.accountId, { assignee: me.username });
    await resolution(slow, now - 30_000, now + 30_000);
    await resolution(late, now - 300_000, now - 200_000);
    await resolution(calm, now - 1, now + 90_000, now - 5);
    const q = await myQueue(
      db(),
      new OpenCodesSeen(),
      { accountId: acc.accountId, userId: me.id, username: me.username },
      now,
    );
    expect(q.open).toBe(6);
    expect(q.waiting).toBe(1);
    // Late is late on both: its resolution is due first. A stopped resolution clock is not at risk.
    expect(q.atRisk.map((r) => [r.id, r.breached, r.target])).toEqual([
      [late, true, 'resolution'],
      [slow, false, 'resolution'],
      [soon, false, 'response'],
    ]);
    const http = await call('GET', '/api/ticket/queue', { token: me.token });
    expect(http.status).toBe(200);
    expect(http.body.data.open).toBe(6);
    // Another account's agent sees none of it.
    const theirs = await call('GET', '/api/ticket/queue', { token: b.token });
    expect(theirs.body.data).toEqual({ open: 0, waiting: 0, atRisk: [] });
  });

  it('BULK assign, add and remove labels, status, priority and department: each ticket changed like the one-ticket calls, events to the account', async () => {
    const ids = [await ticket(a.accountId), await ticket(a.accountId), await ticket(a.accountId)];
    const red = await label(a.accountId, `Red-${uniq()}`);
    const blue = await label(a.accountId, `Blue-${uniq()}`);
    const socket = collect(await connectSocket(s.url, a.token, opened), 'updateTicket');

    const assigned = await bulk(agent.token, { ids, action: 'assign', value: [agent.username] });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body).toEqual({ result: 'success', ids, changed: 3 });
    for (const id of ids) expect((await row(id)).assignee).toBe(agent.username);
    await waitFor(() => socket.length >= 3, 'updateTicket for each');
    expect(new Set(socket.map((e) => e.id))).toEqual(new Set(ids));
    const notes = await db()
      .selectFrom('messages')
      .select('message')
      .where('ticket_id', 'in', ids)
      .where('type', '=', 'system')
      .execute();
    expect(notes.map((n) => n.message)).toEqual(Array(3).fill('Ada Agent assigned the ticket to Ada Agent.'));

    await db()
      .updateTable('tickets')
      .set({ label: JSON.stringify([blue]) })
      .where('id', '=', ids[0]!)
      .execute();
    const added = await bulk(agent.token, { ids, action: 'addLabels', value: [red, blue] });
    expect(added.body.changed).toBe(3);
    expect(JSON.parse((await row(ids[0]!)).label)).toEqual([blue, red]);
    expect(JSON.parse((await row(ids[1]!)).label)).toEqual([red, blue]);
    const again = await bulk(agent.token, { ids, action: 'addLabels', value: [red] });
    expect(again.body.changed).toBe(0);
    const removed = await bulk(agent.token, { ids, action: 'removeLabels', value: [blue] });
    expect(removed.body.changed).toBe(3);
    for (const id of ids) expect(JSON.parse((await row(id)).label)).toEqual([red]);

    expect((await bulk(agent.token, { ids, action: 'status', value: 1 })).body.changed).toBe(3);
    expect((await bulk(agent.token, { ids, action: 'priority', value: 'H' })).body.changed).toBe(3);
    const dep = Number(
      (
        await db()
          .insertInto('departments')
          .values({ account_id: a.accountId, name: `D-${uniq()}`, created_at: 1 })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    expect((await bulk(agent.token, { ids, action: 'department', value: dep })).body.changed).toBe(3);
    for (const id of ids) {
      const r = await row(id);
      expect([Number(r.closed), r.priority, Number(r.department_id)]).toEqual([1, 'H', dep]);
    }
  });

  it('BULK "select all matching": the filter picks the tickets, more than 500 is a clear 400 and changes nothing', async () => {
    const acc = await signUpVia(call);
    const mine = [await ticket(acc.accountId), await ticket(acc.accountId)];
    await ticket(acc.accountId, { closed: 3 });
    const done = await bulk(acc.token, {
      filter: { status: 'open', query: { assigned: '0' } },
      action: 'assign',
      value: [acc.username],
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.ids.sort()).toEqual(mine.sort());
    const none = await bulk(acc.token, {
      filter: { status: 'open', query: { assigned: '0' } },
      action: 'priority',
      value: 'L',
    });
    expect([none.status, none.body.description]).toEqual([400, WORK_STRINGS.nothingMatches]);

    await db()
      .insertInto('tickets')
      .values(
        Array.from({ length: BULK_MAX + 1 }, (_, k) => ({
          account_id: acc.accountId,
          ticket_number: 10_000 + k,
          title: `Many ${k}`,
          channel: 'EMAIL',
          closed: 1,
          priority: '',
          label: '[]',
          department_id: null,
          assignee: '',
          name: '',
          email: '',
          phone: '',
          created_at: 5,
          updated_at: 5,
        })),
      )
      .execute();
    const before = await state();
    const tooMany = await bulk(acc.token, { filter: { status: '1', query: {} }, action: 'priority', value: 'L' });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.description).toBe(WORK_STRINGS.tooMany(BULK_MAX + 1));
    const ids = Array.from({ length: BULK_MAX + 1 }, (_, k) => k + 1);
    expect((await bulk(acc.token, { ids, action: 'priority', value: 'L' })).status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it('BULK bad input: foreign ids 404, unknown values 400, ids and filter both or neither 400; nothing changed', async () => {
    const mine = await ticket(a.accountId);
    const theirs = await ticket(b.accountId);
    const theirLabel = await label(b.accountId, 'Theirs');
    const gone = await label(a.accountId, 'Gone', 1);
    const before = await state();
    const cases: [unknown, number, string?][] = [
      [{ ids: [mine, theirs], action: 'assign', value: [a.username] }, 404, TICKET_STRINGS.notFound],
      [{ ids: [mine, 99_999_999], action: 'status', value: 2 }, 404, TICKET_STRINGS.notFound],
      [{ ids: [mine, theirs], action: 'merge', value: mine }, 404, TICKET_STRINGS.notFound],
      [{ ids: [mine], action: 'merge', value: theirs }, 404, TICKET_STRINGS.notFound],
      [{ ids: [mine], action: 'assign', value: ['nobody-here'] }, 400, 'Unknown or inactive user: nobody-here.'],
      [{ ids: [mine], action: 'addLabels', value: [theirLabel] }, 400, `Unknown label: ${theirLabel}.`],
      [{ ids: [mine], action: 'addLabels', value: [gone] }, 400, `Unknown label: ${gone}.`],
      [{ ids: [mine], action: 'status', value: 77 }, 400, 'Unknown status.'],
      [{ ids: [mine], action: 'status', value: 4 }, 400],
      [{ ids: [mine], action: 'priority', value: 'X' }, 400],
      [{ ids: [mine], action: 'department', value: 99_999_999 }, 400, 'No such department.'],
      [{ ids: [mine], action: 'explode', value: 1 }, 400],
      [{ action: 'status', value: 1 }, 400, WORK_STRINGS.idsOrFilter],
      [{ ids: [mine], filter: { status: 'open' }, action: 'status', value: 1 }, 400, WORK_STRINGS.idsOrFilter],
      [{ ids: [], action: 'status', value: 1 }, 400],
      [{ filter: { status: 'nope' }, action: 'status', value: 1 }, 400, TICKET_STRINGS.badFilter],
      [{ filter: { status: 'open', query: { appt: 'maybe' } }, action: 'status', value: 1 }, 400],
      [{ ids: ['x'], action: 'status', value: 1 }, 400],
    ];
    for (const [body, status, text] of cases) {
      const r = await bulk(a.token, body);
      expect(r.status, `${JSON.stringify(body)} -> ${r.text}`).toBe(status);
      if (text) expect(r.body.description).toBe(text);
    }
    expect(await state()).toEqual(before);
  });

  it("MERGE the others' messages move under the primary, notes on both, the others closed with a pointer, open screens told; bad merges 400", async () => {
    const primary = await ticket(a.accountId);
    const other = await ticket(a.accountId);
    await message(a.accountId, primary, 'first question');
    await message(a.accountId, other, 'second question');
    await db()
      .updateTable('tickets')
      .set({ last_message_at: 7_000, has_responded: 1 })
      .where('id', '=', other)
      .execute();
    const [p, o] = [await row(primary), await row(other)];
    const sock = await connectSocket(s.url, a.token, opened);
    const socket = collect(sock, 'updateTicket');
    const merged = collect(sock, 'ticketsMerged');
    const r = await bulk(agent.token, { ids: [primary, other], action: 'merge', value: primary });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ result: 'success', ids: [primary, other], changed: 2 });
    const texts = async (id: number) =>
      (await db().selectFrom('messages').select('message').where('ticket_id', '=', id).orderBy('id').execute()).map(
        (m) => m.message,
      );
    expect(await texts(primary)).toEqual([
      'first question',
      'second question',
      `Ada Agent merged #${o.ticket_number} into this ticket.`,
    ]);
    expect(await texts(other)).toEqual([`Ada Agent merged this ticket into #${p.ticket_number}.`]);
    const [p2, o2] = [await row(primary), await row(other)];
    expect(Number(o2.closed)).toBe(3);
    expect(Number(p2.closed)).toBe(0);
    expect([Number(p2.last_message_at), Number(p2.has_responded)]).toEqual([7_000, 1]);
    await waitFor(() => socket.length >= 2, 'updateTicket for both');
    expect(new Set(socket.map((e) => e.id))).toEqual(new Set([primary, other]));
    // Open conversations load again: the moved messages are not sent as new ones.
    await waitFor(() => merged.length === 1, 'ticketsMerged');
    expect(merged).toEqual([{ ticketId: primary, merged: [other] }]);
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'ticket.merged')
      .execute();
    expect(audit.length).toBe(2);

    const live = await ticket(a.accountId, { channel: 'LIVECHAT' });
    const chat = await ticket(a.accountId, { channel: 'chat' });
    const before = await state();
    const refused: [unknown, string][] = [
      [{ ids: [primary], action: 'merge', value: primary }, WORK_STRINGS.mergeItself],
      [{ ids: [primary, live], action: 'merge', value: primary }, WORK_STRINGS.mergeChannel],
      [{ ids: [primary, other], action: 'merge', value: live }, WORK_STRINGS.mergeChannel],
    ];
    for (const [body, text] of refused) {
      const res = await bulk(a.token, body);
      expect([res.status, res.body.description], JSON.stringify(body)).toEqual([400, text]);
    }
    // A Workspace chat the caller is not a member of is not theirs to see: not found.
    expect((await bulk(a.token, { ids: [primary, chat], action: 'merge', value: primary })).status).toBe(404);
    expect(await state()).toEqual(before);
  });
});
