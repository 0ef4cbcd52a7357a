import { TICKET_STRINGS, TICKET_SYSTEM_MESSAGES, TicketAutoAssignAnswer, TicketChangeAnswer } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { accountRows, twoAccounts } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { collect, connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { type AssignCandidate, assignTicketAutomatically, chooseAssignee } from './assignment.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const agentState = (username: string, o: Partial<AssignCandidate> = {}): AssignCandidate => ({
  username,
  status: 'ONLINE',
  secondStatus: '',
  open: 0,
  lastAssigned: null,
  ...o,
});

describe('chooseAssignee (pure)', () => {
  it('ASSIGN skips agents not effectively ONLINE and agents at the concurrent limit', () => {
    const c = [
      agentState('a-off', { status: 'OFFLINE' }),
      agentState('b-busy', { secondStatus: 'BUSY' }),
      agentState('c-full', { open: 5 }),
      agentState('d-free', { open: 4, lastAssigned: 10 }),
    ];
    for (const s of ['round_robin', 'least_loaded'] as const) {
      expect(chooseAssignee(c, s, { limit: 5 })).toBe('d-free');
      expect(chooseAssignee(c.slice(0, 3), s, { limit: 5 })).toBeNull();
      // Unlimited (Enterprise): the full agent counts again.
      expect(chooseAssignee(c.slice(0, 3), s, { limit: null })).toBe('c-full');
    }
    expect(chooseAssignee([], 'round_robin', { limit: null })).toBeNull();
  });

  it('ASSIGN round robin takes the least recently assigned, never-assigned first, ties by username', () => {
    expect(
      chooseAssignee(
        [
          agentState('x', { lastAssigned: 3 }),
          agentState('y', { lastAssigned: 1 }),
          agentState('z', { lastAssigned: 2 }),
        ],
        'round_robin',
        { limit: null },
      ),
    ).toBe('y');
    expect(
      chooseAssignee([agentState('x', { lastAssigned: 3 }), agentState('w'), agentState('v')], 'round_robin', {
        limit: null,
      }),
    ).toBe('v');
  });

  it('ASSIGN least loaded takes the fewest open tickets, ties by least recently assigned', () => {
    const c = [
      agentState('x', { open: 2, lastAssigned: 1 }),
      agentState('y', { open: 1, lastAssigned: 9 }),
      agentState('z', { open: 1, lastAssigned: 4 }),
    ];
    expect(chooseAssignee(c, 'least_loaded', { limit: null })).toBe('z');
    expect(chooseAssignee(c, 'round_robin', { limit: null })).toBe('x');
  });
});

