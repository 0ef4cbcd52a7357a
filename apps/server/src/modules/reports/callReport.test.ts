import { type CallReportAnswer, REPORT_STRINGS, reportDayStart } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const MIN = 60_000;
const HOUR = 60 * MIN;
/** Midnight UTC of 2025-06-09, 2025-06-10 and 2025-06-11. */
const D0 = reportDayStart('2025-06-09', 0);
const D1 = reportDayStart('2025-06-10', 0);
const D2 = reportDayStart('2025-06-11', 0);
const SALES = '+6560001111';
const SUPPORT = '+6560002222';

describe.each(dialects)('call report (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  let a: SignedUp;
  let b: SignedUp;
  let supervisor: { id: number; token: string; username: string };
  let agent: { id: number; token: string; username: string };
  let dana: { id: number; token: string; username: string };
  let numbers = 0;

  /** A CALL ticket and its `calls` row, as the call commands store them. */
  const seedCall = async (
    accountId: number,
    c: {
      direction: 'inbound' | 'outbound';
      at: number;
      userId: number | null;
      duration: number;
      ended?: boolean;
      did?: string;
      recorded?: boolean;
    },
  ) => {
    const n = ++numbers;
    const t = await db()
      .insertInto('tickets')
      .values({
        account_id: accountId,
        ticket_number: 70_000 + n,
        title: `Call ${n}`,
        channel: 'CALL',
        closed: 0,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: '',
        name: '',
        email: '',
        phone: `+659000000${n}`,
        call_direction: c.direction,
        did: c.did ?? '',
        created_at: c.at,
        updated_at: c.at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('calls')
      .values({
        account_id: accountId,
        ticket_id: Number(t.id),
        call_id: `c-${uniq()}`,
        user_id: c.userId,
        started_at: c.at,
        ended_at: c.ended === false ? null : c.at + c.duration * 1000 + 5000,
        duration: c.duration,
        recording_key: c.recorded ? `rec-${n}.wav` : '',
        energy: null,
        pace: null,
      })
      .execute();
    return 70_000 + n;
  };

  const get = async (token: string, q: Record<string, string | number | undefined>) => {
    const r = await call(
      'GET',
      `/api/report/call?${new URLSearchParams(Object.entries(q).flatMap(([k, v]) => (v === undefined ? [] : [[k, `${v}`]])))}`,
      { token },
    );
    return r;
  };

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    supervisor = await addUserVia(call, a.token, { username: `sup-${uniq()}`, type: 'supervisor' });
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    dana = await addUserVia(call, a.token, { username: `dana-${uniq()}`, type: 'agent' });
    await db()
      .insertInto('call_dids')
      .values({ account_id: a.accountId, did: SALES, description: 'Sales line' })
      .execute();
    // A data set worked out by hand (UTC unless said):
    // 1. inbound 09:00 on the 10th, Dana, 120 s, recorded, to Sales.
    await seedCall(a.accountId, {
      direction: 'inbound',
      at: D1 + 9 * HOUR,
      userId: dana.id,
      duration: 120,
      did: SALES,
      recorded: true,
    });
    // 2. inbound 23:30 on the 10th (01:30 on the 11th in UTC+2), Dana, ended with no talk: missed; to Support.
    await seedCall(a.accountId, {
      direction: 'inbound',
      at: D1 + 23 * HOUR + 30 * MIN,
      userId: dana.id,
      duration: 0,
      did: SUPPORT,
    });
    // 3. outbound 10:00 on the 11th, the agent, 300 s, from Sales.
    await seedCall(a.accountId, {
      direction: 'outbound',
      at: D2 + 10 * HOUR,
      userId: agent.id,
      duration: 300,
      did: SALES,
    });
    // 4. inbound 11:00 on the 11th, nobody's yet, still going: a call, neither answered nor missed.
    await seedCall(a.accountId, { direction: 'inbound', at: D2 + 11 * HOUR, userId: null, duration: 0, ended: false });
    // 5. outbound 12:00 on the 11th, Dana, not picked up: not answered, and not missed (missed is inbound).
    await seedCall(a.accountId, { direction: 'outbound', at: D2 + 12 * HOUR, userId: dana.id, duration: 0 });
    // 6. inbound 23:00 on the 9th (01:00 on the 10th in UTC+2), the agent, 30 s: only in the UTC+2 range.
    await seedCall(a.accountId, { direction: 'inbound', at: D0 + 23 * HOUR, userId: agent.id, duration: 30 });
    // Account B's call in the same hours.
    await seedCall(b.accountId, { direction: 'inbound', at: D1 + 10 * HOUR, userId: null, duration: 60, did: SALES });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const range = { startDate: '2025-06-10', endDate: '2025-06-11' };
  const figures = (f: Partial<CallReportAnswer['total']>) => ({
    calls: 0,
    inbound: 0,
    outbound: 0,
    answered: 0,
    missed: 0,
    talkSeconds: 0,
    averageSeconds: null,
    longestSeconds: 0,
    recorded: 0,
    ...f,
  });

  it('REPORT-03 REPORT-04 the call report equals the hand-computed answer: totals, days, agents and DIDs', async () => {
    const r = await get(supervisor.token, range);
    expect(r.status, r.text).toBe(200);
    const body = r.body as CallReportAnswer;
    expect(body.total).toEqual(
      figures({
        calls: 5,
        inbound: 3,
        outbound: 2,
        answered: 2,
        missed: 1,
        talkSeconds: 420,
        averageSeconds: 210,
        longestSeconds: 300,
        recorded: 1,
      }),
    );
    expect(body.days).toEqual([
      { day: '2025-06-10', inbound: 2, outbound: 0, answered: 1, missed: 1 },
      { day: '2025-06-11', inbound: 1, outbound: 2, answered: 1, missed: 0 },
    ]);
    expect(body.agents).toEqual([
      {
        ...figures({
          calls: 3,
          inbound: 2,
          outbound: 1,
          answered: 1,
          missed: 1,
          talkSeconds: 120,
          averageSeconds: 120,
          longestSeconds: 120,
          recorded: 1,
        }),
        username: dana.username,
        name: expect.any(String),
      },
      {
        ...figures({ calls: 1, outbound: 1, answered: 1, talkSeconds: 300, averageSeconds: 300, longestSeconds: 300 }),
        username: agent.username,
        name: expect.any(String),
      },
      { ...figures({ calls: 1, inbound: 1 }), username: '', name: 'Unassigned' },
    ]);
    expect(body.dids).toEqual([
      {
        ...figures({
          calls: 2,
          inbound: 1,
          outbound: 1,
          answered: 2,
          talkSeconds: 420,
          averageSeconds: 210,
          longestSeconds: 300,
          recorded: 1,
        }),
        did: SALES,
        description: 'Sales line',
      },
      { ...figures({ calls: 2, inbound: 1, outbound: 1 }), did: '', description: '' },
      { ...figures({ calls: 1, inbound: 1, missed: 1 }), did: SUPPORT, description: '' },
    ]);
  });

  it("REPORT-03 days are the caller's: in UTC+2 the range moves two hours and a call crosses midnight", async () => {
    const body = (await get(a.token, { ...range, tz: 120 })).body as CallReportAnswer;
    expect(body.total.calls).toBe(6);
    expect(body.days).toEqual([
      // Calls 6 (01:00) and 1 (11:00): both inbound, both answered.
      { day: '2025-06-10', inbound: 2, outbound: 0, answered: 2, missed: 0 },
      // Call 2 (01:30, missed), 3 (answered), 4 (going), 5 (not picked up).
      { day: '2025-06-11', inbound: 2, outbound: 2, answered: 1, missed: 1 },
    ]);
    // One day is a range (minimum nights 0); a quiet day is still listed.
    const one = (await get(a.token, { startDate: '2025-06-08', endDate: '2025-06-08' })).body as CallReportAnswer;
    expect(one.days).toEqual([{ day: '2025-06-08', inbound: 0, outbound: 0, answered: 0, missed: 0 }]);
    expect(one.total).toEqual(figures({}));
    expect(one.agents).toEqual([]);
  });

  it('REPORT-01 REPORT-09 agents without view_report are refused; a future end, an end before the start and a bad day are 400s', async () => {
    const refused = await get(agent.token, range);
    expect(refused.status).toBe(403);
    expect(refused.body.description).toBe(REPORT_STRINGS.notAllowed);
    const future = await get(a.token, { ...range, endDate: '2999-01-01' });
    expect(future.status).toBe(400);
    expect(future.body.description).toBe(REPORT_STRINGS.endInFuture);
    const backwards = await get(a.token, { startDate: '2025-06-11', endDate: '2025-06-10' });
    expect(backwards.status).toBe(400);
    expect(backwards.body.description).toBe(REPORT_STRINGS.endBeforeStart);
    for (const bad of [
      { startDate: '2025-02-30' },
      { startDate: '' },
      { tz: 'x' },
      { tz: 100000 },
      { endDate: `${'9'.repeat(5000)}` },
    ]) {
      const r = await get(a.token, { ...range, ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await call('GET', '/api/report/call?startDate=2025-06-10&endDate=2025-06-11')).status).toBe(401);
  });

  it('REPORT-23 the calls.csv export has the rows the screen counts', async () => {
    const link = await call('POST', '/api/report/export', { token: supervisor.token });
    expect(link.status, link.text).toBe(200);
    const res = await fetch(`${s.url}/api/report/export/${link.body.token}/2025-06-10/2025-06-11/60/calls.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('calls-2025-06-10-2025-06-11.csv');
    const lines = (await res.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('Ticket number,Started,Direction,Number,DID,Agent,Duration (seconds),Answered,Recorded');
    // A number starting with + starts like a formula: it is quoted ('+), as every export cell is.
    expect(lines.slice(1)).toEqual([
      `70001,2025-06-10 09:00,Inbound,'+6590000001,'${SALES},${dana.username},120,Yes,Yes`,
      `70002,2025-06-10 23:30,Inbound,'+6590000002,'${SUPPORT},${dana.username},0,No,No`,
      `70003,2025-06-11 10:00,Outbound,'+6590000003,'${SALES},${agent.username},300,Yes,No`,
      "70004,2025-06-11 11:00,Inbound,'+6590000004,,,0,No,No",
      `70005,2025-06-11 12:00,Outbound,'+6590000005,,${dana.username},0,No,No`,
    ]);
    // The screen's total is the file's rows.
    const screen = (await get(supervisor.token, range)).body as CallReportAnswer;
    expect(lines.length - 1).toBe(screen.total.calls);
  });

  it("account B reads only its own call; A's never appear", async () => {
    const body = (await get(b.token, { startDate: '2000-01-01', endDate: new Date().toISOString().slice(0, 10) }))
      .body as CallReportAnswer;
    expect(body.total).toEqual(
      figures({ calls: 1, inbound: 1, answered: 1, talkSeconds: 60, averageSeconds: 60, longestSeconds: 60 }),
    );
    expect(body.dids).toEqual([
      {
        ...figures({ calls: 1, inbound: 1, answered: 1, talkSeconds: 60, averageSeconds: 60, longestSeconds: 60 }),
        did: SALES,
        description: '',
      },
    ]);
    expect(JSON.stringify(body)).not.toContain(dana.username);
  });
});
