import { REPORT_STRINGS, type ReportAnswer, reportDayStart } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRows } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const HOUR = 3_600_000;
/** A moment of a UTC day: `at('2025-03-10', 5)` is 05:00 UTC that day. */
const at = (day: string, hours = 12) => reportDayStart(day, 0) + hours * HOUR;

describe.each(dialects)('ticket summary report (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  let a: SignedUp;
  let b: SignedUp;
  let supervisor: { id: number; token: string; username: string };
  let agent: { id: number; token: string; username: string };
  const rows = accountRows(db);
  const report = async (token: string, q: Record<string, string | number>) => {
    const params = new URLSearchParams(
      Object.entries({ type: 'all', status: 'all', ...q }).map(([k, v]) => [k, `${v}`]),
    );
    return call('GET', `/report/generate?${params}`, { token });
  };
  const ok = async (token: string, q: Record<string, string | number>) => {
    const r = await report(token, q);
    expect(r.status, r.text).toBe(200);
    return r.body as ReportAnswer;
  };
  const numbers = (x: ReportAnswer) => Object.values(x.data).flatMap((g) => g.map((t) => t.ticket_number));

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    supervisor = await addUserVia(call, a.token, { username: `sup-${uniq()}`, type: 'supervisor' });
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('REPORT-05 REPORT-11 REPORT-12 groups a page of 30 by created day, newest first; 31 tickets give 30 then 1', async () => {
    const made: number[] = [];
    for (let i = 0; i < 20; i++) made.push(await rows.ticket(a.accountId, { created_at: at('2025-03-10', 1) + i }));
    for (let i = 0; i < 11; i++) made.push(await rows.ticket(a.accountId, { created_at: at('2025-03-11', 1) + i }));
    const first = await ok(supervisor.token, { startDate: '2025-03-10', endDate: '2025-03-11', offset: 0 });
    expect(first.result).toBe('success');
    expect(first.count).toBe(30);
    expect(Object.keys(first.data)).toEqual(['11/3/2025', '10/3/2025']);
    expect(first.data['11/3/2025']).toHaveLength(11);
    expect(first.data['10/3/2025']).toHaveLength(19);
    const created = Object.values(first.data).flatMap((g) => g.map((t) => t.created));
    expect(created).toEqual([...created].sort((x, y) => y - x));
    const second = await ok(supervisor.token, { startDate: '2025-03-10', endDate: '2025-03-11', offset: 30 });
    expect(second.count).toBe(1);
    expect(Object.keys(second.data)).toEqual(['10/3/2025']);
    // The two pages hold every ticket once.
    const ids = [...Object.values(first.data), ...Object.values(second.data)].flat().map((t) => t.id);
    expect(ids.sort()).toEqual([...made].sort());
    expect((await ok(a.token, { startDate: '2025-03-10', endDate: '2025-03-11', offset: 60 })).count).toBe(0);
  });

  it('REPORT-04 REPORT-09 REPORT-10 filters by type, status and whole days of the range (one day is a range)', async () => {
    const day = '2025-04-15';
    const email = await rows.ticket(a.accountId, { created_at: at(day, 0), closed: 0 });
    const chat = await rows.ticket(a.accountId, { created_at: at(day, 10), channel: 'LIVECHAT', closed: 3 });
    const lower = await rows.ticket(a.accountId, { created_at: at(day, 11), channel: 'livechat', closed: 1 });
    const pending = await rows.ticket(a.accountId, { created_at: at(day, 23) + HOUR - 1, channel: 'FB_PM', closed: 1 });
    // Internal chats are not tickets of the report; the days around the range are outside it.
    await rows.ticket(a.accountId, { created_at: at(day, 9), channel: 'chat' });
    const before = await rows.ticket(a.accountId, { created_at: at(day, 0) - 1 });
    await rows.ticket(a.accountId, { created_at: at(day, 24) });
    const ids = (x: ReportAnswer) => Object.values(x.data).flatMap((g) => g.map((t) => t.id));
    const range = { startDate: day, endDate: day };
    expect(ids(await ok(a.token, range))).toEqual([pending, lower, chat, email]);
    expect(ids(await ok(a.token, { ...range, type: 'ticket' }))).toEqual([pending, email]);
    expect(ids(await ok(a.token, { ...range, type: 'livechat' }))).toEqual([lower, chat]);
    expect(ids(await ok(a.token, { ...range, status: 'pending' }))).toEqual([pending, lower]);
    expect(ids(await ok(a.token, { ...range, status: 'closed', type: 'livechat' }))).toEqual([chat]);
    expect(ids(await ok(a.token, { ...range, status: 'resolved' }))).toEqual([]);
    // The caller's days: at UTC+2 the ticket of 23:59 UTC is on the next day, the one of 23:59 the day before
    // on this one.
    const plus2 = await ok(a.token, { ...range, tz: 120 });
    expect(ids(plus2)).toEqual([lower, chat, email, before]);
    expect(Object.keys(plus2.data)).toEqual(['15/4/2025']);
  });

  it('REPORT-06 REPORT-07 carries the columns; live chats add their rating and reason', async () => {
    const day = '2025-05-20';
    const vip = await rows.label(a.accountId, `VIP ${uniq()}`);
    const gone = await rows.label(a.accountId, `Gone ${uniq()}`, 1);
    const dep = await rows.department(a.accountId, `Sales ${uniq()}`);
    const t = await rows.ticket(a.accountId, {
      created_at: at(day, 8),
      updated_at: at(day, 9),
      title: 'Refund please',
      channel: 'EMAIL',
      label: JSON.stringify([vip, gone]),
      department_id: dep,
      assignee: `${agent.username},${supervisor.username}`,
      closed: 2,
    });
    const timed = await rows.ticket(a.accountId, { created_at: at(day, 7), label: JSON.stringify([vip]) });
    const chat = await rows.ticket(a.accountId, { created_at: at(day, 6), channel: 'LIVECHAT' });
    const unrated = await rows.ticket(a.accountId, { created_at: at(day, 5), channel: 'LIVECHAT' });
    const number = async (id: number) =>
      Number(
        (await db().selectFrom('tickets').select('ticket_number').where('id', '=', id).executeTakeFirstOrThrow())
          .ticket_number,
      );
    await db()
      .insertInto('sla_breaches')
      .values({
        account_id: a.accountId,
        ticket_id: t,
        ticket_number: await number(t),
        label_id: vip,
        sla_minutes: 30,
        waited_from: at(day, 8),
        due_at: at(day, 8.5),
        breached_at: at(day, 8.5),
        assignee: agent.username,
        department_id: dep,
        alerted: 1,
      })
      .execute();
    await db()
      .insertInto('sla_timers')
      .values({
        ticket_id: timed,
        account_id: a.accountId,
        label_id: vip,
        sla_minutes: 30,
        started_at: at(day, 7),
        warn_at: at(day, 7.4),
        due_at: at(day, 7.5),
        warned_at: null,
        violated_at: null,
        answered_at: null,
        next_at: null,
        updated_at: at(day, 7),
      })
      .execute();
    const visitor = Number(
      (
        await db()
          .insertInto('livechat_visitors')
          .values({ account_id: a.accountId, csrf_hash: `h-${uniq()}`, created_at: at(day, 6) })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    await db()
      .insertInto('livechats')
      .values({
        account_id: a.accountId,
        visitor_id: visitor,
        session_id: 1,
        state: 'ended',
        name: 'Pat',
        phone: '',
        email: '',
        message: 'hi',
        department_id: null,
        ticket_id: chat,
        queued_at: at(day, 6),
        accepted_at: at(day, 6),
        ended_at: at(day, 6.5),
        offered_user_id: null,
        offered_at: null,
        rating: 4,
        reason: 'Quick and kind',
        rated_at: at(day, 6.5),
      })
      .execute();
    const r = await ok(supervisor.token, { startDate: day, endDate: day });
    const group = r.data['20/5/2025']!;
    expect(group.map((x) => x.id)).toEqual([t, timed, chat, unrated]);
    expect(group[0]).toEqual({
      id: t,
      ticket_number: await number(t),
      title: 'Refund please',
      channel: 'EMAIL',
      label: [expect.stringMatching(/^VIP /)],
      closed: 2,
      status: 'Resolved',
      assignee: [agent.username, supervisor.username],
      department: expect.stringMatching(/^Sales /),
      created: at(day, 8),
      updated: at(day, 9),
      sla: 'breached',
    });
    expect(group[1]).toMatchObject({ sla: 'within', status: 'Open', department: '', assignee: [] });
    expect(group[1]).not.toHaveProperty('rating');
    expect(group[2]).toMatchObject({ channel: 'LIVECHAT', rating: 4, reason: 'Quick and kind', sla: '' });
    expect(group[3]).toMatchObject({ rating: null, reason: '' });
  });

  it('REPORT-09 REPORT-10 REPORT-11 bad input is a clear 400 and changes nothing', async () => {
    const before = await db().selectFrom('tickets').select(db().fn.countAll().as('n')).executeTakeFirstOrThrow();
    const tomorrow = new Date(Date.now() + 86_400_000 * 2).toISOString().slice(0, 10);
    const cases: [Record<string, string | number>, string][] = [
      [{ startDate: '2025-02-30', endDate: '2025-03-01' }, REPORT_STRINGS.badDate],
      [{ startDate: '10-03-2025', endDate: '2025-03-11' }, REPORT_STRINGS.badDate],
      [{ startDate: '2025-03-10', endDate: 'soon' }, REPORT_STRINGS.badDate],
      [{ startDate: '2025-03-12', endDate: '2025-03-11' }, REPORT_STRINGS.endBeforeStart],
      [{ startDate: '2025-03-12', endDate: tomorrow }, REPORT_STRINGS.endInFuture],
      [{ startDate: '2025-03-10', endDate: '2025-03-11', type: 'email' }, REPORT_STRINGS.badType],
      [{ startDate: '2025-03-10', endDate: '2025-03-11', status: 'solved' }, REPORT_STRINGS.badStatus],
      [{ startDate: '2025-03-10', endDate: '2025-03-11', offset: -30 }, REPORT_STRINGS.badOffset],
      [{ startDate: '2025-03-10', endDate: '2025-03-11', offset: 'x' }, REPORT_STRINGS.badOffset],
      [{ startDate: '2025-03-10', endDate: '2025-03-11', tz: 9999 }, REPORT_STRINGS.badTz],
    ];
    for (const [q, text] of cases) {
      const r = await report(a.token, q);
      expect(r.status, `${JSON.stringify(q)} ${r.text}`).toBe(400);
      expect(r.text).toContain(text);
    }
    const missing = await call('GET', '/report/generate?type=all&status=all', { token: a.token });
    expect(missing.status).toBe(400);
    const after = await db().selectFrom('tickets').select(db().fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('REPORT-01 admins and view_report users read reports; an agent is refused; signed out is 401', async () => {
    const range = { startDate: '2025-03-10', endDate: '2025-03-11' };
    expect((await report(a.token, range)).status).toBe(200);
    expect((await report(supervisor.token, range)).status).toBe(200);
    const refused = await report(agent.token, range);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(REPORT_STRINGS.notAllowed);
    expect(
      (await call('GET', '/report/generate?type=all&status=all&startDate=2025-03-10&endDate=2025-03-11')).status,
    ).toBe(401);
    // The permission decides, not the type: an agent given view_report reads, a supervisor without it not.
    await db().updateTable('users').set({ permission: '["view_report"]' }).where('id', '=', agent.id).execute();
    expect((await report(agent.token, range)).status).toBe(200);
    await db().updateTable('users').set({ permission: '[]' }).where('id', '=', supervisor.id).execute();
    expect((await report(supervisor.token, range)).status).toBe(403);
    await db().updateTable('users').set({ permission: '["view_report"]' }).where('id', '=', supervisor.id).execute();
    await db().updateTable('users').set({ permission: '[]' }).where('id', '=', agent.id).execute();
  });

  it("REPORT-11 another account's tickets are never shown", async () => {
    const day = '2025-06-02';
    const mine = await rows.ticket(a.accountId, { created_at: at(day) });
    const theirs = await rows.ticket(b.accountId, { created_at: at(day, 13), channel: 'LIVECHAT' });
    const theirLabel = await rows.label(b.accountId, `Secret ${uniq()}`);
    // A's ticket naming B's label shows no name for it.
    await db()
      .updateTable('tickets')
      .set({ label: JSON.stringify([theirLabel]) })
      .where('id', '=', mine)
      .execute();
    const seenByA = await ok(a.token, { startDate: day, endDate: day });
    expect(Object.values(seenByA.data).flatMap((g) => g.map((t) => t.id))).toEqual([mine]);
    expect(seenByA.data['2/6/2025']?.[0]?.label).toEqual([]);
    const seenByB = await ok(b.token, { startDate: day, endDate: day });
    expect(Object.values(seenByB.data).flatMap((g) => g.map((t) => t.id))).toEqual([theirs]);
    expect(numbers(seenByB)).toHaveLength(1);
  });
});
