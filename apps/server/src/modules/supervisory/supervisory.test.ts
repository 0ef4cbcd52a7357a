import {
  PLANS,
  SUPERVISORY_RISK_WINDOW_MS,
  SUPERVISORY_STRINGS,
  type SupervisoryAnswer,
  type SupervisorySnapshot,
} from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRows } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
type User = Awaited<ReturnType<typeof addUserVia>>;
const MIN = 60_000;

/**
 * The board's snapshot read at a fixed server time (`now`), from rows written straight into the tables; the
 * scheduler is stopped so neither the SLA check nor the presence sweep changes them underneath.
 */
describe.each(dialects)('supervisory board (%s)', (dialect) => {
  const now = Math.floor(Date.now() / 1000) * 1000;
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  const rows = accountRows(db);
  let a: SignedUp;
  let b: SignedUp;
  let supervisor: User;
  let agent: User;

  const board = async (token: string) => {
    const r = await call('GET', '/api/supervisory', { token });
    expect(r.status, r.text).toBe(200);
    return (r.body as SupervisoryAnswer).data;
  };
  const setStatus = (id: number, status: string, second: string, reason: string, since: number) =>
    db()
      .updateTable('users')
      .set({ status, second_status: second, status_reason: reason, status_since: since })
      .where('id', '=', id)
      .execute();
  const visitor = async (accountId: number) =>
    Number(
      (
        await db()
          .insertInto('livechat_visitors')
          .values({ account_id: accountId, csrf_hash: `h-${uniq()}`, created_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  const chat = async (
    accountId: number,
    o: { state: 'queued' | 'chatting' | 'ended'; queuedAt: number; agent?: string; department?: number | null },
  ) => {
    const v = await visitor(accountId);
    await db()
      .insertInto('livechats')
      .values({
        account_id: accountId,
        visitor_id: v,
        session_id: v,
        state: o.state,
        name: `Visitor ${uniq()}`,
        phone: '',
        email: '',
        message: 'hello',
        department_id: o.department ?? null,
        agent: o.agent ?? '',
        queued_at: o.queuedAt,
        accepted_at: o.state === 'queued' ? null : o.queuedAt,
      })
      .execute();
  };
  const responseTimer = (
    accountId: number,
    ticketId: number,
    t: { warnAt: number; dueAt: number; paused?: boolean; answered?: boolean },
  ) =>
    db()
      .insertInto('sla_timers')
      .values({
        ticket_id: ticketId,
        account_id: accountId,
        label_id: 0,
        sla_minutes: 60,
        started_at: t.dueAt - 60 * MIN,
        warn_at: t.warnAt,
        due_at: t.dueAt,
        warned_at: null,
        violated_at: t.dueAt <= now ? t.dueAt : null,
        answered_at: t.answered ? now - MIN : null,
        next_at: null,
        updated_at: now,
        paused_at: t.paused ? now - MIN : null,
      })
      .execute();
  const resolutionTimer = (accountId: number, ticketId: number, t: { warnAt: number; dueAt: number }) =>
    db()
      .insertInto('sla_resolution_timers')
      .values({
        ticket_id: ticketId,
        account_id: accountId,
        sla_minutes: 600,
        started_at: t.dueAt - 600 * MIN,
        warn_at: t.warnAt,
        due_at: t.dueAt,
        warned_at: null,
        violated_at: null,
        stopped_at: null,
        paused_at: null,
        next_at: null,
        updated_at: now,
      })
      .execute();

  beforeAll(async () => {
    s = await startTestServer(dialect, {}, { clock: () => now });
    await s.scheduler.stop();
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    supervisor = await addUserVia(call, a.token, {
      username: `sup-${uniq()}`,
      name: 'Sue Supervisor',
      type: 'supervisor',
    });
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, name: 'Al Agent', type: 'agent' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('lists each active agent with the status shown, since when, running chats against the plan limit and open tickets', async () => {
    await db().updateTable('accounts').set({ plan: PLANS.basic }).where('id', '=', a.accountId).execute();
    const busy = await addUserVia(call, a.token, { username: `busy-${uniq()}`, name: 'Bea Busy', type: 'agent' });
    const gone = await addUserVia(call, a.token, { username: `gone-${uniq()}`, name: 'Gus Gone', type: 'agent' });
    const custom = await addUserVia(call, a.token, { username: `cust-${uniq()}`, name: 'Cy Custom', type: 'agent' });
    const away = await addUserVia(call, a.token, { username: `away-${uniq()}`, name: 'Ada Admin', type: 'admin' });
    const idle = await addUserVia(call, a.token, { username: `idle-${uniq()}`, name: 'Ida Idle', type: 'admin' });
    const left = await addUserVia(call, a.token, { username: `left-${uniq()}`, name: 'Lee Left', type: 'agent' });
    await setStatus(a.userId, 'OFFLINE', '', '', now - 100 * MIN);
    await setStatus(supervisor.id, 'OFFLINE', '', '', now - 90 * MIN);
    await setStatus(agent.id, 'ONLINE', '', '', now - 5 * MIN);
    // second_status overrides status while connected; a chosen status without a connection is Offline.
    await setStatus(busy.id, 'ONLINE', 'BUSY', 'On a call', now - 12 * MIN);
    await setStatus(gone.id, 'OFFLINE', 'AWAY', 'Lunch', now - 3 * 60 * MIN);
    await setStatus(custom.id, 'ONLINE', 'Training', '', now - 40 * MIN);
    await setStatus(away.id, 'ONLINE', 'AWAY', 'Meeting', now - 7 * MIN);
    await setStatus(idle.id, 'OFFLINE', '', '', now - 60 * MIN);
    await setStatus(left.id, 'ONLINE', '', '', now - MIN);
    await db().updateTable('users').set({ active: 0 }).where('id', '=', left.id).execute();

    for (let i = 0; i < 3; i++)
      await chat(a.accountId, { state: 'chatting', queuedAt: now - MIN, agent: agent.username });
    await chat(a.accountId, { state: 'chatting', queuedAt: now - MIN, agent: busy.username });
    await chat(a.accountId, { state: 'ended', queuedAt: now - MIN, agent: busy.username });
    // Open tickets: two of the agent's (one shared with Bea), Pending and a custom code count; done ones,
    // live chats and Workspace chats do not.
    await rows.ticket(a.accountId, { assignee: agent.username });
    await rows.ticket(a.accountId, { assignee: `${busy.username},${agent.username}`, closed: 1 });
    await rows.ticket(a.accountId, { assignee: busy.username, closed: 7 });
    await rows.ticket(a.accountId, { assignee: agent.username, closed: 2 });
    await rows.ticket(a.accountId, { assignee: agent.username, closed: 3 });
    await rows.ticket(a.accountId, { assignee: agent.username, channel: 'LIVECHAT' });
    await rows.ticket(a.accountId, { assignee: agent.username, channel: 'chat' });

    const data = await board(supervisor.token);
    expect(data.now).toBe(now);
    expect(data.chatLimit).toBe(10);
    const row = (id: number) => data.agents.find((x) => x.userId === id);
    expect(row(agent.id)).toMatchObject({ status: 'ONLINE', reason: '', since: now - 5 * MIN, chats: 3, tickets: 2 });
    expect(row(busy.id)).toMatchObject({
      status: 'BUSY',
      reason: 'On a call',
      since: now - 12 * MIN,
      chats: 1,
      tickets: 2,
    });
    expect(row(gone.id)).toMatchObject({ status: 'OFFLINE', since: now - 3 * 60 * MIN, chats: 0, tickets: 0 });
    expect(row(custom.id)).toMatchObject({ status: 'Training', since: now - 40 * MIN });
    // Admins only while here; the owner (Offline) and the inactive user are not on the board.
    expect(row(away.id)).toMatchObject({ status: 'AWAY', reason: 'Meeting', type: 'admin' });
    expect(row(idle.id)).toBeUndefined();
    expect(row(a.userId)).toBeUndefined();
    expect(row(left.id)).toBeUndefined();
    expect(row(supervisor.id)).toMatchObject({ status: 'OFFLINE', type: 'supervisor' });
    // Those present first, each group by name.
    expect(data.agents.map((x) => x.name)).toEqual([
      'Ada Admin',
      'Al Agent',
      'Bea Busy',
      'Cy Custom',
      'Gus Gone',
      'Sue Supervisor',
    ]);

    // An enterprise plan has no limit.
    await db().updateTable('accounts').set({ plan: PLANS.enterprise }).where('id', '=', a.accountId).execute();
    expect((await board(a.token)).chatLimit).toBeNull();
  });

  it('the time in a status starts with the open status period the status module wrote', async () => {
    const r = await call('POST', '/api/online_status/update', {
      token: agent.token,
      body: { status: 'AWAY', reason: 'Coffee' },
    });
    expect(r.status, r.text).toBe(200);
    const period = await db()
      .selectFrom('status_periods')
      .select(['started_at', 'status'])
      .where('user_id', '=', agent.id)
      .where('ended_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(period.status).toBe('AWAY');
    const me = (await board(supervisor.token)).agents.find((x) => x.userId === agent.id);
    expect(me).toMatchObject({ status: 'AWAY', reason: 'Coffee', since: Number(period.started_at) });
  });

  it('counts waiting visitors per department with the longest wait, the oldest first', async () => {
    const c = await signUpVia(call);
    const sales = await rows.department(c.accountId, 'Sales');
    const billing = await rows.department(c.accountId, 'Billing');
    const removed = await rows.department(c.accountId, 'Old');
    await chat(c.accountId, { state: 'queued', queuedAt: now - 4 * MIN, department: sales });
    await chat(c.accountId, { state: 'queued', queuedAt: now - 9 * MIN, department: sales });
    await chat(c.accountId, { state: 'queued', queuedAt: now - 2 * MIN, department: billing });
    await chat(c.accountId, { state: 'queued', queuedAt: now - 11 * MIN, department: null });
    await chat(c.accountId, { state: 'queued', queuedAt: now - MIN, department: removed });
    await db().deleteFrom('departments').where('id', '=', removed).execute();
    // Running and ended chats do not wait.
    await chat(c.accountId, { state: 'chatting', queuedAt: now - 30 * MIN, department: sales });
    await chat(c.accountId, { state: 'ended', queuedAt: now - 30 * MIN, department: billing });

    const { queue } = await board(c.token);
    expect(queue.waiting).toBe(5);
    expect(queue.oldestQueuedAt).toBe(now - 11 * MIN);
    expect(queue.departments).toEqual([
      { departmentId: null, department: SUPERVISORY_STRINGS.noDepartment, waiting: 1, oldestQueuedAt: now - 11 * MIN },
      { departmentId: sales, department: 'Sales', waiting: 2, oldestQueuedAt: now - 9 * MIN },
      { departmentId: billing, department: 'Billing', waiting: 1, oldestQueuedAt: now - 2 * MIN },
      {
        departmentId: removed,
        department: SUPERVISORY_STRINGS.removedDepartment,
        waiting: 1,
        oldestQueuedAt: now - MIN,
      },
    ]);
    // Nobody waiting.
    const empty = await signUpVia(call);
    expect((await board(empty.token)).queue).toEqual({ waiting: 0, oldestQueuedAt: null, departments: [] });
  });

  it('lists tickets whose running SLA clock is warned, due within 30 minutes or breached, due soonest first', async () => {
    const c = await signUpVia(call);
    const pat = await addUserVia(call, c.token, { username: `pat-${uniq()}`, name: 'Pat Smith', type: 'agent' });
    const t = async (title: string, over: Parameters<typeof rows.ticket>[1] = {}) =>
      rows.ticket(c.accountId, { title, assignee: pat.username, ...over });
    const breached = await t('Breached', { assignee: `${pat.username},ghost-user` });
    await responseTimer(c.accountId, breached, { warnAt: now - 20 * MIN, dueAt: now - 5 * MIN });
    const soon = await t('Due soon', { assignee: '' });
    await responseTimer(c.accountId, soon, { warnAt: now + 5 * MIN, dueAt: now + 20 * MIN });
    const warned = await t('Warned');
    await resolutionTimer(c.accountId, warned, { warnAt: now - MIN, dueAt: now + 2 * 60 * MIN });
    // Late on both: one row, the clock due first.
    const both = await t('Both');
    await responseTimer(c.accountId, both, { warnAt: now - MIN, dueAt: now + 10 * MIN });
    await resolutionTimer(c.accountId, both, { warnAt: now - 2 * MIN, dueAt: now + 25 * MIN });
    // Not at risk: far off, paused (Pending), answered, done, a Workspace chat.
    const later = await t('Later');
    await responseTimer(c.accountId, later, { warnAt: now + 50 * MIN, dueAt: now + 60 * MIN });
    const later2 = await t('Later resolution');
    await resolutionTimer(c.accountId, later2, { warnAt: now + 3 * 60 * MIN, dueAt: now + 4 * 60 * MIN });
    await responseTimer(c.accountId, await t('Paused', { closed: 1 }), {
      warnAt: now - 9 * MIN,
      dueAt: now - MIN,
      paused: true,
    });
    await responseTimer(c.accountId, await t('Answered'), { warnAt: now - 9 * MIN, dueAt: now - MIN, answered: true });
    await responseTimer(c.accountId, await t('Resolved', { closed: 2 }), { warnAt: now - 9 * MIN, dueAt: now - MIN });
    await responseTimer(c.accountId, await t('Closed', { closed: 3 }), { warnAt: now - 9 * MIN, dueAt: now - MIN });
    await responseTimer(c.accountId, await t('Team chat', { channel: 'chat' }), {
      warnAt: now - 9 * MIN,
      dueAt: now - MIN,
    });

    const data = await board(c.token);
    const number = async (id: number) =>
      Number(
        (await db().selectFrom('tickets').select('ticket_number').where('id', '=', id).executeTakeFirstOrThrow())
          .ticket_number,
      );
    expect(data.risks).toEqual([
      {
        id: breached,
        ticketNumber: await number(breached),
        title: 'Breached',
        assignees: ['Pat Smith', 'ghost-user'],
        target: 'response',
        dueAt: now - 5 * MIN,
        breached: true,
      },
      {
        id: both,
        ticketNumber: await number(both),
        title: 'Both',
        assignees: ['Pat Smith'],
        target: 'response',
        dueAt: now + 10 * MIN,
        breached: false,
      },
      {
        id: soon,
        ticketNumber: await number(soon),
        title: 'Due soon',
        assignees: [],
        target: 'response',
        dueAt: now + 20 * MIN,
        breached: false,
      },
      {
        id: warned,
        ticketNumber: await number(warned),
        title: 'Warned',
        assignees: ['Pat Smith'],
        target: 'resolution',
        dueAt: now + 2 * 60 * MIN,
        breached: false,
      },
    ]);
    expect(data.risksTotal).toBe(4);
    // 'Later' enters the window 30 minutes before it is due (before its warning); the board reads again then.
    expect(data.nextChangeAt).toBe(now + 60 * MIN - SUPERVISORY_RISK_WINDOW_MS);
    const pat0 = data.agents.find((x) => x.userId === pat.id);
    // Breached, Warned, Both, Later, Later resolution, Paused, Answered: not done, not a Workspace chat.
    expect(pat0?.tickets).toBe(7);
  });

  it('is refused (403) to an agent without view_report, and allowed once an admin gives it', async () => {
    const r = await call('GET', '/api/supervisory', { token: agent.token });
    expect(r.status).toBe(403);
    expect(r.body.description).toBe(SUPERVISORY_STRINGS.notAllowed);
    expect((await call('GET', '/api/supervisory')).status).toBe(401);
    const granted = await call('PATCH', `/api/users/${agent.id}`, {
      token: a.token,
      body: { permission: ['view_report'] },
    });
    expect(granted.status, granted.text).toBe(200);
    expect((await call('GET', '/api/supervisory', { token: agent.token })).status).toBe(200);
    // A supervisor whose view_report was taken away is refused too.
    const taken = await call('PATCH', `/api/users/${supervisor.id}`, {
      token: a.token,
      body: { permission: [] },
    });
    expect(taken.status, taken.text).toBe(200);
    expect((await call('GET', '/api/supervisory', { token: supervisor.token })).status).toBe(403);
    await call('PATCH', `/api/users/${supervisor.id}`, {
      token: a.token,
      body: { permission: ['view_report'] },
    });
  });

  it("never shows another account's agents, chats, queue or tickets", async () => {
    // Account A has agents, running and waiting chats and at-risk tickets (the tests above); B has none.
    await chat(a.accountId, { state: 'queued', queuedAt: now - 3 * MIN });
    const risky = await rows.ticket(a.accountId, { title: `A risk ${uniq()}`, assignee: agent.username });
    await responseTimer(a.accountId, risky, { warnAt: now - MIN, dueAt: now + MIN });
    await setStatus(b.userId, 'ONLINE', '', '', now - MIN);
    const mine: SupervisorySnapshot = await board(b.token);
    expect(mine.agents.map((x) => x.userId)).toEqual([b.userId]);
    expect(mine.agents[0]).toMatchObject({ chats: 0, tickets: 0 });
    expect(mine.queue).toEqual({ waiting: 0, oldestQueuedAt: null, departments: [] });
    expect(mine.risks).toEqual([]);
    expect(mine.risksTotal).toBe(0);
    expect(mine.nextChangeAt).toBeNull();
    // A's board does have them.
    const theirs = await board(a.token);
    expect(theirs.queue.waiting).toBeGreaterThan(0);
    expect(theirs.risks.map((r) => r.id)).toContain(risky);
  });
});
