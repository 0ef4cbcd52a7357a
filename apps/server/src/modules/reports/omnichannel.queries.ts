import {
  type AuxAnswer,
  type CsatAnswer,
  ErrorCode,
  type IntervalAnswer,
  type IntervalCounts,
  type IntervalQuery,
  OMNI_STRINGS,
  type Performance,
  type PerformanceAnswer,
  REPORT_GROUP_CHANNELS,
  REPORT_GROUP_NAMES,
  REPORT_GROUPS,
  REPORT_MAX_BUCKETS,
  type ReportGroup,
  type ReportRangeQuery,
  reportGroupOf,
} from '@parley/contracts';
import { type RawBuilder, sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import { type Reader, reportRange } from './reports.queries.js';

const MINUTE_MS = 60_000;

/** `YYYY-MM-DD HH:mm` of an instant in the caller's time (UTC offset `tz` minutes). */
function bucketLabel(ms: number, tz: number): string {
  return new Date(ms + tz * MINUTE_MS).toISOString().slice(0, 16).replace('T', ' ');
}

/** The chart group of a facts row's channel, in SQL (the same mapping as `reportGroupOf`). */
const groupSql: RawBuilder<string> = sql`case ${sql.join(
  REPORT_GROUPS.map(
    (g) => sql`when channel in (${sql.join(REPORT_GROUP_CHANNELS[g].map((c) => sql.lit(c)))}) then ${sql.lit(g)}`,
  ),
  sql` `,
)} else 'other' end`;

/**
 * REPORT-15: per bucket of `interval` minutes from the range's first moment, per chart group, the conversations
 * made, first answered and resolved in it, each counted from its own facts index.
 */
export async function intervalReport(db: DB, who: Reader, q: IntervalQuery, now: number): Promise<IntervalAnswer> {
  const [from, to] = reportRange(q, now);
  const step = q.interval * MINUTE_MS;
  const buckets = Math.ceil((to - from) / step);
  if (buckets > REPORT_MAX_BUCKETS) throw new AppError(400, ErrorCode.validation, OMNI_STRINGS.tooManyBuckets);
  const data: IntervalAnswer['data'] = {};
  for (let i = 0; i < buckets; i++) data[bucketLabel(from + i * step, q.tz)] = {};
  const count = async (column: 'created_at' | 'first_response_at' | 'resolved_at', key: keyof IntervalCounts) => {
    const rows = await db
      .selectFrom('report_ticket_facts')
      .select([
        sql<number>`(${sql.ref(column)} - ${sql.lit(from)}) / ${sql.lit(step)}`.as('bucket'),
        'channel',
        (eb) => eb.fn.countAll<number>().as('n'),
      ])
      .where('account_id', '=', who.accountId)
      .where(column, '>=', from)
      .where(column, '<', to)
      .groupBy([sql`(${sql.ref(column)} - ${sql.lit(from)}) / ${sql.lit(step)}`, 'channel'])
      .execute();
    for (const r of rows) {
      const group = reportGroupOf(r.channel);
      if (!group) continue;
      const label = bucketLabel(from + Math.floor(Number(r.bucket)) * step, q.tz);
      const cell = data[label];
      if (!cell) continue;
      cell[group] ??= { received: 0, answered: 0, resolved: 0 };
      cell[group][key] += Number(r.n);
    }
  };
  await count('created_at', 'received');
  await count('first_response_at', 'answered');
  await count('resolved_at', 'resolved');
  return { result: 'success', interval: q.interval, data };
}

/**
 * REPORT-17: each user's time in each status within the range, from the status periods (a period still going
 * runs to now). Users of the account only; the server's own account user is not in `users` so cannot appear.
 */
export async function auxReport(db: DB, who: Reader, q: ReportRangeQuery, now: number): Promise<AuxAnswer> {
  const [from, to] = reportRange(q, now);
  const end = Math.min(to, now);
  const rows = await db
    .selectFrom('status_periods as p')
    .innerJoin('users as u', (j) => j.onRef('u.id', '=', 'p.user_id').onRef('u.account_id', '=', 'p.account_id'))
    .select(['u.username', 'u.name', 'p.status', 'p.started_at', 'p.ended_at'])
    .where('p.account_id', '=', who.accountId)
    .where('p.started_at', '<', end)
    .where((eb) => eb.or([eb('p.ended_at', 'is', null), eb('p.ended_at', '>', from)]))
    .execute();
  const data: AuxAnswer['data'] = {};
  for (const r of rows) {
    const spent = Math.min(r.ended_at === null ? end : Number(r.ended_at), end) - Math.max(Number(r.started_at), from);
    if (spent <= 0) continue;
    data[r.username] ??= { name: r.name || r.username, statuses: {} };
    const statuses = data[r.username]!.statuses;
    statuses[r.status] = (statuses[r.status] ?? 0) + spent;
  }
  return { result: 'success', data };
}

/** REPORT-19: the ratings of the conversations made in the range, by chart group and by agent. */
export async function csatReport(db: DB, who: Reader, q: ReportRangeQuery, now: number): Promise<CsatAnswer> {
  const [from, to] = reportRange(q, now);
  const rows = await db
    .selectFrom('report_ticket_facts')
    .select(['channel', 'assignee', 'csat', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', who.accountId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .where('csat', 'is not', null)
    .groupBy(['channel', 'assignee', 'csat'])
    .execute();
  const data: CsatAnswer['data'] = {};
  const agents: CsatAnswer['agents'] = {};
  let sum = 0;
  let count = 0;
  for (const r of rows) {
    const group = reportGroupOf(r.channel);
    if (!group) continue;
    const rating = String(r.csat);
    const n = Number(r.n);
    data[group] ??= {};
    agents[r.assignee] ??= {};
    for (const counts of [data[group]!, agents[r.assignee]!]) counts[rating] = (counts[rating] ?? 0) + n;
    sum += Number(r.csat) * n;
    count += n;
  }
  return { result: 'success', data, agents, average: count ? sum / count : null, count };
}

/**
 * Per key (everything, a chart group, an agent, a team): counts, sums and the nearest-rank p50 and p90 of the
 * first response and resolution times, in one pass with window functions (both databases have them).
 */
async function performanceBy(
  db: DB,
  accountId: number,
  from: number,
  to: number,
  key: RawBuilder<string>,
): Promise<Map<string, Omit<Performance, 'name'>>> {
  // Whole numbers of our own making, written into the statement so both databases type them as integers.
  const base = sql`from report_ticket_facts where account_id = ${sql.lit(accountId)} and created_at >= ${sql.lit(from)} and created_at < ${sql.lit(to)}`;
  const percentiles = (col: string) => sql<{ k: string; p50: number | null; p90: number | null }>`
    select k, min(case when rn * 100 >= cnt * 50 then v end) as p50, min(case when rn * 100 >= cnt * 90 then v end) as p90
    from (select ${key} as k, ${sql.ref(col)} as v,
            row_number() over (partition by ${key} order by ${sql.ref(col)}) as rn,
            count(*) over (partition by ${key}) as cnt
          ${base} and ${sql.ref(col)} is not null) s
    group by k`;
  const totals = await sql<{
    k: string;
    n: number;
    answered: number;
    resolved: number;
    reopened: number;
    breached: number;
    rated: number;
    csat: number | null;
  }>`select ${key} as k, count(*) as n, count(first_response_at) as answered, count(resolved_at) as resolved,
       sum(case when reopen_count > 0 then 1 else 0 end) as reopened, sum(sla_breached) as breached,
       count(csat) as rated, sum(csat) as csat
     ${base} group by ${key}`.execute(db);
  const fr = await percentiles('first_response_ms').execute(db);
  const res = await percentiles('resolution_ms').execute(db);
  const out = new Map<string, Omit<Performance, 'name'>>();
  for (const r of totals.rows) {
    const n = Number(r.n);
    const rated = Number(r.rated);
    out.set(String(r.k), {
      conversations: n,
      answered: Number(r.answered),
      resolved: Number(r.resolved),
      reopened: Number(r.reopened),
      firstResponseP50: null,
      firstResponseP90: null,
      resolutionP50: null,
      resolutionP90: null,
      slaMet: n ? (n - Number(r.breached)) / n : null,
      csat: rated ? Number(r.csat) / rated : null,
      rated,
    });
  }
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  for (const r of fr.rows) {
    const p = out.get(String(r.k));
    if (p) [p.firstResponseP50, p.firstResponseP90] = [num(r.p50), num(r.p90)];
  }
  for (const r of res.rows) {
    const p = out.get(String(r.k));
    if (p) [p.resolutionP50, p.resolutionP90] = [num(r.p50), num(r.p90)];
  }
  return out;
}

const EMPTY: Omit<Performance, 'name'> = {
  conversations: 0,
  answered: 0,
  resolved: 0,
  reopened: 0,
  firstResponseP50: null,
  firstResponseP90: null,
  resolutionP50: null,
  resolutionP90: null,
  slaMet: null,
  csat: null,
  rated: 0,
};

/**
 * How the conversations made in the range went: in all, by chart group, by agent (the first assignee) and by
 * team (the department), with display names.
 */
export async function performanceReport(
  db: DB,
  who: Reader,
  q: ReportRangeQuery,
  now: number,
): Promise<PerformanceAnswer> {
  const [from, to] = reportRange(q, now);
  const all = await performanceBy(db, who.accountId, from, to, sql<string>`cast('all' as text)`);
  const groups = await performanceBy(db, who.accountId, from, to, groupSql);
  const agents = await performanceBy(db, who.accountId, from, to, sql<string>`assignee`);
  const teams = await performanceBy(db, who.accountId, from, to, sql<string>`cast(coalesce(department_id, 0) as text)`);
  const users = await db
    .selectFrom('users')
    .select(['username', 'name'])
    .where('account_id', '=', who.accountId)
    .execute();
  const userName = new Map(users.map((u) => [u.username, u.name || u.username]));
  const departments = await db
    .selectFrom('departments')
    .select(['id', 'name'])
    .where('account_id', '=', who.accountId)
    .execute();
  const teamName = new Map(departments.map((d) => [String(d.id), d.name]));
  const named = (m: Map<string, Omit<Performance, 'name'>>, name: (k: string) => string) =>
    Object.fromEntries([...m].map(([k, p]) => [k, { name: name(k), ...p }]));
  return {
    result: 'success',
    total: { name: 'all', ...(all.get('all') ?? EMPTY) },
    groups: named(groups, (k) => REPORT_GROUP_NAMES[k as ReportGroup] ?? k),
    agents: named(agents, (k) => (k === '' ? OMNI_STRINGS.unassigned : (userName.get(k) ?? k))),
    teams: named(teams, (k) => (k === '0' ? OMNI_STRINGS.noTeam : (teamName.get(k) ?? k))),
  };
}
