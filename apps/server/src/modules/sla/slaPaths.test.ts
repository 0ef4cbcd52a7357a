import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules, createParley, type Parley } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { waitFor } from '../../testing/sockets.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { postMessage } from '../messages/index.js';

const S = 1000;

/**
 * The SLA engine fed by the real write paths: a customer message stored by `postMessage` (the one write path
 * of every channel) and a label saved through `/api/label/update` reach the timers through the relay's
 * listeners. The scheduler is stopped, so nothing else (the check's own scan) can have made the timer rows;
 * the test drives the check with an injected clock.
 */
describe.each(dialects)('SLA through the real paths (%s)', (dialect) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let node: Parley;
  let call: Call;
  let a: SignedUp;
  let numbers = 0;
  /** The injected clock: the real time until a test sets it. */
  let now = 0;
  const users: Record<string, { id: number; username: string }> = {};
  const db = () => node.handle.db;

  const addLabel = async (name: string, sla: number) => {
    const r = await call('POST', '/api/label/update', {
      token: a.token,
      body: { labelArray: [{ name, color: '#FF0000', colorDark: '#ff8080', level: 1, sla }], delete: [] },
    });
    expect(r.status, r.text).toBe(200);
    return (r.body.data as { id: number; name: string }[]).find((l) => l.name === name)!;
  };
  /** A ticket carrying the label, unassigned and without a department, on which nobody waits yet. */
  const ticket = async (labelId: number) => {
    const n = ++numbers;
    const r = await db()
      .insertInto('tickets')
      .values({
        account_id: a.accountId,
        ticket_number: 2000 + n,
        title: `Waiting ${n}`,
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: JSON.stringify([labelId]),
        department_id: null,
        assignee: '',
        name: 'C',
        email: 'c@example.net',
        phone: '',
        created_at: Date.now(),
        updated_at: Date.now(),
        last_message_at: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: Number(r.id), number: 2000 + n };
  };
  /** The customer writes: the stored message's time. */
  const customerWrites = async (ticketId: number) => {
    const m = await runCommand(db(), (trx) =>
      postMessage(trx, conversationRules(), {
        accountId: a.accountId,
        ticketId,
        sender: 'c@example.net',
        senderName: 'Cora Customer',
        type: 'text',
        message: 'Is anybody there?',
        fromCustomer: true,
      }),
    );
    const row = await db().selectFrom('messages').select('created_at').where('id', '=', m.id).executeTakeFirstOrThrow();
    return Number(row.created_at);
  };
  const timer = (ticketId: number) =>
    db().selectFrom('sla_timers').selectAll().where('ticket_id', '=', ticketId).executeTakeFirst();
  const alerted = async (ticketNumber: number) =>
    (
      await db()
        .selectFrom('notifications')
        .select(['type', 'user_id'])
        .where('account_id', '=', a.accountId)
        .where('category', '=', 'sla')
        .where('ticket_number', '=', ticketNumber)
        .orderBy('user_id')
        .execute()
    ).map((r) => `${r.type}:${Number(r.user_id)}`);

  beforeAll(async () => {
    fresh = await freshDatabase(dialect);
    node = await createParley(testConfig(fresh.env), {
      logger: pino({ level: 'silent' }),
      clock: () => now || Date.now(),
    });
    call = apiClient(`http://127.0.0.1:${await node.listen()}`);
    // The relay runs; the scheduler does not: the test calls the check itself.
    await node.scheduler.stop();
    a = await signUpVia(call);
    const dep = await call('POST', '/api/departments', { token: a.token, body: { name: 'Billing' } });
    expect(dep.status, dep.text).toBe(200);
    for (const [key, type] of [
      ['agent', 'agent'],
      ['billing', 'agent'],
      ['supervisor', 'supervisor'],
      ['gone', 'agent'],
    ] as const)
      users[key] = await addUserVia(call, a.token, { username: `sla-${key}-${uniq()}`, type });
    const patch = (id: number, body: unknown) => call('PATCH', `/api/users/${id}`, { token: a.token, body });
    expect((await patch(users.billing!.id, { departments: [dep.body.data.id] })).status).toBe(200);
    expect((await patch(users.gone!.id, { active: false })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await node?.close();
    await fresh?.drop();
  });

  it('SLA LABEL-03 a customer message reaches the timer through the relay; the clock then yields the warning and the violation to every active agent and the admins', async () => {
    now = 0;
    const label = await addLabel('One minute', 1);
    const t = await ticket(label.id);
    const at = await customerWrites(t.id);
    // `ticket.updated` of the message, delivered by the relay to the SLA listener, starts the wait.
    await waitFor(async () => Boolean(await timer(t.id)), 'the timer row from the relay');
    const row = (await timer(t.id))!;
    expect(Number(row.started_at)).toBe(at);
    expect(Number(row.warn_at)).toBe(at + 48 * S);
    expect(Number(row.due_at)).toBe(at + 60 * S);
    expect(Number(row.next_at)).toBe(at + 48 * S);

    now = at + 47 * S;
    await node.sla.check();
    expect(await alerted(t.number)).toEqual([]);
    now = at + 48 * S;
    await node.sla.check();
    // Unassigned and without a department: every active non-admin user (whatever their departments) and the
    // admin; the deactivated agent is left out.
    const everyone = [a.userId, users.agent!.id, users.billing!.id, users.supervisor!.id].sort((x, y) => x - y);
    expect(await alerted(t.number)).toEqual(everyone.map((id) => `warning:${id}`));
    now = at + 60 * S;
    await node.sla.check();
    await node.sla.check();
    expect((await alerted(t.number)).filter((x) => x.startsWith('violation'))).toEqual(
      everyone.map((id) => `violation:${id}`),
    );
  });

  it('SLA LABEL-03 changing the SLA minutes of a label re-times an open timer through the relay', async () => {
    now = 0;
    const label = await addLabel('Ten then', 1);
    const t = await ticket(label.id);
    const at = await customerWrites(t.id);
    await waitFor(async () => Number((await timer(t.id))?.due_at) === at + 60 * S, 'the 1-minute timer');

    const r = await call('POST', '/api/label/update', {
      token: a.token,
      body: { labelArray: [{ ...label, color: '#FF0000', colorDark: '#ff8080', level: 1, sla: 10 }], delete: [] },
    });
    expect(r.status, r.text).toBe(200);
    // `labels.updated`, delivered by the relay to the SLA labels listener, moves the running wait's times.
    await waitFor(async () => Number((await timer(t.id))?.sla_minutes) === 10, 'the re-timed timer');
    const row = (await timer(t.id))!;
    expect(Number(row.started_at)).toBe(at);
    expect(Number(row.warn_at)).toBe(at + 480 * S);
    expect(Number(row.due_at)).toBe(at + 600 * S);
    expect(Number(row.next_at)).toBe(at + 480 * S);

    // The old times raise nothing; the new warning time does.
    now = at + 5 * 60 * S;
    await node.sla.check();
    expect(await alerted(t.number)).toEqual([]);
    now = at + 480 * S;
    await node.sla.check();
    expect((await alerted(t.number)).every((x) => x.startsWith('warning:'))).toBe(true);
    expect(await alerted(t.number)).toHaveLength(4);
  });
});
