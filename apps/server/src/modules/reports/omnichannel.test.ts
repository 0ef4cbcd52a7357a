import {
  ANALYTICS_STRINGS,
  type AuxAnswer,
  type CsatAnswer,
  DASHBOARD_STRINGS,
  type IntervalAnswer,
  OMNI_STRINGS,
  type PerformanceAnswer,
  REPORT_GROUP_NAMES,
  REPORT_STRINGS,
  type ReportGroup,
  reportDayStart,
} from '@parley/contracts';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { relayed } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { postMessage } from '../messages/index.js';
import { recordBreach } from '../sla/alerts.js';
import { backfillTicketFacts } from './facts.js';
import { performanceReport } from './omnichannel.queries.js';
import { applyRollup, bucketOf, rebuildRollups, rollupChange } from './rollups.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const MIN = 60_000;
const HOUR = 60 * MIN;
/** 12:00 UTC on 2025-06-10 and 2025-06-11 (a Tuesday and a Wednesday). */
const D1 = reportDayStart('2025-06-10', 0);
const D2 = reportDayStart('2025-06-11', 0);

describe.each(dialects)('omnichannel report (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  let a: SignedUp;
  let b: SignedUp;
  let supervisor: { id: number; token: string; username: string };
  let agent: { id: number; token: string; username: string };
  let dana: { id: number; token: string; username: string };
  let numbers = 0;

  const get = async <T>(token: string, path: string, q: Record<string, string | number>) => {
    const r = await call('GET', `${path}?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, `${v}`]))}`, {
      token,
    });
    expect(r.status, r.text).toBe(200);
    return r.body as T;
  };

  /** A facts row as the listener would keep it, for the hand-computed data set. */
  const fact = async (
    accountId: number,
    f: {
      channel: string;
      created: number;
      assignee?: string;
      department?: number | null;
      firstCustomer?: number | null;
      answered?: number | null;
      resolved?: number | null;
      reopen?: number;
      breached?: number;
      csat?: number | null;
    },
  ) => {
    const n = ++numbers;
    const t = await db()
      .insertInto('tickets')
      .values({
        account_id: accountId,
        ticket_number: 50_000 + n,
        title: `Seeded ${n}`,
        channel: f.channel,
        closed: f.resolved ? 2 : 0,
        priority: '',
        label: '[]',
        department_id: f.department ?? null,
        assignee: f.assignee ?? '',
        name: 'C',
        email: 'c@example.net',
        phone: '',
        created_at: f.created,
        updated_at: f.created,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const firstCustomer = f.firstCustomer === undefined ? f.created : f.firstCustomer;
    await db()
      .insertInto('report_ticket_facts')
      .values({
        ticket_id: Number(t.id),
        account_id: accountId,
        channel: f.channel,
        department_id: f.department ?? null,
        assignee: f.assignee ?? '',
        created_at: f.created,
        closed: f.resolved ? 2 : 0,
        first_customer_at: firstCustomer,
        first_response_at: f.answered ?? null,
        first_response_ms: f.answered && firstCustomer !== null ? f.answered - firstCustomer : null,
        resolved_at: f.resolved ?? null,
        resolution_ms: f.resolved ? f.resolved - f.created : null,
        reopen_count: f.reopen ?? 0,
        sla_breached: f.breached ?? 0,
        csat: f.csat ?? null,
        updated_at: f.created,
      })
      .execute();
    // What the listener adds to the rollups when it writes a conversation's first facts.
    await applyRollup(
      db(),
      accountId,
      rollupChange(null, {
        channel: f.channel,
        department_id: f.department ?? null,
        assignee: f.assignee ?? '',
        created_at: f.created,
        first_response_at: f.answered ?? null,
        first_response_ms: f.answered && firstCustomer !== null ? f.answered - firstCustomer : null,
        resolved_at: f.resolved ?? null,
        resolution_ms: f.resolved ? f.resolved - f.created : null,
        reopen_count: f.reopen ?? 0,
        sla_breached: f.breached ?? 0,
        csat: f.csat ?? null,
      }),
    );
    return Number(t.id);
  };

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    supervisor = await addUserVia(call, a.token, { username: `sup-${uniq()}`, type: 'supervisor' });
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    dana = await addUserVia(call, a.token, { username: `dana-${uniq()}`, type: 'agent' });
    // A data set worked out by hand: five conversations across 2025-06-10/11, UTC, and one of account B.
    const team = await db()
      .insertInto('departments')
      .values({ account_id: a.accountId, name: 'Billing', created_at: D1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const billing = Number(team.id);
    // E-mail at 23:50 on the 10th: answered in 20 min (00:10 on the 11th), resolved 2 h after it was made.
    await fact(a.accountId, {
      channel: 'EMAIL',
      created: D1 + 23 * HOUR + 50 * MIN,
      assignee: dana.username,
      department: billing,
      answered: D1 + 24 * HOUR + 10 * MIN,
      resolved: D1 + 25 * HOUR + 50 * MIN,
      csat: 5,
    });
    // WhatsApp at 10:05 on the 11th: answered in 5 min, resolved in 30 min, breached, reopened once, rated 2.
    await fact(a.accountId, {
      channel: 'WHATSAPP',
      created: D2 + 10 * HOUR + 5 * MIN,
      assignee: dana.username,
      department: billing,
      answered: D2 + 10 * HOUR + 10 * MIN,
      resolved: D2 + 10 * HOUR + 35 * MIN,
      breached: 1,
      reopen: 1,
      csat: 2,
    });
    // Microsoft 365 mail at 10:20 on the 11th: answered in 60 min; open.
    await fact(a.accountId, {
      channel: 'GRAPH_EMAIL',
      created: D2 + 10 * HOUR + 20 * MIN,
      assignee: agent.username,
      answered: D2 + 11 * HOUR + 20 * MIN,
    });
    // A live chat at 10:29 on the 11th, unassigned, never answered.
    await fact(a.accountId, { channel: 'LIVECHAT', created: D2 + 10 * HOUR + 29 * MIN });
    // A Facebook post at 23:59 on the 11th (the 12th in UTC+8), resolved in 10 min without an answer, rated 4.
    await fact(a.accountId, {
      channel: 'FB_PAGE_POST',
      created: D2 + 23 * HOUR + 59 * MIN,
      assignee: agent.username,
      resolved: D2 + 24 * HOUR + 9 * MIN,
      csat: 4,
    });
    await fact(b.accountId, { channel: 'EMAIL', created: D2 + 10 * HOUR, answered: D2 + 11 * HOUR, csat: 1 });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const range = { startDate: '2025-06-10', endDate: '2025-06-11' };

  it('REPORT-13 REPORT-14 REPORT-15 REPORT-20 REPORT-21 REPORT-22 interval buckets count what was made, first answered and resolved in each', async () => {
    const hourly = await get<IntervalAnswer>(supervisor.token, '/api/report/interval', { ...range, interval: 60 });
    expect(hourly.result).toBe('success');
    // Every hour of the two days is a bucket, quiet ones empty.
    expect(Object.keys(hourly.data)).toHaveLength(48);
    expect(hourly.data['2025-06-10 00:00']).toEqual({});
    expect(hourly.data['2025-06-10 23:00']).toEqual({ email: { received: 1, answered: 0, resolved: 0 } });
    // The answer at 00:10 and the resolution at 01:50 fall on the next day (across the day boundary).
    expect(hourly.data['2025-06-11 00:00']).toEqual({ email: { received: 0, answered: 1, resolved: 0 } });
    expect(hourly.data['2025-06-11 01:00']).toEqual({ email: { received: 0, answered: 0, resolved: 1 } });
    // 10:00: WhatsApp is mobile messaging, Microsoft 365 e-mail is e-mail, the live chat its own group.
    expect(hourly.data['2025-06-11 10:00']).toEqual({
      mobile: { received: 1, answered: 1, resolved: 1 },
      email: { received: 1, answered: 0, resolved: 0 },
      livechat: { received: 1, answered: 0, resolved: 0 },
    });
    expect(hourly.data['2025-06-11 11:00']).toEqual({ email: { received: 0, answered: 1, resolved: 0 } });
    // The Facebook post is social media; its resolution (00:09 on the 12th) is after the range.
    expect(hourly.data['2025-06-11 23:00']).toEqual({ social: { received: 1, answered: 0, resolved: 0 } });

    const quarter = await get<IntervalAnswer>(supervisor.token, '/api/report/interval', {
      startDate: '2025-06-11',
      endDate: '2025-06-11',
      interval: 15,
    });
    expect(Object.keys(quarter.data)).toHaveLength(96);
    expect(quarter.data['2025-06-11 10:00']).toEqual({ mobile: { received: 1, answered: 1, resolved: 0 } });
    expect(quarter.data['2025-06-11 10:15']).toEqual({
      email: { received: 1, answered: 0, resolved: 0 },
      livechat: { received: 1, answered: 0, resolved: 0 },
    });
    expect(quarter.data['2025-06-11 10:30']).toEqual({ mobile: { received: 0, answered: 0, resolved: 1 } });

    // In UTC+8 the days move: the 11th's 23:59 UTC is 07:59 on the 12th, outside a range ending on the 11th.
    const daily = await get<IntervalAnswer>(supervisor.token, '/api/report/interval', {
      ...range,
      interval: 1440,
      tz: 480,
    });
    expect(daily.data).toEqual({
      // 2025-06-10 00:00 +08:00 .. 2025-06-11 00:00 +08:00: nothing (the e-mail came at 07:50 on the 11th there).
      '2025-06-10 00:00': {},
      '2025-06-11 00:00': {
        email: { received: 2, answered: 2, resolved: 1 },
        mobile: { received: 1, answered: 1, resolved: 1 },
        livechat: { received: 1, answered: 0, resolved: 0 },
      },
    });
  });

  it('REPORT-17 REPORT-19 the csat map by group and agent, and the aux map of time per status clipped to the range', async () => {
    const csat = await get<CsatAnswer>(supervisor.token, '/api/report/csat', range);
    expect(csat.data).toEqual({ email: { '5': 1 }, mobile: { '2': 1 }, social: { '4': 1 } });
    expect(csat.agents).toEqual({ [dana.username]: { '5': 1, '2': 1 }, [agent.username]: { '4': 1 } });
    expect(csat.count).toBe(3);
    expect(csat.average).toBeCloseTo(11 / 3, 9);

    // Dana: ONLINE from 23:00 on the 9th to 01:00 on the 10th (1 h inside), AWAY 09:00-09:30 on the 11th, and
    // ONLINE again from 09:30 on the 11th, still going (counted to the end of the range: 14.5 h).
    const period = (status: string, started: number, ended: number | null) =>
      db()
        .insertInto('status_periods')
        .values({ account_id: a.accountId, user_id: dana.id, status, reason: '', started_at: started, ended_at: ended })
        .execute();
    await period('ONLINE', D1 - HOUR, D1 + HOUR);
    await period('AWAY', D2 + 9 * HOUR, D2 + 9.5 * HOUR);
    await period('ONLINE', D2 + 9.5 * HOUR, null);
    const aux = await get<AuxAnswer>(supervisor.token, '/api/report/aux', range);
    expect(aux.data[dana.username]).toEqual({
      name: expect.any(String),
      statuses: { ONLINE: HOUR + 14.5 * HOUR, AWAY: 0.5 * HOUR },
    });
    // Another account's periods are never read.
    expect(Object.keys(aux.data).every((u) => u !== b.username)).toBe(true);
  });

  it('per agent, team and group: volume, first response and resolution p50/p90, SLA met and CSAT', async () => {
    const p = await get<PerformanceAnswer>(supervisor.token, '/api/report/performance', range);
    expect(p.total).toMatchObject({
      conversations: 5,
      answered: 3,
      // The Facebook post was resolved after the range, but made in it: counted with the rest.
      resolved: 3,
      reopened: 1,
      // First responses 5, 20, 60 min: nearest-rank p50 is 20, p90 60.
      firstResponseP50: 20 * MIN,
      firstResponseP90: 60 * MIN,
      slaMet: 4 / 5,
      rated: 3,
    });
    // Resolutions 10, 30 and 120 min.
    expect(p.total).toMatchObject({ resolutionP50: 30 * MIN, resolutionP90: 120 * MIN });
    expect(p.total.csat).toBeCloseTo(11 / 3, 9);
    expect(p.agents[dana.username]).toMatchObject({
      conversations: 2,
      firstResponseP50: 5 * MIN,
      firstResponseP90: 20 * MIN,
      resolutionP50: 30 * MIN,
      resolutionP90: 120 * MIN,
      slaMet: 0.5,
      csat: 3.5,
    });
    expect(p.agents['']).toMatchObject({ name: OMNI_STRINGS.unassigned, conversations: 1, answered: 0 });
    const billing = Object.values(p.teams).find((t) => t.name === 'Billing');
    expect(billing).toMatchObject({ conversations: 2, rated: 2 });
    expect(p.teams['0']).toMatchObject({ name: OMNI_STRINGS.noTeam, conversations: 3 });
    expect(p.groups.email).toMatchObject({ name: 'Email', conversations: 2, firstResponseP50: 20 * MIN });
    expect(p.groups.social).toMatchObject({ conversations: 1, resolutionP50: 10 * MIN, csat: 4 });
  });

  it('REPORT-13 REPORT-15 in a time zone half an hour off UTC the partial hours at either end count exactly; a big range estimates its percentiles inside the right bucket', async () => {
    const c = await signUpVia(call);
    // India (UTC+5:30): 2025-06-10 and 11 there are 2025-06-09 18:30 to 2025-06-11 18:30 UTC.
    const tz = 330;
    const ist = { startDate: '2025-06-10', endDate: '2025-06-11', tz };
    const from = reportDayStart('2025-06-10', tz);
    expect(from).toBe(D1 - 5 * HOUR - 30 * MIN);
    // In the first partial hour (18:40 UTC), two in whole hours, one in the last partial hour (18:10 UTC on
    // the 11th), and one just after the range (18:40 UTC on the 11th).
    await fact(c.accountId, { channel: 'EMAIL', created: from + 10 * MIN, answered: from + 13 * MIN, csat: 5 });
    await fact(c.accountId, { channel: 'EMAIL', created: D1 + 3 * HOUR, answered: D1 + 3 * HOUR + 40 * MIN });
    await fact(c.accountId, { channel: 'LIVECHAT', created: D2, answered: D2 + 2 * MIN, resolved: D2 + HOUR });
    await fact(c.accountId, { channel: 'LIVECHAT', created: D2 + 18 * HOUR + 10 * MIN, csat: 3 });
    await fact(c.accountId, { channel: 'EMAIL', created: D2 + 18 * HOUR + 40 * MIN, answered: D2 + 19 * HOUR });
    const p = await get<PerformanceAnswer>(c.token, '/api/report/performance', ist);
    expect(p.estimated).toBe(false);
    // First responses 3, 40 and 2 min: nearest rank p50 3 min, p90 40 min.
    expect(p.total).toMatchObject({
      conversations: 4,
      answered: 3,
      resolved: 1,
      rated: 2,
      firstResponseP50: 3 * MIN,
      firstResponseP90: 40 * MIN,
    });
    expect(p.groups.livechat).toMatchObject({ conversations: 2, csat: 3 });
    const csat = await get<CsatAnswer>(c.token, '/api/report/csat', ist);
    expect(csat).toMatchObject({ count: 2, average: 4, data: { email: { 5: 1 }, livechat: { 3: 1 } } });
    const hourly = await get<IntervalAnswer>(c.token, '/api/report/interval', { ...ist, interval: 60 });
    // 18:40 UTC is 00:10 in India: the range's first hour.
    expect(hourly.data['2025-06-10 00:00']?.email).toEqual({ received: 1, answered: 1, resolved: 0 });
    expect(hourly.data['2025-06-11 23:00']?.livechat).toEqual({ received: 1, answered: 0, resolved: 0 });
    const received = Object.values(hourly.data).reduce(
      (n, cell) => n + Object.values(cell).reduce((m, g) => m + (g?.received ?? 0), 0),
      0,
    );
    expect(received).toBe(4);

    // Past the exact limit the percentiles come from the histograms: each lands in the exact one's bucket.
    const estimated = await performanceReport(db(), { accountId: c.accountId }, ist, Date.now(), { exactUpTo: 0 });
    expect(estimated.estimated).toBe(true);
    expect(estimated.total.conversations).toBe(4);
    for (const key of ['firstResponseP50', 'firstResponseP90'] as const) {
      const est = estimated.total[key];
      expect(est).not.toBeNull();
      expect(bucketOf(est!)).toBe(bucketOf(p.total[key]!));
      expect(est).not.toBe(p.total[key]);
    }
  });

  it('REPORT-01 REPORT-09 agents without view_report are refused; bad ranges and intervals are clear 400s', async () => {
    for (const path of ['/api/report/interval', '/api/report/aux', '/api/report/csat', '/api/report/performance']) {
      const q = { ...range, interval: '60' };
      const refused = await call('GET', `${path}?${new URLSearchParams(q)}`, { token: agent.token });
      expect(refused.status).toBe(403);
      expect(refused.body.description).toBe(REPORT_STRINGS.notAllowed);
      const future = await call('GET', `${path}?${new URLSearchParams({ ...q, endDate: '2999-01-01' })}`, {
        token: a.token,
      });
      expect(future.status).toBe(400);
      expect(future.body.description).toBe(REPORT_STRINGS.endInFuture);
      const backwards = await call(
        'GET',
        `${path}?${new URLSearchParams({ ...q, startDate: '2025-06-11', endDate: '2025-06-10' })}`,
        { token: a.token },
      );
      expect(backwards.status).toBe(400);
      expect(backwards.body.description).toBe(REPORT_STRINGS.endBeforeStart);
      const badDay = await call('GET', `${path}?${new URLSearchParams({ ...q, startDate: '2025-02-30' })}`, {
        token: a.token,
      });
      expect(badDay.status).toBe(400);
    }
    for (const interval of ['7', '0', 'x', '1e9', '']) {
      const r = await call('GET', `/api/report/interval?${new URLSearchParams({ ...range, interval })}`, {
        token: a.token,
      });
      expect(r.status, interval).toBe(400);
      expect(r.body.description).toBe(OMNI_STRINGS.badInterval);
    }
    // A year of 15-minute steps is too many buckets to draw.
    const year = await call(
      'GET',
      `/api/report/interval?${new URLSearchParams({ startDate: '2024-01-01', endDate: '2024-12-31', interval: '15' })}`,
      { token: a.token },
    );
    expect(year.status).toBe(400);
    expect(year.body.description).toBe(OMNI_STRINGS.tooManyBuckets);
  });

  it('REPORT-23 REPORT-24 the export link (token, dates and step in the path) gives CSV and XLSX rows equal to the report', async () => {
    const refused = await call('POST', '/api/report/export', { token: agent.token });
    expect(refused.status).toBe(403);
    const link = await call('POST', '/api/report/export', { token: supervisor.token });
    expect(link.status, link.text).toBe(200);
    const token = link.body.token as string;
    const path = (file: string, tail = '2025-06-10/2025-06-11/60') =>
      `${s.url}/api/report/export/${token}/${tail}/${file}`;

    const intervals = await fetch(path('intervals.csv'));
    expect(intervals.status).toBe(200);
    expect(intervals.headers.get('content-type')).toContain('text/csv');
    expect(intervals.headers.get('content-disposition')).toContain('intervals-2025-06-10-2025-06-11.csv');
    const lines = (await intervals.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('Start,Group,Received,First answered,Resolved');
    // The same rows as the screen's interval report.
    const screen = await get<IntervalAnswer>(supervisor.token, '/api/report/interval', { ...range, interval: 60 });
    const expected = Object.entries(screen.data).flatMap(([start, groups]) =>
      Object.entries(groups).map(([g, c]) =>
        [start, REPORT_GROUP_NAMES[g as ReportGroup], c.received, c.answered, c.resolved].join(','),
      ),
    );
    expect(lines.slice(1)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(5);

    const conversations = await (await fetch(path('conversations.csv'))).text();
    const rows = conversations
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows).toHaveLength(1 + 5);
    // Oldest first; the e-mail of 23:50 answered in 20 minutes, resolved in 120, rated 5.
    expect(rows[1]).toMatch(/,Email,Email,Billing,dana-\w+,2025-06-10 23:50,20,120,0,No,5$/);

    const book = await fetch(path('report.xlsx'));
    expect(book.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await book.arrayBuffer()) as never);
    const sheet = (name: string) =>
      (wb.getWorksheet(name)!.getSheetValues() as unknown[][]).filter(Boolean).map((r) => r.slice(1).join(','));
    expect(sheet('Intervals').slice(1)).toEqual(expected);
    expect(sheet('Conversations')).toHaveLength(1 + 5);

    // Bad input: clear answers, nothing exported.
    const bad = async (url: string, status: number) => {
      const r = await fetch(url);
      expect(r.status, url).toBe(status);
      expect(((await r.json()) as { result: string }).result).toBe('failed');
    };
    await bad(path('report.pdf'), 400);
    await bad(path('report.xlsx', '2025-06-11/2025-06-10/60'), 400);
    await bad(path('report.xlsx', '2025-06-10/2999-01-01/60'), 400);
    await bad(path('report.xlsx', '2025-06-10/2025-06-11/7'), 400);
    await bad(`${s.url}/api/report/export/not-a-token/2025-06-10/2025-06-11/60/report.xlsx`, 401);
    // B's own link exports only B's conversation.
    const bLink = await call('POST', '/api/report/export', { token: b.token });
    const bRows = await (
      await fetch(`${s.url}/api/report/export/${bLink.body.token}/2025-06-10/2025-06-11/60/conversations.csv`)
    ).text();
    expect(bRows.trim().split('\r\n')).toHaveLength(2);
    // An expired link, and the link of a user who may no longer read reports, stop working.
    await db()
      .updateTable('report_export_tokens')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    await bad(path('intervals.csv'), 401);
    const again = (await call('POST', '/api/report/export', { token: supervisor.token })).body.token as string;
    await db().updateTable('users').set({ active: 0 }).where('id', '=', supervisor.id).execute();
    await bad(`${s.url}/api/report/export/${again}/2025-06-10/2025-06-11/60/intervals.csv`, 401);
    await db().updateTable('users').set({ active: 1 }).where('id', '=', supervisor.id).execute();
  });

  it("account B reads only its own conversation; A's never appear", async () => {
    const p = await get<PerformanceAnswer>(b.token, '/api/report/performance', range);
    expect(p.total.conversations).toBe(1);
    const csat = await get<CsatAnswer>(b.token, '/api/report/csat', range);
    expect(csat.data).toEqual({ email: { '1': 1 } });
  });

  it('facts are kept by the relay from the real paths: first answer, resolve, reopen, resolve, rating, SLA breach', async () => {
    const created = await call('POST', '/api/ticket/create', {
      token: agent.token,
      body: { title: 'Lost parcel', name: 'Cora', email: 'cora@example.net', message: 'Where is my parcel?' },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.body.data.id as number;
    const facts = () =>
      db().selectFrom('report_ticket_facts').selectAll().where('ticket_id', '=', id).executeTakeFirstOrThrow();
    await relayed(db(), a.accountId);
    const first = await facts();
    expect(first).toMatchObject({ channel: 'MANUAL', first_response_at: null, resolved_at: null });
    expect(first.first_customer_at).not.toBeNull();

    const reply = await call('POST', '/api/ticket/message', {
      token: dana.token,
      body: { ticket_id: id, message: 'It is on its way.' },
    });
    expect(reply.status, reply.text).toBe(200);
    const status = (closed: number) =>
      call('POST', '/api/ticket/status', { token: a.token, body: { id, status: closed } });
    expect((await status(2)).status).toBe(200);
    expect((await status(0)).status).toBe(200);
    expect((await status(3)).status).toBe(200);
    await relayed(db(), a.accountId);
    const after = await facts();
    const replyAt = await db()
      .selectFrom('messages')
      .select('created_at')
      .where('id', '=', reply.body.data.id)
      .executeTakeFirstOrThrow();
    expect(Number(after.first_response_at)).toBe(Number(replyAt.created_at));
    expect(Number(after.first_response_ms)).toBe(Number(replyAt.created_at) - Number(first.first_customer_at));
    expect(Number(after.reopen_count)).toBe(1);
    expect(Number(after.closed)).toBe(3);
    expect(after.resolved_at).not.toBeNull();
    expect(Number(after.resolution_ms)).toBe(Number(after.resolved_at) - Number(after.created_at));

    // A later agent message does not move the first answer; a customer message does not either.
    await runCommand(db(), (trx) =>
      postMessage(trx, conversationRules(), {
        accountId: a.accountId,
        ticketId: id,
        sender: 'cora@example.net',
        senderName: 'Cora',
        type: 'text',
        message: 'Thanks!',
        fromCustomer: true,
      }),
    );
    // The survey's answer is the CSAT (surveys come with Basic and up).
    await db().updateTable('accounts').set({ plan: 2 }).where('id', '=', a.accountId).execute();
    const survey = await call('POST', `/api/ticket/${id}/survey`, { token: a.token });
    expect(survey.status, survey.text).toBe(200);
    const answered = await call('POST', `/api/public/surveys/${survey.body.token}`, {
      body: { rating: 4, comment: '' },
    });
    expect(answered.status, answered.text).toBe(200);
    await relayed(db(), a.accountId);
    const rated = await facts();
    expect(Number(rated.first_response_at)).toBe(Number(after.first_response_at));
    expect(Number(rated.csat)).toBe(4);
    expect(Number(rated.sla_breached)).toBe(0);

    // The SLA engine records a breach: the facts say so.
    await runCommand(db(), (trx) =>
      recordBreach(
        trx,
        {
          id,
          accountId: a.accountId,
          ticketNumber: 1,
          title: 'Lost parcel',
          channel: 'MANUAL',
          assignee: '',
          departmentId: null,
        },
        { target: 'first_response', labelId: 0, slaMinutes: 1, startedAt: Date.now() - MIN, dueAt: Date.now() },
        false,
        Date.now(),
      ),
    );
    await relayed(db(), a.accountId);
    expect(Number((await facts()).sla_breached)).toBe(1);

    // The rollups the listener moved with every change (made, answered, resolved, reopened, resolved again,
    // rated, breached) are what a rebuild from the facts gives.
    const rollups = async () => ({
      slots: await db().selectFrom('report_slots').selectAll().where('account_id', '=', a.accountId).execute(),
      periods: await db().selectFrom('report_periods').selectAll().where('account_id', '=', a.accountId).execute(),
    });
    const kept = await rollups();
    const nonEmpty = <T extends Record<string, unknown>>(rows: T[], key: (r: T) => string) =>
      rows
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? v : Number(v)])))
        .filter((r) =>
          Object.entries(r).some(
            ([k, v]) => typeof v === 'number' && v !== 0 && !['account_id', 'slot', 'at'].includes(k),
          ),
        )
        .sort((x, y) => key(x as T).localeCompare(key(y as T)));
    const slotKey = (r: { slot: unknown; channel: unknown }) => `${r.slot}|${r.channel}`;
    const periodKey = (r: { period: unknown; at: unknown; dim: unknown; k: unknown }) =>
      `${r.period}|${r.at}|${r.dim}|${r.k}`;
    expect(kept.periods.some((r) => r.period === 'd' && r.k === 'MANUAL' && Number(r.rated) === 1)).toBe(true);
    await rebuildRollups(db(), a.accountId);
    const rebuilt = await rollups();
    expect(nonEmpty(kept.slots, slotKey)).toEqual(nonEmpty(rebuilt.slots, slotKey));
    expect(nonEmpty(kept.periods, periodKey)).toEqual(nonEmpty(rebuilt.periods, periodKey));
  });

  it('the backfill builds facts for conversations made before they were kept, once', async () => {
    const t = await db()
      .insertInto('tickets')
      .values({
        account_id: b.accountId,
        ticket_number: 90_001,
        title: 'Old',
        channel: 'EMAIL',
        closed: 3,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: b.username,
        name: 'Old Customer',
        email: 'old@example.net',
        phone: '',
        created_at: D1,
        updated_at: D1 + 3 * HOUR,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(t.id);
    const message = (sender: string, at: number, type = 'text') =>
      db()
        .insertInto('messages')
        .values({
          account_id: b.accountId,
          ticket_id: id,
          type,
          message: 'm',
          sender,
          sender_name: sender,
          client_id: null,
          created_at: at,
        })
        .execute();
    await message('old@example.net', D1 + MIN);
    await message('server', D1 + 2 * MIN, 'system');
    await message(b.username, D1 + 45 * MIN);
    await message(b.username, D1 + 50 * MIN);
    expect(await backfillTicketFacts(db(), { accountId: b.accountId })).toBeGreaterThanOrEqual(1);
    const f = await db()
      .selectFrom('report_ticket_facts')
      .selectAll()
      .where('ticket_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(f).toMatchObject({ channel: 'EMAIL', assignee: b.username });
    expect(Number(f.first_response_ms)).toBe(44 * MIN);
    expect(Number(f.resolution_ms)).toBe(3 * HOUR);
    expect(await backfillTicketFacts(db(), { accountId: b.accountId })).toBe(0);
  });
  it('REPORT-25 without ANALYTICS_URL no frame is offered, and asking anyway answers "not configured" once', async () => {
    expect((await call('GET', '/api/services', { token: a.token })).body.analytics).toBe(false);
    const r = await call('POST', '/api/report/analytics', { token: a.token, body: { feature: 'omnichannel' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'not_configured', description: ANALYTICS_STRINGS.notConfigured });
  });

  it('SHELL-07 SHELL-08 a public dashboard link shows the last 7 days in aggregate; removing it revokes it', async () => {
    await fact(a.accountId, {
      channel: 'WHATSAPP',
      created: Date.now() - 2 * HOUR,
      answered: Date.now() - HOUR,
      csat: 5,
    });
    await fact(a.accountId, { channel: 'EMAIL', created: Date.now() - 3 * 24 * HOUR, assignee: dana.username });
    const refused = await call('POST', '/api/report/dashboards', { token: agent.token, body: { name: 'Wall' } });
    expect(refused.status).toBe(403);
    for (const name of ['', '   ', 'x'.repeat(101)]) {
      const bad = await call('POST', '/api/report/dashboards', { token: supervisor.token, body: { name } });
      expect(bad.status, name).toBe(400);
      expect(bad.body.description).toBe(DASHBOARD_STRINGS.badName);
    }
    const made = await call('POST', '/api/report/dashboards', { token: supervisor.token, body: { name: 'Wall' } });
    expect(made.status, made.text).toBe(200);
    const token = made.body.token as string;
    expect(token.length).toBeGreaterThanOrEqual(40);
    const listed = await call('GET', '/api/report/dashboards', { token: a.token });
    expect(listed.body.data).toEqual([
      { id: made.body.data.id, name: 'Wall', created_by: supervisor.username, created_at: expect.any(Number) },
    ]);
    // The secret is kept only as its hash.
    expect(JSON.stringify(await db().selectFrom('report_dashboards').selectAll().execute())).not.toContain(token);

    // Signed out: the aggregate figures of A's last seven days, and nothing that names a person or a ticket.
    const page = await call('GET', `/api/public/dashboard/${token}`);
    expect(page.status, page.text).toBe(200);
    const since = Date.now() - 7 * 24 * HOUR;
    const expected = await db()
      .selectFrom('report_ticket_facts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', a.accountId)
      .where('created_at', '>=', since - 24 * HOUR)
      .executeTakeFirstOrThrow();
    expect(page.body.total.conversations).toBeGreaterThanOrEqual(2);
    expect(page.body.total.conversations).toBeLessThanOrEqual(Number(expected.n));
    expect(Object.keys(page.body.days)).toHaveLength(7);
    expect(page.body.groups.mobile.conversations).toBeGreaterThanOrEqual(1);
    for (const secret of [dana.username, agent.username, supervisor.username, 'Lost parcel', 'Seeded'])
      expect(page.text).not.toContain(secret);
    expect(page.body).not.toHaveProperty('agents');

    // Another account cannot remove A's link; A removes it and the link stops working at once.
    expect((await call('DELETE', `/api/report/dashboards/${made.body.data.id}`, { token: b.token })).status).toBe(404);
    expect((await call('GET', `/api/public/dashboard/${token}`)).status).toBe(200);
    const removed = await call('DELETE', `/api/report/dashboards/${made.body.data.id}`, { token: supervisor.token });
    expect(removed.status, removed.text).toBe(200);
    const gone = await call('GET', `/api/public/dashboard/${token}`);
    expect(gone.status).toBe(404);
    expect(gone.body.description).toBe(DASHBOARD_STRINGS.notFound);
    expect((await call('GET', '/api/public/dashboard/not-a-real-token')).status).toBe(404);
    // At most 20 links per account.
    for (let i = 0; i < 20; i++)
      expect((await call('POST', '/api/report/dashboards', { token: a.token, body: { name: `W${i}` } })).status).toBe(
        200,
      );
    const over = await call('POST', '/api/report/dashboards', { token: a.token, body: { name: 'one more' } });
    expect(over.status).toBe(409);
    expect(over.body.description).toBe(DASHBOARD_STRINGS.tooMany);
  });
});

describe.each(dialects)('analytics frame (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  beforeAll(async () => {
    s = await startTestServer(dialect, { ANALYTICS_URL: 'https://analytics.example.test/embed?site=acme' });
    call = apiClient(s.url);
    a = await signUpVia(call);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('REPORT-25 REPORT-26 the frame address carries a token, the feature and the dark flag; the token reads the export', async () => {
    expect((await call('GET', '/api/services', { token: a.token })).body.analytics).toBe(true);
    const r = await call('POST', '/api/report/analytics', {
      token: a.token,
      body: { feature: 'omnichannel', dark: true },
    });
    expect(r.status, r.text).toBe(200);
    const url = new URL(r.body.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://analytics.example.test/embed');
    expect(url.searchParams.get('site')).toBe('acme');
    expect(url.searchParams.get('feature')).toBe('omnichannel');
    expect(url.searchParams.get('dark')).toBe('1');
    const token = url.searchParams.get('token')!;
    expect(token.length).toBeGreaterThanOrEqual(40);
    // The analytics page reads the figures through the export link with it.
    const today = new Date().toISOString().slice(0, 10);
    const csv = await fetch(`${s.url}/api/report/export/${token}/${today}/${today}/60/intervals.csv`);
    expect(csv.status).toBe(200);
    const light = await call('POST', '/api/report/analytics', { token: a.token, body: { feature: 'csat' } });
    expect(new URL(light.body.url).searchParams.get('dark')).toBe('0');
    const bad = await call('POST', '/api/report/analytics', { token: a.token, body: { feature: 'everything' } });
    expect(bad.status).toBe(400);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    expect((await call('POST', '/api/report/analytics', { token: agent.token, body: { feature: 'aux' } })).status).toBe(
      403,
    );
  });
});
