import { TicketLoadAnswer, type WeekSchedule } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules, createParley, type Parley } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { waitFor } from '../../testing/sockets.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { postMessage } from '../messages/index.js';
import { syncSlaTimer } from './timers.js';

const utc = (s: string) => Date.parse(`${s}Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);
const nineToSix = [{ start: '09:00', end: '18:00' }];
const weekdays: WeekSchedule = [[], nineToSix, nineToSix, nineToSix, nineToSix, nineToSix, []];
/** Friday 2026-11-27 17:55 UTC. */
const FRIDAY_1755 = utc('2026-11-27T17:55');

/**
 * SLA policies, business hours and holidays: the engine (scheduler stopped, the check driven with an injected
 * clock, the relay running), the ticket's SLA answer, the settings routes with bad input, and "Replied" and
 * the SLA reading one fact. On SQLite, and on Postgres when TEST_DATABASE_URL is set.
 */
describe.each(dialects)('SLA policies and business hours (%s)', (dialect) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let node: Parley;
  let call: Call;
  let a: SignedUp;
  let numbers = 0;
  let now = 0;
  let labelId = 0;
  const db = () => node.handle.db;

  const post = async (path: string, body: unknown, token = a.token) => call('POST', path, { token, body });
  const ok = async (path: string, body: unknown) => {
    const r = await post(path, body);
    expect(r.status, r.text).toBe(200);
    return r;
  };
  /** A ticket whose customer wrote at `at` (as the write path leaves it: waiting, not responded). */
  const ticket = async (o: { priority?: string; at: number; label?: number[] }) => {
    const top = await db()
      .selectFrom('tickets')
      .select((eb) => eb.fn.max('ticket_number').as('n'))
      .where('account_id', '=', a.accountId)
      .executeTakeFirst();
    const n = Math.max(++numbers, Number(top?.n ?? 0) + 1);
    const r = await db()
      .insertInto('tickets')
      .values({
        account_id: a.accountId,
        ticket_number: n,
        title: `Policy ${n}`,
        channel: 'EMAIL',
        closed: 0,
        priority: o.priority ?? 'H',
        label: JSON.stringify(o.label ?? []),
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
  const timer = (ticketId: number) =>
    db().selectFrom('sla_timers').selectAll().where('ticket_id', '=', ticketId).executeTakeFirst();
  const alerts = async (ticketNumber: number) =>
    (
      await db()
        .selectFrom('notifications')
        .select('type')
        .where('account_id', '=', a.accountId)
        .where('category', '=', 'sla')
        .where('ticket_number', '=', ticketNumber)
        .where('user_id', '=', a.userId)
        .orderBy('id')
        .execute()
    ).map((r) => r.type);
  const counts = async () =>
    Promise.all(
      (['business_hours', 'holidays', 'sla_policies'] as const).map(async (t) =>
        Number(
          (
            await db()
              .selectFrom(t)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ),
    );

  beforeAll(async () => {
    fresh = await freshDatabase(dialect);
    node = await createParley(testConfig(fresh.env), {
      logger: pino({ level: 'silent' }),
      clock: () => now || Date.now(),
    });
    call = apiClient(`http://127.0.0.1:${await node.listen()}`);
    await node.scheduler.stop();
    a = await signUpVia(call);
    const l = await ok('/api/label/update', {
      labelArray: [{ name: 'Urgent', color: '#FF0000', colorDark: '#ff8080', level: 1, sla: 7 }],
      delete: [],
    });
    labelId = (l.body.data as { id: number; name: string }[]).find((x) => x.name === 'Urgent')!.id;
    await ok('/api/sla/business_hours', { departmentId: null, timezone: 'UTC', days: weekdays });
    await ok('/api/sla/policies', {
      policies: [
        {
          name: 'High priority',
          priority: 'H',
          channel: null,
          labelId: null,
          departmentId: null,
          firstResponse: 60,
          nextResponse: 30,
          resolution: 8 * 60,
          calendar: false,
        },
        {
          name: 'Chat, calendar time',
          priority: null,
          channel: 'LIVECHAT',
          labelId: null,
          departmentId: null,
          firstResponse: 10,
          nextResponse: null,
          resolution: null,
          calendar: true,
        },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await node?.close();
    await fresh?.drop();
  });

  it('SLA policy: Friday 17:55 with a 1-hour first response in Mon-Fri 09:00-18:00 is due Monday 09:55; warning and violation follow the clock', async () => {
    now = FRIDAY_1755 + 60_000;
    const t = await ticket({ at: FRIDAY_1755 });
    await node.sla.check();
    const row = (await timer(t.id))!;
    expect(iso(Number(row.due_at))).toBe('2026-11-30T09:55');
    // The warning at 80 % of the business time: 48 minutes, 5 on Friday and 43 on Monday.
    expect(iso(Number(row.warn_at))).toBe('2026-11-30T09:43');
    expect(Number(row.sla_minutes)).toBe(60);
    // Saturday: nothing is due yet.
    now = utc('2026-11-28T12:00');
    expect(await node.sla.check()).toMatchObject({ warnings: 0, violations: 0 });
    const sla = await call('GET', `/api/sla/ticket/${t.id}`, { token: a.token });
    expect(sla.status, sla.text).toBe(200);
    expect(sla.body.data.policy.name).toBe('High priority');
    expect(sla.body.data.firstResponse).toEqual({ dueAt: utc('2026-11-30T09:55'), state: 'running' });
    // Resolution: 8 business hours from Friday 17:55, 5 minutes on Friday then Monday until 16:55.
    expect(sla.body.data.resolution).toEqual({ dueAt: utc('2026-11-30T16:55'), state: 'running' });
    expect(sla.body.data.nextResponse).toBeNull();
    now = utc('2026-11-30T09:44');
    await node.sla.check();
    expect(await alerts(t.number)).toEqual(['warning']);
    now = utc('2026-11-30T09:56');
    await node.sla.check();
    expect(await alerts(t.number)).toEqual(['warning', 'violation']);
    const late = await call('GET', `/api/sla/ticket/${t.id}`, { token: a.token });
    expect(late.body.data.firstResponse.state).toBe('breached');
  });

  it('SLA policy: a holiday on that Monday moves it to Tuesday 09:55 (the settings change re-times the wait)', async () => {
    const friday = FRIDAY_1755 + 7 * 86_400_000; // 2026-12-04
    now = friday + 60_000;
    const t = await ticket({ at: friday });
    await node.sla.check();
    expect(iso(Number((await timer(t.id))!.due_at))).toBe('2026-12-07T09:55');
    await ok('/api/sla/holidays', { departmentId: null, holidays: [{ date: '2026-12-07', name: 'Closed' }] });
    // The relay's listener re-times the running timer from sla.settings_updated.
    await waitFor(
      async () => iso(Number((await timer(t.id))!.due_at)) === '2026-12-08T09:55',
      'the timer re-timed by the holiday',
    );
    await ok('/api/sla/holidays', { departmentId: null, holidays: [] });
  });

  it('SLA policy: next response after the first reply; calendar-time policies; no matching policy keeps the label SLA', async () => {
    const monday = utc('2026-12-14T10:00');
    now = monday;
    const t = await ticket({ at: monday });
    await message(t.id, a.username, monday + 5 * 60_000);
    await node.sla.check();
    expect((await timer(t.id))?.next_at ?? null).toBeNull();
    // The customer writes again: the next response (30 min) runs.
    await message(t.id, 'visitor', monday + 20 * 60_000);
    now = monday + 21 * 60_000;
    await node.sla.check();
    const row = (await timer(t.id))!;
    expect(Number(row.sla_minutes)).toBe(30);
    expect(Number(row.due_at)).toBe(monday + 50 * 60_000);
    const sla = (await call('GET', `/api/sla/ticket/${t.id}`, { token: a.token })).body.data;
    expect(sla.firstResponse).toEqual({ dueAt: monday + 60 * 60_000, state: 'met' });
    expect(sla.nextResponse).toEqual({ dueAt: monday + 50 * 60_000, state: 'running' });

    // A live chat on a Saturday night: the calendar-time policy counts 10 minutes straight.
    const saturday = utc('2026-12-19T23:00');
    now = saturday;
    const chat = await ticket({ at: saturday, priority: 'L' });
    await db().updateTable('tickets').set({ channel: 'LIVECHAT' }).where('id', '=', chat.id).execute();
    await node.sla.check();
    expect(Number((await timer(chat.id))!.due_at)).toBe(saturday + 10 * 60_000);

    // Low priority e-mail: no policy matches, so the label's 7 minutes apply as before policies.
    const plain = await ticket({ at: saturday, priority: 'L', label: [labelId] });
    await node.sla.check();
    const old = (await timer(plain.id))!;
    expect(Number(old.label_id)).toBe(labelId);
    expect(Number(old.due_at)).toBe(saturday + 7 * 60_000);
    const none = (await call('GET', `/api/sla/ticket/${plain.id}`, { token: a.token })).body.data;
    expect(none).toEqual({ policy: null, firstResponse: null, nextResponse: null, resolution: null });
  });

  it('SLA "Replied" and the SLA timer read one fact: a customer writing after an agent reply is not Replied and the timer runs', async () => {
    now = 0; // real time: the messages are stored by the real write path
    const r = await call('POST', '/api/ticket/create', { token: a.token, body: { title: `Replied ${uniq()}` } });
    expect(r.status, r.text).toBe(200);
    const id = Number(r.body.data?.id ?? r.body.id);
    await db().updateTable('tickets').set({ priority: 'H' }).where('id', '=', id).execute();
    const write = (fromCustomer: boolean) =>
      runCommand(db(), (trx) =>
        postMessage(trx, conversationRules(), {
          accountId: a.accountId,
          ticketId: id,
          sender: fromCustomer ? 'c@example.net' : a.username,
          senderName: fromCustomer ? 'Cora' : 'Admin',
          type: 'text',
          message: fromCustomer ? 'Hello?' : 'Hi!',
          fromCustomer,
        }),
      );
    const item = async () =>
      TicketLoadAnswer.parse((await call('GET', '/ticket/load/me/all/ticket/0', { token: a.token })).body).data.find(
        (x) => x.id === id,
      )!;
    const running = async () => {
      const t = await timer(id);
      return !!t && t.next_at !== null;
    };
    await write(true);
    await waitFor(running, 'the first wait');
    expect((await item()).hasResponded).toBe(false);
    await write(false);
    await waitFor(async () => !(await running()), 'the reply ends the wait');
    expect((await item()).hasResponded).toBe(true);
    await write(true);
    await waitFor(running, 'the next wait');
    expect((await item()).hasResponded).toBe(false);
    const sla = (await call('GET', `/api/sla/ticket/${id}`, { token: a.token })).body.data;
    expect(sla.nextResponse.state).toBe('running');
  });

  it('SLA settings: bad input is a clear 400 and saves nothing; agents may not; another account is refused', async () => {
    const before = await counts();
    const mon = (i: { start: string; end: string }[]): WeekSchedule => [[], i, [], [], [], [], []];
    const policy = {
      name: 'P',
      priority: null,
      channel: null,
      labelId: null,
      departmentId: null,
      firstResponse: 60,
      nextResponse: null,
      resolution: null,
      calendar: false,
    };
    const cases: [string, unknown, string][] = [
      [
        '/api/sla/business_hours',
        { departmentId: null, timezone: 'UTC', days: mon([{ start: '18:00', end: '09:00' }]) },
        'Monday: the end (09:00) must be after the start (18:00).',
      ],
      [
        '/api/sla/business_hours',
        {
          departmentId: null,
          timezone: 'UTC',
          days: mon([
            { start: '09:00', end: '13:00' },
            { start: '12:00', end: '18:00' },
          ]),
        },
        'Monday: 09:00-13:00 overlaps 12:00-18:00.',
      ],
      [
        '/api/sla/business_hours',
        { departmentId: null, timezone: 'Mars/Olympus', days: weekdays },
        '"Mars/Olympus" is not a known time zone (use an IANA name such as Europe/Berlin).',
      ],
      [
        '/api/sla/business_hours',
        { departmentId: null, timezone: 'UTC', days: mon([{ start: '9am', end: '18:00' }]) },
        '"9am" is not a time of day (HH:MM, 00:00 to 24:00).',
      ],
      ['/api/sla/business_hours', { departmentId: null, timezone: 'UTC', days: [[]] }, ''],
      ['/api/sla/business_hours', { departmentId: 987654, timezone: 'UTC', days: weekdays }, 'No such department.'],
      [
        '/api/sla/holidays',
        { departmentId: null, holidays: [{ date: '2026-02-30', name: 'x' }] },
        '"2026-02-30" is not a date (YYYY-MM-DD).',
      ],
      [
        '/api/sla/holidays',
        {
          departmentId: null,
          holidays: [
            { date: '2026-12-24', name: 'a' },
            { date: '2026-12-24', name: 'b' },
          ],
        },
        '2026-12-24 is listed twice.',
      ],
      ['/api/sla/holidays', { departmentId: null, holidays: [{ date: '24.12.2026', name: 'x' }] }, ''],
      ['/api/sla/policies', { policies: [{ ...policy, firstResponse: null }] }, 'Give the policy at least one target.'],
      ['/api/sla/policies', { policies: [{ ...policy, firstResponse: -5 }] }, ''],
      ['/api/sla/policies', { policies: [{ ...policy, name: ' ' }] }, 'Give the policy a name.'],
      ['/api/sla/policies', { policies: [{ ...policy, priority: 'X' }] }, ''],
      ['/api/sla/policies', { policies: [{ ...policy, labelId: 987654 }] }, 'No such label.'],
      ['/api/sla/policies', { policies: [{ ...policy, departmentId: 987654 }] }, 'No such department.'],
      ['/api/sla/policies', { policies: [{ ...policy, extra: 1 }] }, ''],
      ['/api/sla/business_hours/delete', { departmentId: 987654 }, 'No such department.'],
      ['/api/sla/business_hours/delete', { departmentId: 'x' }, ''],
    ];
    for (const [path, body, text] of cases) {
      const r = await post(path, body);
      const what = `${path} ${JSON.stringify(body).slice(0, 120)} -> ${r.status} ${r.text.slice(0, 200)}`;
      expect(r.status, what).toBe(400);
      expect(r.body.result, what).toBe('failed');
      expect(r.body.description, what).toBeTruthy();
      if (text) expect(r.body.description, what).toBe(text);
    }
    expect((await call('GET', '/api/sla/ticket/abc', { token: a.token })).status).toBe(400);
    expect((await call('GET', '/api/sla/ticket/987654321', { token: a.token })).status).toBe(404);
    // Another account (B) naming A's department, label and ticket.
    const b = await signUpVia(call);
    const aDept = (await ok('/api/departments', { name: `A dept ${uniq()}` })).body.data.id as number;
    const before2 = await counts();
    for (const [path, body] of [
      ['/api/sla/business_hours', { departmentId: aDept, timezone: 'UTC', days: weekdays }],
      ['/api/sla/holidays', { departmentId: aDept, holidays: [] }],
      ['/api/sla/business_hours/delete', { departmentId: aDept }],
      ['/api/sla/policies', { policies: [{ ...policy, departmentId: aDept }] }],
      ['/api/sla/policies', { policies: [{ ...policy, labelId }] }],
    ] as const) {
      const r = await post(path, body, b.token);
      expect(r.status, `${path} ${r.text}`).toBe(400);
    }
    const aTicket = await ticket({ at: Date.now() });
    expect((await call('GET', `/api/sla/ticket/${aTicket.id}`, { token: b.token })).status).toBe(404);
    expect((await call('GET', '/api/sla/settings', { token: b.token })).body.data).toEqual({
      businessHours: [],
      holidays: [],
      policies: [],
    });
    // Agents read a ticket's SLA but not the settings.
    const agent = await addUserVia(call, a.token, { username: `sla-pol-${uniq()}`, type: 'agent' });
    expect((await call('GET', '/api/sla/settings', { token: agent.token })).status).toBe(403);
    expect(
      (await post('/api/sla/business_hours', { departmentId: null, timezone: 'UTC', days: weekdays }, agent.token))
        .status,
    ).toBe(403);
    expect((await call('GET', `/api/sla/ticket/${aTicket.id}`, { token: agent.token })).status).toBe(200);
    expect(await counts()).toEqual(before2);
    expect(before2).toEqual(before);
  });

  it('SLA settings: a department has its own hours (overriding the account) and holidays; removing them goes back', async () => {
    const dep = await ok('/api/departments', { name: `Night ${uniq()}` });
    const depId = dep.body.data.id as number;
    const nights: WeekSchedule = Array.from({ length: 7 }, () => [{ start: '20:00', end: '24:00' }]);
    const saved = await ok('/api/sla/business_hours', { departmentId: depId, timezone: 'Asia/Tokyo', days: nights });
    expect(saved.body.description).toBe('Saved.');
    await ok('/api/sla/holidays', { departmentId: depId, holidays: [{ date: '2026-12-31', name: 'Eve' }] });
    const s = (await call('GET', '/api/sla/settings', { token: a.token })).body.data;
    expect(s.businessHours).toEqual([
      { departmentId: null, timezone: 'UTC', days: weekdays },
      { departmentId: depId, timezone: 'Asia/Tokyo', days: nights },
    ]);
    expect(s.holidays).toEqual([{ departmentId: depId, holidays: [{ date: '2026-12-31', name: 'Eve' }] }]);
    expect(s.policies.map((p: { name: string }) => p.name)).toEqual(['High priority', 'Chat, calendar time']);
    // A high-priority ticket of the department at 10:00 UTC (19:00 Tokyo) is due at 21:00 Tokyo = 12:00 UTC.
    const at = utc('2026-12-15T10:00');
    now = at;
    const t = await ticket({ at });
    await db().updateTable('tickets').set({ department_id: depId }).where('id', '=', t.id).execute();
    await node.sla.check();
    // The scan found it before the department was set; a ticket update (here the sync itself) re-times it.
    await runCommand(db(), (trx) => syncSlaTimer(trx, a.accountId, t.id, at));
    expect(iso(Number((await timer(t.id))!.due_at))).toBe('2026-12-15T12:00');
    await ok('/api/sla/business_hours/delete', { departmentId: depId });
    await waitFor(
      async () => iso(Number((await timer(t.id))!.due_at)) === '2026-12-15T11:00',
      'back to the account hours',
    );
  });
  it("SLA policy chosen by one of the ticket's labels and by its department; the department's holiday moves its due time", async () => {
    const dep = await ok('/api/departments', { name: `Billing ${uniq()}` });
    const depId = dep.body.data.id as number;
    const before = (await call('GET', '/api/sla/settings', { token: a.token })).body.data.policies;
    const policy = (o: { name: string; labelId?: number; departmentId?: number; firstResponse: number }) => ({
      priority: null,
      channel: null,
      labelId: null,
      departmentId: null,
      nextResponse: null,
      resolution: null,
      calendar: false,
      ...o,
    });
    await ok('/api/sla/policies', {
      policies: [
        policy({ name: 'Urgent label', labelId, firstResponse: 120 }),
        policy({ name: 'Billing department', departmentId: depId, firstResponse: 240 }),
      ],
    });
    const monday = utc('2026-12-21T10:00');
    now = monday;
    const labelled = await ticket({ at: monday, priority: 'L', label: [labelId] });
    const billing = await ticket({ at: monday, priority: 'L' });
    await db().updateTable('tickets').set({ department_id: depId }).where('id', '=', billing.id).execute();
    const plain = await ticket({ at: monday, priority: 'L' });
    await runCommand(db(), (trx) => syncSlaTimer(trx, a.accountId, billing.id, monday));
    await node.sla.check();
    const policyOf = async (id: number) => (await call('GET', `/api/sla/ticket/${id}`, { token: a.token })).body.data;
    expect((await policyOf(labelled.id)).policy.name).toBe('Urgent label');
    expect(iso(Number((await timer(labelled.id))!.due_at))).toBe('2026-12-21T12:00');
    expect((await policyOf(billing.id)).policy.name).toBe('Billing department');
    expect(iso(Number((await timer(billing.id))!.due_at))).toBe('2026-12-21T14:00');
    // Neither label nor department: no policy.
    expect((await policyOf(plain.id)).policy).toBeNull();
    // The department closes that Monday: its ticket's four business hours run from Tuesday 09:00; the
    // label's ticket (no department) keeps the account's hours.
    await ok('/api/sla/holidays', { departmentId: depId, holidays: [{ date: '2026-12-21', name: 'Stocktake' }] });
    await waitFor(
      async () => iso(Number((await timer(billing.id))!.due_at)) === '2026-12-22T13:00',
      "the department's ticket re-timed by its holiday",
    );
    expect(iso(Number((await timer(labelled.id))!.due_at))).toBe('2026-12-21T12:00');
    await ok('/api/sla/holidays', { departmentId: depId, holidays: [] });
    await ok('/api/sla/policies', { policies: before.map(({ id: _id, ...p }: { id: number }) => p) });
  });
});
