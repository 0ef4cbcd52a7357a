import { TICKET_STATUS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, runCommand } from '../../platform/outbox/index.js';
import { accountRows } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { SLA_BREACHED, SLA_WARNED } from '../sla/index.js';
import { TICKET_RATED } from '../tickets/index.js';

/**
 * The events besides a customer's message: ticket created (through the ticket route), SLA warning and
 * breach and CSAT rating received (as the SLA engine and ratings append them), with the customer, labels
 * and business-hours conditions and the ticket actions not covered by the refund rule.
 */
describe.each(dialects)('automation on every ticket event (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string; username: string; id: number };
  const db = () => s.handle.db;
  const { label, ticket } = accountRows(db, () => ({ channel: 'MANUAL' }));

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  const rule = async (body: Record<string, unknown>) => {
    const r = await call('POST', '/api/automation/rules', { token: admin.token, body: { name: uniq(), ...body } });
    expect(r.status, r.text).toBe(200);
    return r.body.data.id as number;
  };
  const runsOf = (ruleId: number) =>
    db().selectFrom('automation_runs').selectAll().where('rule_id', '=', ruleId).orderBy('id').execute();
  const settled = () =>
    waitFor(
      async () =>
        (
          await db()
            .selectFrom('events')
            .select('id')
            .where('account_id', '=', admin.accountId)
            .where('delivered_at', 'is', null)
            .execute()
        ).length === 0,
      'every event delivered',
      60_000,
    );
  const ticketRow = (id: number) =>
    db().selectFrom('tickets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const append = (type: string, payload: unknown) =>
    runCommand(db(), (trx) => appendEvent(trx, { accountId: admin.accountId, type, payload }));

  it('AUTOMATION "Ticket created" with customer, labels and business-hours conditions: reply, note, notify, status, assignee; a ticket of another customer runs nothing', async () => {
    const vip = await label(admin.accountId, 'VIP');
    const ruleId = await rule({
      event: 'ticket_created',
      conditions: [
        { field: 'customer', attribute: 'email', op: 'contains', value: '@vip.example' },
        { field: 'labels', has: 'none', labels: [vip] },
        // No business hours set: always open.
        { field: 'business_hours', within: true },
      ],
      actions: [
        { type: 'reply', text: 'Thanks {{customer.name}}' },
        { type: 'note', text: 'VIP customer: {{customer.email}}' },
        { type: 'notify', users: [admin.username], text: 'A VIP wrote' },
        { type: 'status', status: TICKET_STATUS.pending },
        { type: 'assignee', assignee: [agent.username] },
      ],
    });
    const made = await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: { title: 'Help', name: 'Vic', email: 'vic@vip.example', phone: '' },
    });
    expect(made.status, made.text).toBe(200);
    const other = await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: { title: 'Help', name: 'Nat', email: 'nat@example.com', phone: '' },
    });
    expect(other.status, other.text).toBe(200);
    await waitFor(async () => (await runsOf(ruleId)).length === 1, 'the run');
    await settled();
    const runs = await runsOf(ruleId);
    expect(runs).toHaveLength(1);
    const t = await ticketRow(made.body.data.id);
    expect(Number(runs[0]!.ticket_id)).toBe(Number(t.id));
    expect(JSON.parse(runs[0]!.did)).toEqual([
      'Send a reply',
      'Add a note',
      'Notify users: 1',
      'Set status',
      'Assign to agents',
    ]);
    expect(Number(t.closed)).toBe(TICKET_STATUS.pending);
    expect(t.assignee).toBe(agent.username);
    const notes = await db().selectFrom('messages').select('message').where('ticket_id', '=', t.id).execute();
    const ticketNotes = await db().selectFrom('ticket_notes').select('text').where('ticket_id', '=', t.id).execute();
    expect(ticketNotes.map((n) => n.text)).toEqual(['VIP customer: vic@vip.example']);
    expect(notes.map((n) => n.message)).toContain('Thanks Vic');
    const told = await db()
      .selectFrom('notifications')
      .selectAll()
      .where('user_id', '=', admin.userId)
      .where('body', '=', 'A VIP wrote')
      .execute();
    expect(told).toHaveLength(1);
    expect(Number(told[0]!.ticket_id)).toBe(Number(t.id));
  });

  it('AUTOMATION "SLA warning", "SLA breach" and "CSAT rating received" run their rules once per event; a rating above the limit runs nothing', async () => {
    const sad = await label(admin.accountId, 'Unhappy');
    const id = await ticket(admin.accountId, {
      title: 'Slow one',
      ticket_number: 700_000 + Math.floor(Math.random() * 9_000),
    });
    const warned = await rule({ event: 'sla_warning', actions: [{ type: 'priority', priority: 'H' }] });
    const breached = await rule({
      event: 'sla_breach',
      conditions: [{ field: 'text', contains: 'slow' }],
      actions: [{ type: 'notify', users: [admin.username], text: 'SLA breached' }],
    });
    const rated = await rule({
      event: 'csat_received',
      conditions: [{ field: 'rating', at_most: 2 }],
      actions: [
        { type: 'add_labels', labels: [sad] },
        { type: 'note', text: 'Low rating: call back' },
      ],
    });
    await append(SLA_WARNED, { id, target: 'first_reply' });
    await append(SLA_BREACHED, { id, target: 'first_reply' });
    await append(TICKET_RATED, { id, rating: 5 });
    await append(TICKET_RATED, { id, rating: 1 });
    await waitFor(async () => (await runsOf(rated)).length === 1, 'the rating run');
    await settled();
    expect((await runsOf(warned)).map((r) => r.event)).toEqual(['sla_warning']);
    expect((await runsOf(breached)).map((r) => JSON.parse(r.did))).toEqual([['Notify users: 1']]);
    const [run] = await runsOf(rated);
    expect(JSON.parse(run!.matched)).toEqual(['CSAT rating at most 2']);
    const t = await ticketRow(id);
    expect(t.priority).toBe('H');
    expect(JSON.parse(t.label)).toEqual([sad]);
  });

  it('AUTOMATION department and priority conditions; remove labels, a shared canned reply and automatic assignment (least loaded) among the department', async () => {
    const { department } = accountRows(db, () => ({ channel: 'MANUAL' }));
    const tier2 = await department(admin.accountId, 'Tier 2');
    const waiting = await label(admin.accountId, 'Waiting');
    await db()
      .updateTable('users')
      .set({ status: 'ONLINE', second_status: '', departments: JSON.stringify([tier2]) })
      .where('id', '=', agent.id)
      .execute();
    const canned = await db()
      .insertInto('canned_replies')
      .values({
        account_id: admin.accountId,
        owner_id: 0,
        title: 'Escalated',
        shortcut: 'esc',
        shortcut_lower: 'esc',
        body: 'We moved your case to {{agent.name}}.',
        channels: '[]',
        created_by: admin.userId,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const n = () => 710_000 + Math.floor(Math.random() * 9_000);
    const inTier2 = await ticket(admin.accountId, {
      title: 'Low one',
      ticket_number: n(),
      department_id: tier2,
      priority: 'L',
      label: JSON.stringify([waiting]),
    });
    const elsewhere = await ticket(admin.accountId, { title: 'Low too', ticket_number: n(), priority: 'L' });
    const ruleId = await rule({
      event: 'sla_breach',
      conditions: [
        { field: 'department', in: [tier2] },
        { field: 'priority', in: ['L'] },
      ],
      actions: [
        { type: 'remove_labels', labels: [waiting] },
        { type: 'auto_assign', strategy: 'least_loaded' },
        { type: 'canned_reply', reply_id: Number(canned.id) },
      ],
    });
    await append(SLA_BREACHED, { id: elsewhere, target: 'resolution' });
    await append(SLA_BREACHED, { id: inTier2, target: 'resolution' });
    await waitFor(async () => (await runsOf(ruleId)).length === 1, 'the run');
    await settled();
    const runs = await runsOf(ruleId);
    expect(runs.map((r) => Number(r.ticket_id))).toEqual([inTier2]);
    expect(JSON.parse(runs[0]!.did)).toEqual([
      'Remove labels',
      `Assign automatically: ${agent.username}`,
      // The canned reply goes out as a reply (the macros' code), and is logged so.
      'Send a reply',
    ]);
    const t = await ticketRow(inTier2);
    expect(JSON.parse(t.label)).toEqual([]);
    expect(t.assignee).toBe(agent.username);
    const sent = await db().selectFrom('messages').select('message').where('ticket_id', '=', inTier2).execute();
    expect(sent.map((m) => m.message)).toContain(`We moved your case to ${admin.name}.`);
  });

  it('AUTOMATION business hours set: a ticket made outside them runs the "outside" rule and not the "inside" one', async () => {
    // Open only for half an hour, three hours from now, every day: now is outside.
    const h = (new Date().getUTCHours() + 3) % 24;
    const open = [{ start: `${String(h).padStart(2, '0')}:00`, end: `${String(h).padStart(2, '0')}:30` }];
    const set = await call('POST', '/api/sla/business_hours', {
      token: admin.token,
      body: { departmentId: null, timezone: 'UTC', days: Array.from({ length: 7 }, () => open) },
    });
    expect(set.status, set.text).toBe(200);
    try {
      const when = (within: boolean) =>
        rule({
          event: 'ticket_created',
          conditions: [
            { field: 'customer', attribute: 'email', op: 'contains', value: '@night.example' },
            { field: 'business_hours', within },
          ],
          actions: [{ type: 'priority', priority: within ? 'L' : 'H' }],
        });
      const inside = await when(true);
      const outside = await when(false);
      const made = await call('POST', '/api/ticket/create', {
        token: admin.token,
        body: { title: 'After hours', name: 'Nia', email: 'nia@night.example', phone: '' },
      });
      expect(made.status, made.text).toBe(200);
      await waitFor(async () => (await runsOf(outside)).length === 1, 'the outside-hours run');
      await settled();
      expect(await runsOf(inside)).toEqual([]);
      expect(JSON.parse((await runsOf(outside))[0]!.matched)).toContain('Outside business hours');
      expect((await ticketRow(made.body.data.id)).priority).toBe('H');
    } finally {
      // The account's hours cannot be removed, only set: open around the clock, as the other tests assume.
      const allDay = [{ start: '00:00', end: '24:00' }];
      const off = await call('POST', '/api/sla/business_hours', {
        token: admin.token,
        body: { departmentId: null, timezone: 'UTC', days: Array.from({ length: 7 }, () => allDay) },
      });
      expect(off.status, off.text).toBe(200);
    }
  });

  it('AUTOMATION automatic assignment by round robin: two breaches in a department go to its two agents in turn', async () => {
    const { department } = accountRows(db, () => ({ channel: 'MANUAL' }));
    const round = await department(admin.accountId, 'Round');
    const pair = [];
    for (const name of ['Cy', 'Di']) {
      const u = await addUserVia(call, admin.token, {
        username: `${name.toLowerCase()}-${uniq()}`,
        type: 'agent',
        name,
      });
      await db()
        .updateTable('users')
        .set({ status: 'ONLINE', second_status: '', departments: JSON.stringify([round]) })
        .where('id', '=', u.id)
        .execute();
      pair.push(u.username);
    }
    const n = () => 720_000 + Math.floor(Math.random() * 9_000);
    const first = await ticket(admin.accountId, { title: 'One', ticket_number: n(), department_id: round });
    const second = await ticket(admin.accountId, { title: 'Two', ticket_number: n(), department_id: round });
    const ruleId = await rule({
      event: 'sla_breach',
      conditions: [{ field: 'department', in: [round] }],
      actions: [{ type: 'auto_assign', strategy: 'round_robin' }],
    });
    await append(SLA_BREACHED, { id: first, target: 'resolution' });
    await waitFor(async () => (await runsOf(ruleId)).length === 1, 'the first run');
    await append(SLA_BREACHED, { id: second, target: 'resolution' });
    await waitFor(async () => (await runsOf(ruleId)).length === 2, 'the second run');
    await settled();
    const assignees = [(await ticketRow(first)).assignee, (await ticketRow(second)).assignee];
    expect([...assignees].sort()).toEqual([...pair].sort());
  });
});
