import { slaMonth } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParley, type Parley } from '../../app.js';
import { addUserVia, apiClient, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { SLA_BREACHED, SLA_WARNED } from './alerts.js';

const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
const S = 1000;

describe.each(dialects)('SLA engine (%s)', (dialect) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let now = T0;
  const clock = () => now;
  const nodes: Parley[] = [];
  let a: SignedUp;
  let agent: { id: number; username: string };
  let deptAgent: { id: number; username: string };
  let outsider: { id: number; username: string };
  let labelId: number;
  let numbers = 0;

  const start = async () => {
    const p = await createParley(testConfig({ ...fresh.env, NODE_ID: `n${nodes.length}-${uniq()}` }), {
      logger: pino({ level: 'silent' }),
      clock,
    });
    await p.listen();
    nodes.push(p);
    return p;
  };
  const db = () => nodes.at(-1)!.handle.db;

  const ticket = async (o: { assignee?: string; department_id?: number | null; lastMessageAt?: number } = {}) => {
    const n = ++numbers;
    const r = await db()
      .insertInto('tickets')
      .values({
        account_id: a.accountId,
        ticket_number: 1000 + n,
        title: `Waiting ${n}`,
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: JSON.stringify([labelId]),
        department_id: o.department_id ?? null,
        assignee: o.assignee ?? '',
        name: 'C',
        email: 'c@example.net',
        phone: '',
        created_at: T0,
        updated_at: T0,
        last_message_at: o.lastMessageAt ?? now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: Number(r.id), number: 1000 + n };
  };
  /** A message stored as the write path stores it: the row, and `has_responded` set by an agent, cleared by a customer. */
  const message = async (ticketId: number, sender: string, at: number) => {
    await db()
      .insertInto('messages')
      .values({
        account_id: a.accountId,
        ticket_id: ticketId,
        type: 'text',
        message: 'hi',
        sender,
        client_id: null,
        created_at: at,
      })
      .execute();
    await db()
      .updateTable('tickets')
      .set({ has_responded: sender === 'visitor' ? 0 : 1 })
      .where('id', '=', ticketId)
      .execute();
  };
  const alerts = async (ticketNumber: number, userId?: number) =>
    (
      await db()
        .selectFrom('notifications')
        .select(['type', 'user_id', 'title'])
        .where('account_id', '=', a.accountId)
        .where('category', '=', 'sla')
        .where('ticket_number', '=', ticketNumber)
        .$if(userId !== undefined, (q) => q.where('user_id', '=', userId!))
        .orderBy('id')
        .execute()
    ).map((r) => ({ type: r.type, user: Number(r.user_id) }));

  beforeAll(async () => {
    fresh = await freshDatabase(dialect);
    const p = await start();
    const call = apiClient(`http://127.0.0.1:${(p.app.server.address() as { port: number }).port}`);
    a = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `sla-agent-${uniq()}`, type: 'agent' });
    deptAgent = await addUserVia(call, a.token, { username: `sla-dept-${uniq()}`, type: 'agent' });
    outsider = await addUserVia(call, a.token, { username: `sla-out-${uniq()}`, type: 'agent' });
    const dep = await db()
      .insertInto('departments')
      .values({ account_id: a.accountId, name: 'Billing', created_at: T0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .updateTable('users')
      .set({ departments: JSON.stringify([Number(dep.id)]) })
      .where('id', '=', deptAgent.id)
      .execute();
    (globalThis as { depId?: number }).depId = Number(dep.id);
    const l = await db()
      .insertInto('labels')
      .values({
        account_id: a.accountId,
        name: 'Urgent',
        color: '#ff0000',
        color_dark: '#ff0000',
        level: 1,
        sla: 1,
        removed: 0,
        created_at: T0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    labelId = Number(l.id);
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await fresh?.drop();
  });

  it('SLA LABEL-03 a 1-minute label raises exactly one warning at 80 % and one violation, to assignee and admins, each one event for automation', async () => {
    now = T0;
    const t = await ticket({ assignee: agent.username });
    const sla = nodes.at(-1)!.sla;
    now = T0 + 10 * S;
    await sla.check();
    expect(await alerts(t.number)).toEqual([]);
    now = T0 + 47 * S;
    await sla.check();
    expect(await alerts(t.number)).toEqual([]);
    now = T0 + 48 * S;
    await sla.check();
    await sla.check();
    expect((await alerts(t.number, agent.id)).map((x) => x.type)).toEqual(['warning']);
    expect((await alerts(t.number, a.userId)).map((x) => x.type)).toEqual(['warning']);
    now = T0 + 60 * S;
    await sla.check();
    now = T0 + 10 * 60 * S;
    await sla.check();
    await sla.check();
    expect((await alerts(t.number, agent.id)).map((x) => x.type)).toEqual(['warning', 'violation']);
    expect((await alerts(t.number, a.userId)).map((x) => x.type)).toEqual(['warning', 'violation']);
    // Nobody else: the other agents are neither assignees nor admins.
    expect(await alerts(t.number, outsider.id)).toEqual([]);
    const facts = await db().selectFrom('sla_breaches').selectAll().where('ticket_id', '=', t.id).execute();
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({ sla_minutes: 1, alerted: 1 });
    expect(Number(facts[0]!.waited_from)).toBe(T0);
    expect(Number(facts[0]!.breached_at)).toBe(T0 + 60 * S);
    // The events automation rules run on ("SLA warning", "SLA breach"): one of each for this wait.
    const events = await db()
      .selectFrom('events')
      .select(['type', 'payload'])
      .where('account_id', '=', a.accountId)
      .where('type', 'in', [SLA_WARNED, SLA_BREACHED])
      .execute();
    const mine = events.filter((e) => (JSON.parse(String(e.payload)) as { id: number }).id === t.id);
    expect(mine.map((e) => e.type).sort()).toEqual([SLA_BREACHED, SLA_WARNED].sort());
  });

  it('SLA no alert when an agent answers in time; the next customer message starts a new wait', async () => {
    now = T0;
    const t = await ticket({ department_id: (globalThis as { depId?: number }).depId });
    await message(t.id, 'visitor', T0);
    await message(t.id, agent.username, T0 + 30 * S);
    now = T0 + 5 * 60 * S;
    await nodes.at(-1)!.sla.check();
    expect(await alerts(t.number)).toEqual([]);
    // A new customer message at +6 min: a new wait, unassigned, so the department's agent and admins hear.
    const at = T0 + 6 * 60 * S;
    await message(t.id, 'visitor', at);
    await db().updateTable('tickets').set({ last_message_at: at }).where('id', '=', t.id).execute();
    now = at + 50 * S;
    await nodes.at(-1)!.sla.check();
    expect((await alerts(t.number, deptAgent.id)).map((x) => x.type)).toEqual(['warning']);
    expect((await alerts(t.number, a.userId)).map((x) => x.type)).toEqual(['warning']);
    expect(await alerts(t.number, agent.id)).toEqual([]);
    // A second customer message continues the same wait (no new warning); the reply ends it.
    await message(t.id, 'visitor', at + 55 * S);
    await db()
      .updateTable('tickets')
      .set({ last_message_at: at + 55 * S })
      .where('id', '=', t.id)
      .execute();
    await message(t.id, agent.username, at + 58 * S);
    now = at + 3 * 60 * S;
    await nodes.at(-1)!.sla.check();
    expect((await alerts(t.number, deptAgent.id)).map((x) => x.type)).toEqual(['warning']);
  });

  it('SLA one warning and one violation across a restart in the middle', async () => {
    const B = T0 + 1 * 3600 * S;
    now = B;
    const t = await ticket({ assignee: agent.username });
    now = B + 50 * S;
    await nodes.at(-1)!.sla.check();
    expect((await alerts(t.number, agent.id)).map((x) => x.type)).toEqual(['warning']);
    await nodes.pop()!.close();
    await start();
    now = B + 61 * S;
    await nodes.at(-1)!.sla.check();
    await nodes.at(-1)!.sla.check();
    expect((await alerts(t.number, agent.id)).map((x) => x.type)).toEqual(['warning', 'violation']);
  });

  it('SLA checks running at once on one node alert exactly once', async () => {
    const B = T0 + 2 * 3600 * S;
    now = B;
    const t = await ticket({ assignee: agent.username });
    const sla = nodes.at(-1)!.sla;
    now = B + 50 * S;
    await Promise.all([sla.check(), sla.check(), sla.check()]);
    now = B + 70 * S;
    await Promise.all([sla.check(), sla.check()]);
    expect((await alerts(t.number, agent.id)).map((x) => x.type)).toEqual(['warning', 'violation']);
  });

  // SQLite is one node by design (one file, one process); several nodes share Postgres.
  if (dialect === 'postgres')
    it('SLA LABEL-03 two nodes on Postgres checking at once alert exactly once; the scheduler runs the check on one', async () => {
      const second = await start();
      const first = nodes[0]!;
      const B = T0 + 5 * 3600 * S;
      now = B;
      const t = await ticket({ assignee: agent.username });
      now = B + 50 * S;
      await Promise.all([first.sla.check(), second.sla.check(), first.sla.check()]);
      now = B + 70 * S;
      await Promise.all([first.sla.check(), second.sla.check()]);
      expect((await alerts(t.number, agent.id)).map((x) => x.type)).toEqual(['warning', 'violation']);

      // Through the scheduler's lease: the background runs are stopped, so only the two runs below compete
      // for a free lease, and exactly one of them checks (and raises the one warning that is due).
      await Promise.all([first.scheduler.stop(), second.scheduler.stop()]);
      await db().updateTable('task_leases').set({ lease_until: 0 }).where('name', '=', 'slaCheck').execute();
      now = B + 3600 * S;
      const u = await ticket({ assignee: agent.username });
      now += 50 * S;
      const ran = await Promise.all([
        first.scheduler.runOnce(first.sla.task()),
        second.scheduler.runOnce(second.sla.task()),
      ]);
      expect(ran.filter(Boolean)).toHaveLength(1);
      expect(await alerts(u.number, agent.id)).toEqual([{ type: 'warning', user: agent.id }]);
      await nodes.pop()!.close();
    });

  it('SLA PLAN-20 the monthly quota stops alerts and tells the admins once; breaches are still recorded', async () => {
    await db().updateTable('accounts').set({ plan: 1 }).where('id', '=', a.accountId).execute();
    const B = T0 + 6 * 3600 * S;
    now = B;
    await db()
      .updateTable('sla_usage')
      .set({ alerts: 99 })
      .where('account_id', '=', a.accountId)
      .where('month', '=', slaMonth(now))
      .execute();
    const t1 = await ticket({ assignee: agent.username });
    const t2 = await ticket({ assignee: agent.username });
    const t3 = await ticket({ assignee: agent.username });
    now = B + 2 * 60 * S;
    await nodes.at(-1)!.sla.check();
    const sent = [...(await alerts(t1.number, agent.id)), ...(await alerts(t2.number, agent.id))];
    expect(sent).toHaveLength(1);
    expect(await alerts(t3.number, agent.id)).toEqual([]);
    const usage = await db()
      .selectFrom('sla_usage')
      .selectAll()
      .where('account_id', '=', a.accountId)
      .where('month', '=', slaMonth(now))
      .executeTakeFirstOrThrow();
    expect(Number(usage.alerts)).toBe(100);
    const notices = await db()
      .selectFrom('notifications')
      .select(['user_id', 'title'])
      .where('account_id', '=', a.accountId)
      .where('title', '=', 'SLA alerts paused')
      .execute();
    expect(notices.map((n) => Number(n.user_id))).toEqual([a.userId]);
    const facts = await db()
      .selectFrom('sla_breaches')
      .select(['ticket_id', 'alerted'])
      .where('ticket_id', 'in', [t1.id, t2.id, t3.id])
      .execute();
    expect(facts).toHaveLength(3);
    expect(facts.filter((f) => Number(f.alerted) === 0)).toHaveLength(2);
    // Next month the quota starts again.
    now = Date.UTC(2030, 1, 1, 0, 0, 30);
    const t4 = await ticket({ assignee: agent.username, lastMessageAt: now });
    now += 50 * S;
    await nodes.at(-1)!.sla.check();
    expect((await alerts(t4.number, agent.id)).map((x) => x.type)).toEqual(['warning']);
  });
});