describe.each(dialects)('ticket status and assignment (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  let a: SignedUp;
  let b: SignedUp;

  const { ticket, label, department } = accountRows(db);
  /** A user of the account in the given departments, with a presence. */
  const agent = async (
    owner: SignedUp,
    deps: number[],
    presence: { status?: string; second_status?: string; active?: number } = {},
  ) => {
    const u = await addUserVia(call, owner.token, { username: `ag-${uniq()}`, type: 'agent' });
    await db()
      .updateTable('users')
      .set({
        departments: JSON.stringify(deps),
        status: presence.status ?? 'ONLINE',
        second_status: presence.second_status ?? '',
        active: presence.active ?? 1,
        status_since: Date.now(),
      })
      .where('id', '=', u.id)
      .execute();
    return u;
  };
  const ticketRow = (id: number) =>
    db().selectFrom('tickets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const messagesOf = (id: number) =>
    db().selectFrom('messages').selectAll().where('ticket_id', '=', id).orderBy('id').execute();
  const assignmentsOf = (id: number) =>
    db().selectFrom('ticket_assignments').selectAll().where('ticket_id', '=', id).orderBy('id').execute();
  const state = async () => ({
    tickets: await db().selectFrom('tickets').selectAll().orderBy('id').execute(),
    messages: await db().selectFrom('messages').selectAll().orderBy('id').execute(),
    assignments: await db().selectFrom('ticket_assignments').selectAll().orderBy('id').execute(),
    audit: (await db().selectFrom('audit_log').select('id').execute()).length,
    // Presence events left out: a socket closed by an earlier test may still be going offline.
    events: (await db().selectFrom('events').select('id').where('type', '<>', 'status.updated').execute()).length,
  });

  beforeAll(async () => {
    // Test agents are made Online in the database without a socket: a long grace keeps the presence sweep
    // from setting them Offline half-way through a test.
    s = await startTestServer(dialect, { PRESENCE_GRACE_MS: String(3_600_000) });
    call = apiClient(s.url);
    ({ a, b } = await twoAccounts(call));
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('TICKET-22 TICKET-27 TICKET-29 status change: saved, system message (live as newMessage), audit, updateTicket to the same account only', async () => {
    const id = await ticket(a.accountId);
    const teammate = await addUserVia(call, a.token, { username: `mate-${uniq()}`, type: 'agent' });
    const mineSock = await connectSocket(s.url, teammate.token, opened);
    const theirsSock = await connectSocket(s.url, b.token, opened);
    const got = collect(mineSock, 'updateTicket');
    const said = collect(mineSock, 'newMessage');
    const leaked = collect(theirsSock, 'updateTicket');
    const leakedSaid = collect(theirsSock, 'newMessage');

    const r = await call('POST', '/api/ticket/status', { token: a.token, body: { id, status: 2 } });
    expect(r.status, r.text).toBe(200);
    const body = TicketChangeAnswer.parse(r.body);
    expect(body.data).toMatchObject({ id, closed: 2 });
    expect(body.data.updated_at).toBeGreaterThan(1_000);
    expect(Number((await ticketRow(id)).closed)).toBe(2);
    const msgs = await messagesOf(id);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatchObject({
      type: 'system',
      sender: 'server',
      message: `${a.name} set the status to Resolved.`,
    });
    expect(msgs[0]!.message).toBe(TICKET_SYSTEM_MESSAGES.status(a.name, 'Resolved'));
    const audit = await db()
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'ticket.status_set')
      .execute();
    expect(audit.map((x) => JSON.parse(x.detail))).toContainEqual({ id, status: 2 });
    await waitFor(() => got.length === 1, 'updateTicket');
    expect(got[0]).toMatchObject({ id, closed: 2 });
    expect(got[0]).not.toHaveProperty('read');
    // The system message reaches open conversations at once, as any message does.
    await waitFor(() => said.length === 1, 'newMessage');
    expect(said[0]).toMatchObject({
      id: Number(msgs[0]!.id),
      ticketId: id,
      type: 'system',
      sender: 'server',
      message: `${a.name} set the status to Resolved.`,
    });
    expect(leaked).toEqual([]);
    expect(leakedSaid).toEqual([]);

    // Every default code can be set, by any user of the account.
    for (const [status, name] of [
      [0, 'Open'],
      [1, 'Pending'],
      [3, 'Closed'],
    ] as const) {
      const x = await call('POST', '/api/ticket/status', { token: teammate.token, body: { id, status } });
      expect(x.status, x.text).toBe(200);
      expect((await messagesOf(id)).at(-1)!.message).toBe(`${teammate.username} set the status to ${name}.`);
    }
  });

  it('TICKET-28 every refused change is a 4xx and changes nothing; another account is "Ticket not found."', async () => {
    const dep = await department(a.accountId);
    const theirDep = await department(b.accountId);
    const theirLabel = await label(b.accountId, `b-${uniq()}`);
    const gone = await label(a.accountId, `gone-${uniq()}`, 1);
    const id = await ticket(a.accountId, { department_id: dep });
    const theirs = await ticket(b.accountId);
    const inactive = await agent(a, [dep], { active: 0 });
    const theirAgent = await agent(b, []);
    const helper = await agent(a, [dep]);
    const before = await state();
    const cases: [string, unknown, number, string?][] = [
      ['/api/ticket/status', { id, status: 4 }, 400],
      ['/api/ticket/status', { id, status: 5 }, 400],
      ['/api/ticket/status', { id, status: -1 }, 400],
      ['/api/ticket/status', { id, status: 'resolved' }, 400],
      ['/api/ticket/status', { status: 1 }, 400],
      ['/api/ticket/status', { id: theirs, status: 1 }, 404, TICKET_STRINGS.notFound],
      ['/api/ticket/status', { id: 99_999_999, status: 1 }, 404, TICKET_STRINGS.notFound],
      ['/api/ticket/assign', { id, assignee: ['nobody-here'] }, 400, 'Unknown or inactive user: nobody-here.'],
      ['/api/ticket/assign', { id, assignee: [helper.username, inactive.username] }, 400, inactive.username],
      ['/api/ticket/assign', { id, assignee: [theirAgent.username] }, 400, theirAgent.username],
      ['/api/ticket/assign', { id, assignee: 'x' }, 400],
      ['/api/ticket/assign', { id: theirs, assignee: [helper.username] }, 404, TICKET_STRINGS.notFound],
      ['/api/ticket/labels', { id, label: [theirLabel] }, 400, `Unknown label: ${theirLabel}.`],
      ['/api/ticket/labels', { id, label: [gone] }, 400, `Unknown label: ${gone}.`],
      ['/api/ticket/labels', { id, label: ['x'] }, 400],
      ['/api/ticket/labels', { id: theirs, label: [] }, 404, TICKET_STRINGS.notFound],
      ['/api/ticket/department', { id, department_id: theirDep }, 400, 'No such department.'],
      ['/api/ticket/department', { id, department_id: 0 }, 400],
      ['/api/ticket/department', { id: theirs, department_id: null }, 404, TICKET_STRINGS.notFound],
      ['/api/ticket/autoassign', { id, strategy: 'random' }, 400],
      ['/api/ticket/autoassign', { id: theirs, strategy: 'round_robin' }, 404, TICKET_STRINGS.notFound],
    ];
    for (const [path, body, status, text] of cases) {
      const r = await call('POST', path, { token: a.token, body });
      const what = `${path} ${JSON.stringify(body)} -> ${r.text}`;
      expect(r.status, what).toBe(status);
      expect(r.body.result, what).toBe('failed');
      if (text) expect(r.text, what).toContain(text);
    }
    // Automatic assignment is for admins.
    expect(
      (await call('POST', '/api/ticket/autoassign', { token: helper.token, body: { id, strategy: 'round_robin' } }))
        .status,
    ).toBe(403);
    expect(await state()).toEqual(before);
  });

  it('ASSIGN manual assignment, labels and department: saved, messages posted, every new assignee recorded', async () => {
    const dep = await department(a.accountId);
    const x = await agent(a, [dep]);
    const y = await agent(a, [dep], { status: 'OFFLINE' });
    const z = await agent(a, []);
    const id = await ticket(a.accountId);
    const sock = await connectSocket(s.url, x.token, opened);
    const got = collect(sock, 'updateTicket');

    // Names match without regard to case; the stored name is the user's own.
    const r1 = await call('POST', '/api/ticket/assign', {
      token: a.token,
      body: { id, assignee: [x.username.toUpperCase(), y.username] },
    });
    expect(r1.status, r1.text).toBe(200);
    expect(TicketChangeAnswer.parse(r1.body).data.assignee).toBe(`${x.username},${y.username}`);
    expect((await ticketRow(id)).assignee).toBe(`${x.username},${y.username}`);
    const r2 = await call('POST', '/api/ticket/assign', {
      token: a.token,
      body: { id, assignee: [y.username, z.username] },
    });
    expect(r2.status, r2.text).toBe(200);
    expect((await assignmentsOf(id)).map((r) => [r.username, r.how, r.assigned_by, Number(r.account_id)])).toEqual([
      [x.username, 'manual', a.username, a.accountId],
      [y.username, 'manual', a.username, a.accountId],
      [z.username, 'manual', a.username, a.accountId],
    ]);
    const r3 = await call('POST', '/api/ticket/assign', { token: a.token, body: { id, assignee: [] } });
    expect(r3.body.data.assignee).toBe('');

    const l1 = await label(a.accountId, `Billing-${uniq()}`);
    const l2 = await label(a.accountId, `VIP-${uniq()}`);
    const rl = await call('POST', '/api/ticket/labels', { token: a.token, body: { id, label: [l2, l1, l2] } });
    expect(rl.status, rl.text).toBe(200);
    expect(rl.body.data.label).toEqual([l2, l1]);
    const rd = await call('POST', '/api/ticket/department', { token: a.token, body: { id, department_id: dep } });
    expect(rd.status, rd.text).toBe(200);
    expect(rd.body.data.department_id).toBe(dep);
    const rn = await call('POST', '/api/ticket/department', { token: a.token, body: { id, department_id: null } });
    expect(rn.body.data.department_id).toBeNull();

    const msgs = (await messagesOf(id)).map((m) => m.message);
    expect(msgs).toHaveLength(6);
    expect(msgs[0]).toBe(`${a.name} assigned the ticket to ${x.username}, ${y.username}.`);
    expect(msgs[2]).toBe(`${a.name} unassigned the ticket.`);
    expect(msgs[3]).toMatch(/^.* set the labels to VIP-\w+, Billing-\w+\.$/);
    expect(msgs[4]).toMatch(/ moved the ticket to D-/);
    expect(msgs[5]).toBe(`${a.name} removed the department.`);
    await waitFor(() => got.length === 6, 'six updateTicket events');
    expect(got.every((e) => e.id === id)).toBe(true);
  });

  it('ASSIGN automatic: offline, BUSY and at-limit agents and other departments are skipped; nobody free leaves it unassigned', async () => {
    const dep = await department(a.accountId);
    const otherDep = await department(a.accountId);
    const off = await agent(a, [dep], { status: 'OFFLINE' });
    const busy = await agent(a, [dep], { second_status: 'BUSY' });
    const full = await agent(a, [dep]);
    const elsewhere = await agent(a, [otherDep]);
    // A trial account has Starter's limit of 5 open tickets; closed ones do not count.
    for (let i = 0; i < 5; i++) await ticket(a.accountId, { assignee: full.username, closed: i % 2 });
    await ticket(a.accountId, { assignee: busy.username, closed: 3 });
    const id = await ticket(a.accountId, { department_id: dep });
    const before = await state();
    for (const strategy of ['round_robin', 'least_loaded']) {
      const r = await call('POST', '/api/ticket/autoassign', { token: a.token, body: { id, strategy } });
      expect(r.status, r.text).toBe(200);
      expect(TicketAutoAssignAnswer.parse(r.body)).toMatchObject({ assignee: null, data: { id, assignee: '' } });
    }
    expect(await state()).toEqual(before);
    void off;
    void elsewhere;

    // One more of the full agent's tickets is resolved: now under the limit, the agent takes it.
    await db()
      .updateTable('tickets')
      .set({ closed: 2 })
      .where('account_id', '=', a.accountId)
      .where('assignee', '=', full.username)
      .where('closed', '=', 0)
      .execute();
    const r = await call('POST', '/api/ticket/autoassign', { token: a.token, body: { id, strategy: 'round_robin' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ assignee: full.username, data: { assignee: full.username } });
    expect((await assignmentsOf(id)).map((x) => [x.username, x.how, x.assigned_by])).toEqual([
      [full.username, 'round_robin', a.username],
    ]);
    expect((await messagesOf(id)).map((m) => m.message)).toEqual([
      TICKET_SYSTEM_MESSAGES.autoAssigned(full.username, 'round_robin'),
    ]);
  });

  it('ASSIGN least loaded picks the agent with the fewest open tickets', async () => {
    const dep = await department(a.accountId);
    const agents = [await agent(a, [dep]), await agent(a, [dep]), await agent(a, [dep])];
    const [p, q, r] = agents.map((x) => x.username) as [string, string, string];
    await ticket(a.accountId, { assignee: `${p}` });
    await ticket(a.accountId, { assignee: `${p},${r}` });
    await ticket(a.accountId, { assignee: q, closed: 3 });
    const picks: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await ticket(a.accountId, { department_id: dep });
      picks.push(await assignTicketAutomatically(db(), conversationRules(), a.accountId, id, 'least_loaded'));
    }
    // Open loads p 2, q 0, r 1 (q's closed ticket does not count): q.
    // Then p 2, q 1, r 1: r has no recorded assignment, q has one, so r.
    // Then p 2, q 1, r 2: q. Then all at 2: p has no recorded assignment, so p.
    expect(picks).toEqual([q, r, q, p]);
    const recorded = await db()
      .selectFrom('ticket_assignments')
      .select(['username', 'how', 'assigned_by'])
      .where('account_id', '=', a.accountId)
      .where('how', '=', 'least_loaded')
      .orderBy('id')
      .execute();
    expect(recorded.map((x) => x.username)).toEqual([q, r, q, p]);
    expect(recorded.every((x) => x.assigned_by === 'server')).toBe(true);
  });

  it(
    'ASSIGN round robin is fair over 1,000 tickets: a fixed rotation, counts differ by at most 1',
    { timeout: 300_000 },
    async () => {
      const c = await signUpVia(call);
      await db().updateTable('accounts').set({ plan: 4 }).where('id', '=', c.accountId).execute(); // unlimited
      const dep = await department(c.accountId);
      const team = [await agent(c, [dep]), await agent(c, [dep]), await agent(c, [dep])].map((x) => x.username);
      await agent(c, [dep], { status: 'OFFLINE' });
      await agent(c, [dep], { second_status: 'AWAY' });
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        account_id: c.accountId,
        ticket_number: i + 1,
        title: `RR ${i}`,
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: '[]',
        department_id: dep,
        assignee: '',
        name: '',
        email: '',
        phone: '',
        created_at: 1_000,
        updated_at: 1_000,
      }));
      for (let i = 0; i < rows.length; i += 200)
        await db()
          .insertInto('tickets')
          .values(rows.slice(i, i + 200))
          .execute();
      const ids = (
        await db().selectFrom('tickets').select('id').where('account_id', '=', c.accountId).orderBy('id').execute()
      ).map((x) => Number(x.id));
      const picks: string[] = [];
      for (const id of ids)
        picks.push((await assignTicketAutomatically(db(), conversationRules(), c.accountId, id, 'round_robin'))!);
      const counts = team.map((u) => picks.filter((x) => x === u).length);
      expect(counts.reduce((x, y) => x + y, 0)).toBe(1000);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      // A fixed rotation: every window of three holds all three agents.
      const sorted = [...team].sort();
      expect(picks.slice(0, 3)).toEqual(sorted);
      for (let i = 3; i < picks.length; i++) expect(picks[i]).toBe(picks[i - 3]);
      const recorded = await db()
        .selectFrom('ticket_assignments')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', c.accountId)
        .where('how', '=', 'round_robin')
        .executeTakeFirstOrThrow();
      expect(Number(recorded.n)).toBe(1000);
    },
  );
});
