import { TICKET_STATUS, type WeekSchedule } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParley, type Parley } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { waitFor } from '../../testing/sockets.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { syncSlaTimer } from './timers.js';

const utc = (s: string) => Date.parse(`${s}Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);
const nineToSix = [{ start: '09:00', end: '18:00' }];
const weekdays: WeekSchedule = [[], nineToSix, nineToSix, nineToSix, nineToSix, nineToSix, []];

/**
 * The resolution target's timer (warning and violation once, from creation until Resolved or Closed, restarted
 * from creation when reopened), Pending pausing both timers, breaches naming their target and the alert texts
 * counting business minutes. Business hours Mon-Fri 09:00-18:00 UTC; the engine is driven with an injected clock
 * (scheduler stopped), status changes synced at the clock's time. On SQLite, and on Postgres when
 * TEST_DATABASE_URL is set.
 */
describe.each(dialects)('SLA resolution and Pending (%s)', (dialect) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let node: Parley;
  let call: Call;
  let a: SignedUp;
  let numbers = 0;
  let now = 0;
  const db = () => node.handle.db;

  const ok = async (path: string, body: unknown) => {
    const r = await call('POST', path, { token: a.token, body });
    expect(r.status, r.text).toBe(200);
    return r;
  };
  /** Priority M: only a 600-minute resolution target. Priority L: first response 60, next response 30. */
  const ticket = async (o: { priority: 'M' | 'L'; at: number }) => {
    const n = ++numbers;
    const r = await db()
      .insertInto('tickets')
      .values({
        account_id: a.accountId,
        ticket_number: n,
        title: `Ticket ${n}`,
        channel: 'EMAIL',
        closed: 0,
        priority: o.priority,
        label: '[]',
        department_id: null,
        assignee: '',
        name: 'C',
        email: 'c@example.net',
        phone: '',
        created_at: o.at,
        updated_at: o.at,
        last_message_at: o.at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(r.id);
    await message(id, 'visitor', o.at);
    return { id, number: n };
  };
  const message = async (ticketId: number, sender: string, at: number) => {
    await db()
      .insertInto('messages')
      .values({ account_id: a.accountId, ticket_id: ticketId, type: 'text', message: 'hi', sender, created_at: at })
      .execute();
    const fromCustomer = sender === 'visitor';
    await db()
      .updateTable('tickets')
      .set(fromCustomer ? { has_responded: 0, last_message_at: at } : { has_responded: 1 })
      .where('id', '=', ticketId)
      .execute();
  };
  /** The status as an agent sets it, the ticket's timers synced then (as the relay does on `ticket.updated`). */
  const setStatus = async (ticketId: number, closed: number, at: number) => {
    now = at;
    await db().updateTable('tickets').set({ closed, updated_at: at }).where('id', '=', ticketId).execute();
    await runCommand(db(), (trx) => syncSlaTimer(trx, a.accountId, ticketId, at));
  };
  const checkAt = async (at: number) => {
    now = at;
    return node.sla.check();
  };
  const resolutionTimer = (ticketId: number) =>
    db().selectFrom('sla_resolution_timers').selectAll().where('ticket_id', '=', ticketId).executeTakeFirst();
  const responseTimer = (ticketId: number) =>
    db().selectFrom('sla_timers').selectAll().where('ticket_id', '=', ticketId).executeTakeFirst();
  const alerts = (ticketNumber: number) =>
    db()
      .selectFrom('notifications')
      .select(['type', 'title', 'body'])
      .where('account_id', '=', a.accountId)
      .where('category', '=', 'sla')
      .where('ticket_number', '=', ticketNumber)
      .where('user_id', '=', a.userId)
      .orderBy('id')
      .execute();
  const kinds = async (ticketNumber: number) => (await alerts(ticketNumber)).map((x) => x.type);
  const breaches = async (ticketId: number) =>
    (
      await db()
        .selectFrom('sla_breaches')
        .select(['target', 'waited_from', 'due_at', 'breached_at', 'label_id'])
        .where('ticket_id', '=', ticketId)
        .orderBy('id')
        .execute()
    ).map((b) => ({
      target: b.target,
      waitedFrom: Number(b.waited_from),
      dueAt: Number(b.due_at),
      breachedAt: Number(b.breached_at),
    }));
  const sla = async (ticketId: number) => {
    const r = await call('GET', `/api/sla/ticket/${ticketId}`, { token: a.token });
    expect(r.status, r.text).toBe(200);
    return r.body.data;
  };
  const policy = {
    name: '',
    priority: null as string | null,
    channel: null,
    labelId: null,
    departmentId: null,
    firstResponse: null as number | null,
    nextResponse: null as number | null,
    resolution: null as number | null,
    calendar: false,
  };
  const policies = [
    { ...policy, name: 'Resolution only', priority: 'M', resolution: 600 },
    { ...policy, name: 'Replies only', priority: 'L', firstResponse: 60, nextResponse: 30 },
    // Tickets created through the API (no priority).
    { ...policy, name: 'Everything else', resolution: 600 },
  ];

  beforeAll(async () => {
    fresh = await freshDatabase(dialect);
    node = await createParley(testConfig(fresh.env), {
      logger: pino({ level: 'silent' }),
      clock: () => now || Date.now(),
    });
    call = apiClient(`http://127.0.0.1:${await node.listen()}`);
    await node.scheduler.stop();
    a = await signUpVia(call);
    await ok('/api/sla/business_hours', { departmentId: null, timezone: 'UTC', days: weekdays });
    await ok('/api/sla/policies', { policies });
  }, 60_000);
  afterAll(async () => {
    await node?.close();
    await fresh?.drop();
  });

  it('SLA resolution: a 600-minute business-hours target warns once at 80 % and is violated once at 100 %; the breach names the resolution; resolving and reopening alerts no more', async () => {
    // Friday 17:00: 60 minutes on Friday, then Monday 09:00-18:00 (540).
    const created = utc('2026-12-04T17:00');
    const t = await ticket({ priority: 'M', at: created });
    await checkAt(created + 60_000);
    const row = (await resolutionTimer(t.id))!;
    expect(iso(Number(row.due_at))).toBe('2026-12-07T18:00');
    expect(iso(Number(row.warn_at))).toBe('2026-12-07T16:00');
    expect(Number(row.started_at)).toBe(created);
    // No response target in this policy: no response timer runs.
    expect((await responseTimer(t.id))?.next_at ?? null).toBeNull();
    await checkAt(utc('2026-12-05T12:00'));
    expect(await kinds(t.number)).toEqual([]);
    await checkAt(utc('2026-12-07T16:01'));
    await checkAt(utc('2026-12-07T16:30'));
    // 481 business minutes (60 on Friday, 421 on Monday), not the 4,021 calendar minutes since Friday 17:00.
    expect(await alerts(t.number)).toEqual([
      {
        type: 'warning',
        title: `Resolution SLA warning: #${t.number}`,
        body: `"Ticket ${t.number}" has waited 481 minutes of its 600 minutes for a resolution.`,
      },
    ]);
    await checkAt(utc('2026-12-07T18:01'));
    await checkAt(utc('2026-12-07T18:30'));
    expect((await alerts(t.number)).slice(1)).toEqual([
      {
        type: 'violation',
        title: `Resolution SLA violated: #${t.number}`,
        body: `"Ticket ${t.number}" has waited more than 600 minutes for a resolution.`,
      },
    ]);
    const breach = {
      target: 'resolution',
      waitedFrom: created,
      dueAt: utc('2026-12-07T18:00'),
      breachedAt: utc('2026-12-07T18:01'),
    };
    expect(await breaches(t.id)).toEqual([breach]);
    const answer = await sla(t.id);
    expect(answer.resolution).toEqual({ dueAt: breach.dueAt, state: 'breached', breachedAt: breach.breachedAt });
    expect(answer.firstResponse).toBeNull();
    expect(answer.breaches).toEqual([{ target: 'resolution', dueAt: breach.dueAt, breachedAt: breach.breachedAt }]);
    // Resolved, then reopened: the same target from the same creation, already alerted.
    await setStatus(t.id, TICKET_STATUS.resolved, utc('2026-12-07T18:40'));
    expect(Number((await resolutionTimer(t.id))!.stopped_at)).toBe(utc('2026-12-07T18:40'));
    await setStatus(t.id, TICKET_STATUS.open, utc('2026-12-08T09:00'));
    await checkAt(utc('2026-12-08T09:01'));
    expect(await kinds(t.number)).toEqual(['warning', 'violation']);
    expect(await breaches(t.id)).toEqual([breach]);
  });

  it('SLA alert text counts business minutes; first and next response breaches are recorded apart', async () => {
    // Friday 17:55 with a 60-minute first response: due Monday 09:55, warned at 09:43.
    const created = utc('2026-12-11T17:55');
    const t = await ticket({ priority: 'L', at: created });
    await checkAt(created + 60_000);
    expect((await responseTimer(t.id))!.target).toBe('first_response');
    await checkAt(utc('2026-12-14T09:44'));
    // 5 minutes on Friday and 44 on Monday (the calendar says 3,829).
    expect((await alerts(t.number)).map((x) => x.body)).toEqual([
      `"Ticket ${t.number}" has waited 49 minutes of its 60 minutes for a reply.`,
    ]);
    expect((await alerts(t.number))[0]!.title).toBe(`SLA warning: #${t.number}`);
    await checkAt(utc('2026-12-14T09:56'));
    // An agent answers late; the customer writes again: the next response (30 minutes) runs and is missed too.
    await message(t.id, a.username, utc('2026-12-14T10:00'));
    await message(t.id, 'visitor', utc('2026-12-14T10:10'));
    await checkAt(utc('2026-12-14T10:11'));
    expect((await responseTimer(t.id))!.target).toBe('next_response');
    await checkAt(utc('2026-12-14T10:41'));
    expect(await kinds(t.number)).toEqual(['warning', 'violation', 'violation']);
    const first = { dueAt: utc('2026-12-14T09:55'), breachedAt: utc('2026-12-14T09:56') };
    const next = { dueAt: utc('2026-12-14T10:40'), breachedAt: utc('2026-12-14T10:41') };
    expect(await breaches(t.id)).toEqual([
      { target: 'first_response', waitedFrom: created, ...first },
      { target: 'next_response', waitedFrom: utc('2026-12-14T10:10'), ...next },
    ]);
    const answer = await sla(t.id);
    expect(answer.firstResponse).toEqual({ ...first, state: 'breached' });
    expect(answer.nextResponse).toEqual({ ...next, state: 'breached' });
    expect(answer.resolution).toBeNull();
    expect(answer.breaches).toEqual([
      { target: 'first_response', ...first },
      { target: 'next_response', ...next },
    ]);
  });

  it('SLA Pending: two business hours Pending (17 calendar hours) move the resolution warning and due time two business hours on', async () => {
    // Monday 09:00 with 600 minutes: due Tuesday 10:00, warned Monday 17:00.
    const created = utc('2026-12-21T09:00');
    const t = await ticket({ priority: 'M', at: created });
    await checkAt(created + 60_000);
    expect(iso(Number((await resolutionTimer(t.id))!.due_at))).toBe('2026-12-22T10:00');
    // Pending from Monday 16:00 to Tuesday 09:00: Monday 16:00-18:00 counts two business hours.
    await setStatus(t.id, TICKET_STATUS.pending, utc('2026-12-21T16:00'));
    await checkAt(utc('2026-12-21T17:30'));
    expect((await sla(t.id)).resolution).toEqual({ dueAt: utc('2026-12-22T10:00'), state: 'paused' });
    expect(await kinds(t.number)).toEqual([]);
    await setStatus(t.id, TICKET_STATUS.open, utc('2026-12-22T09:00'));
    const row = (await resolutionTimer(t.id))!;
    expect(iso(Number(row.due_at))).toBe('2026-12-22T12:00');
    expect(iso(Number(row.warn_at))).toBe('2026-12-22T10:00');
    expect(Number(row.paused_ms)).toBe(2 * 3600_000);
    expect((await sla(t.id)).resolution).toEqual({ dueAt: utc('2026-12-22T12:00'), state: 'running' });
    await checkAt(utc('2026-12-22T09:59'));
    expect(await kinds(t.number)).toEqual([]);
    await checkAt(utc('2026-12-22T10:01'));
    // 601 business minutes since creation, 120 of them Pending.
    expect((await alerts(t.number)).map((x) => x.body)).toEqual([
      `"Ticket ${t.number}" has waited 481 minutes of its 600 minutes for a resolution.`,
    ]);
    await checkAt(utc('2026-12-22T11:59'));
    expect(await kinds(t.number)).toEqual(['warning']);
    await checkAt(utc('2026-12-22T12:01'));
    expect(await kinds(t.number)).toEqual(['warning', 'violation']);
    expect((await breaches(t.id)).map((b) => [b.target, iso(b.dueAt)])).toEqual([['resolution', '2026-12-22T12:00']]);
  });

  it('SLA Pending: set Pending by an agent without replying, the response wait stops and resumes later by the business time spent Pending', async () => {
    // Monday 09:00 with a 60-minute first response: due 10:00.
    const created = utc('2026-12-28T09:00');
    const t = await ticket({ priority: 'L', at: created });
    await checkAt(created + 60_000);
    await setStatus(t.id, TICKET_STATUS.pending, utc('2026-12-28T09:30'));
    expect((await responseTimer(t.id))!.next_at).toBeNull();
    await checkAt(utc('2026-12-28T10:30'));
    expect(await kinds(t.number)).toEqual([]);
    expect((await sla(t.id)).firstResponse).toEqual({ dueAt: utc('2026-12-28T10:00'), state: 'paused' });
    // Back to Open at 11:00: 90 minutes Pending, so due 11:30 and warned at 11:18 (48 counted minutes).
    await setStatus(t.id, TICKET_STATUS.open, utc('2026-12-28T11:00'));
    const row = (await responseTimer(t.id))!;
    expect([iso(Number(row.warn_at)), iso(Number(row.due_at))]).toEqual(['2026-12-28T11:18', '2026-12-28T11:30']);
    await checkAt(utc('2026-12-28T11:19'));
    expect((await alerts(t.number)).map((x) => x.body)).toEqual([
      `"Ticket ${t.number}" has waited 49 minutes of its 60 minutes for a reply.`,
    ]);
    await checkAt(utc('2026-12-28T11:31'));
    expect(await kinds(t.number)).toEqual(['warning', 'violation']);
    expect((await breaches(t.id)).map((b) => [b.target, iso(b.dueAt)])).toEqual([
      ['first_response', '2026-12-28T11:30'],
    ]);
  });

  it('SLA resolution: reopening counts from the creation again; the time it was Resolved counts', async () => {
    // Monday 09:00 with 600 minutes: due Tuesday 10:00, warned Monday 17:00.
    const created = utc('2027-01-04T09:00');
    const t = await ticket({ priority: 'M', at: created });
    await checkAt(created + 60_000);
    await setStatus(t.id, TICKET_STATUS.resolved, utc('2027-01-04T12:00'));
    expect((await sla(t.id)).resolution).toEqual({ dueAt: utc('2027-01-05T10:00'), state: 'met' });
    const stopped = (await resolutionTimer(t.id))!;
    expect([Number(stopped.stopped_at), stopped.next_at]).toEqual([utc('2027-01-04T12:00'), null]);
    await checkAt(utc('2027-01-04T17:30'));
    expect(await kinds(t.number)).toEqual([]);
    // Reopened Tuesday 09:30: still due Tuesday 10:00 (from the creation), and the warning time has passed.
    await setStatus(t.id, TICKET_STATUS.open, utc('2027-01-05T09:30'));
    expect((await sla(t.id)).resolution).toEqual({ dueAt: utc('2027-01-05T10:00'), state: 'running' });
    await checkAt(utc('2027-01-05T09:31'));
    expect(await kinds(t.number)).toEqual(['warning']);
    await checkAt(utc('2027-01-05T10:01'));
    expect(await kinds(t.number)).toEqual(['warning', 'violation']);
    // Closed and reopened once more: nothing is alerted twice.
    await setStatus(t.id, TICKET_STATUS.closed, utc('2027-01-05T10:30'));
    await setStatus(t.id, TICKET_STATUS.open, utc('2027-01-05T11:00'));
    await checkAt(utc('2027-01-05T11:01'));
    expect(await kinds(t.number)).toEqual(['warning', 'violation']);
    expect((await breaches(t.id)).map((b) => b.target)).toEqual(['resolution']);
  });

  it('SLA Pending through the real routes: creating a ticket starts its resolution; the relay pauses and resumes it, Resolved stops it', async () => {
    now = 0; // real time: the relay syncs at the time of the change
    const r = await call('POST', '/api/ticket/create', { token: a.token, body: { title: `Pending ${uniq()}` } });
    expect(r.status, r.text).toBe(200);
    const id = Number(r.body.data?.id ?? r.body.id);
    const timer = async () => (await resolutionTimer(id)) ?? null;
    // No message yet: the creation alone starts the resolution.
    await waitFor(async () => (await timer())?.next_at != null, 'the resolution timer runs');
    const created = await db()
      .selectFrom('tickets')
      .select('created_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number((await timer())!.started_at)).toBe(Number(created.created_at));
    const status = async (s: number) => ok('/api/ticket/status', { id, status: s });
    await status(TICKET_STATUS.pending);
    await waitFor(async () => (await timer())?.paused_at != null, 'Pending pauses it');
    expect((await timer())!.next_at).toBeNull();
    await status(TICKET_STATUS.open);
    await waitFor(async () => (await timer())?.paused_at === null, 'Open resumes it');
    expect((await timer())!.next_at).not.toBeNull();
    await status(TICKET_STATUS.resolved);
    await waitFor(async () => (await timer())?.stopped_at != null, 'Resolved stops it');
    expect((await timer())!.next_at).toBeNull();
  });

  it('SLA policies: a resolution target of 0, below 0 or not whole is a 400 and saves nothing', async () => {
    const before = await call('GET', '/api/sla/settings', { token: a.token });
    for (const resolution of [0, -5, 1.5]) {
      const r = await call('POST', '/api/sla/policies', {
        token: a.token,
        body: { policies: [{ ...policy, name: 'Bad', resolution }] },
      });
      expect(r.status, `${resolution}: ${r.text}`).toBe(400);
      expect(r.body.result).toBe('failed');
      expect(r.body.description).toBeTruthy();
    }
    expect((await call('GET', '/api/sla/settings', { token: a.token })).body).toEqual(before.body);
  });
});
