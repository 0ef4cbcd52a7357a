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
  REPORT_GROUP_NAMES,
  REPORT_MAX_BUCKETS,
  type ReportGroup,
  type ReportRangeQuery,
  reportGroupOf,
} from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import { type Reader, reportRange } from './reports.queries.js';
import {
  addFigures,
  BUCKET_BOUNDS,
  BUCKETS,
  bucketLow,
  DAY_MS,
  dimsOf,
  type FactsShape,
  HOUR_MS,
  PERIOD_COLUMNS,
  RATINGS,
  SLOT_MS,
} from './rollups.js';

const MINUTE_MS = 60_000;

/** `YYYY-MM-DD HH:mm` of an instant in the caller's time (UTC offset `tz` minutes). */
function bucketLabel(ms: number, tz: number): string {
  return new Date(ms + tz * MINUTE_MS).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * REPORT-15: per bucket of `interval` minutes from the range's first moment, per chart group, the conversations
 * made, first answered and resolved in it: the 15-minute rollup rows added up (a time zone whose offset is not a
 * whole quarter hour counts from the facts).
 */
export async function intervalReport(db: DB, who: Reader, q: IntervalQuery, now: number): Promise<IntervalAnswer> {
  const [from, to] = reportRange(q, now);
  const step = q.interval * MINUTE_MS;
  const buckets = Math.ceil((to - from) / step);
  if (buckets > REPORT_MAX_BUCKETS) throw new AppError(400, ErrorCode.validation, OMNI_STRINGS.tooManyBuckets);
  const data: IntervalAnswer['data'] = {};
  for (let i = 0; i < buckets; i++) data[bucketLabel(from + i * step, q.tz)] = {};
  const add = (bucket: unknown, channel: string, key: keyof IntervalCounts, n: unknown) => {
    const group = reportGroupOf(channel);
    if (!group) return;
    const cell = data[bucketLabel(from + Math.floor(Number(bucket)) * step, q.tz)];
    if (!cell) return;
    cell[group] ??= { received: 0, answered: 0, resolved: 0 };
    cell[group][key] += Number(n);
  };
  if (from % SLOT_MS === 0) {
    const bucket = sql<number>`(slot - ${sql.lit(from)}) / ${sql.lit(step)}`;
    const rows = await db
      .selectFrom('report_slots')
      .select([
        bucket.as('bucket'),
        'channel',
        (eb) => eb.fn.sum<number>('received').as('received'),
        (eb) => eb.fn.sum<number>('answered').as('answered'),
        (eb) => eb.fn.sum<number>('resolved').as('resolved'),
      ])
      .where('account_id', '=', who.accountId)
      .where('slot', '>=', from)
      .where('slot', '<', to)
      .groupBy([bucket, 'channel'])
      .execute();
    for (const r of rows)
      for (const key of ['received', 'answered', 'resolved'] as const) add(r.bucket, r.channel, key, r[key]);
    return { result: 'success', interval: q.interval, data };
  }
  const count = async (column: 'created_at' | 'first_response_at' | 'resolved_at', key: keyof IntervalCounts) => {
    const bucket = sql<number>`(${sql.ref(column)} - ${sql.lit(from)}) / ${sql.lit(step)}`;
    const rows = await db
      .selectFrom('report_ticket_facts')
      .select([bucket.as('bucket'), 'channel', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', who.accountId)
      .where(column, '>=', from)
      .where(column, '<', to)
      .groupBy([bucket, 'channel'])
      .execute();
    for (const r of rows) add(r.bucket, r.channel, key, r.n);
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

type Figures = Map<string, number>;

/**
 * The figures of the conversations made in [from, to), under each `dim|k` of the period rollups: the whole UTC
 * days' rows and the whole hours' rows at either end added up by the database, and the conversations of a
 * partial hour at either end (a time zone whose offset is not whole hours) added from their facts.
 */
async function figuresIn(
  db: DB,
  accountId: number,
  from: number,
  to: number,
  columns: readonly string[] = PERIOD_COLUMNS,
): Promise<Map<string, Figures>> {
  const h0 = Math.min(Math.ceil(from / HOUR_MS) * HOUR_MS, to);
  const h1 = Math.max(Math.floor(to / HOUR_MS) * HOUR_MS, h0);
  let d0 = Math.ceil(h0 / DAY_MS) * DAY_MS;
  let d1 = Math.floor(h1 / DAY_MS) * DAY_MS;
  if (d0 >= d1) [d0, d1] = [h1, h1];
  const out = new Map<string, Figures>();
  if (h0 < h1) {
    const rows = await sql<Record<string, unknown> & { dim: string; k: string }>`
      select dim, k, ${sql.join(columns.map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))}
      from report_periods where account_id = ${sql.lit(accountId)} and (
        (period = 'd' and at >= ${sql.lit(d0)} and at < ${sql.lit(d1)})
        or (period = 'h' and at >= ${sql.lit(h0)} and at < ${sql.lit(d0)})
        or (period = 'h' and at >= ${sql.lit(d1)} and at < ${sql.lit(h1)}))
      group by dim, k`.execute(db);
    for (const r of rows.rows) {
      const cell: Figures = new Map();
      for (const c of columns) {
        const v = Number(r[c] ?? 0);
        if (v !== 0) cell.set(c, v);
      }
      out.set(`${r.dim}|${r.k}`, cell);
    }
  }
  if (from < h0 || h1 < to) {
    const edges = (await factsRows(db, accountId, from, to)).filter((f) => f.created_at < h0 || f.created_at >= h1);
    for (const f of edges) for (const [dim, k] of dimsOf(f)) addFigures(out, `${dim}|${k}`, f, 1);
  }
  return out;
}

/** The facts rows of the conversations made in [from, to), as numbers. */
async function factsRows(db: DB, accountId: number, from: number, to: number): Promise<FactsShape[]> {
  const rows = await db
    .selectFrom('report_ticket_facts')
    .select([
      'channel',
      'department_id',
      'assignee',
      'created_at',
      'first_response_at',
      'first_response_ms',
      'resolved_at',
      'resolution_ms',
      'reopen_count',
      'sla_breached',
      'csat',
    ])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .execute();
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => ({
    channel: r.channel,
    department_id: n(r.department_id),
    assignee: r.assignee,
    created_at: Number(r.created_at),
    first_response_at: n(r.first_response_at),
    first_response_ms: n(r.first_response_ms),
    resolved_at: n(r.resolved_at),
    resolution_ms: n(r.resolution_ms),
    reopen_count: Number(r.reopen_count),
    sla_breached: Number(r.sla_breached),
    csat: n(r.csat),
  }));
}

/** Folds the figures of one dimension into cells keyed by `keyOf(k)` (null: left out); empty cells go. */
function fold(all: Map<string, Figures>, dim: string, keyOf: (k: string) => string | null): Map<string, Figures> {
  const out = new Map<string, Figures>();
  for (const [key, cell] of all) {
    if (!key.startsWith(`${dim}|`)) continue;
    const k = keyOf(key.slice(dim.length + 1));
    if (k === null) continue;
    const into = out.get(k) ?? new Map<string, number>();
    out.set(k, into);
    for (const [c, v] of cell) into.set(c, (into.get(c) ?? 0) + v);
  }
  for (const [k, cell] of out) if (!cell.get('n')) out.delete(k);
  return out;
}

const CSAT_COLUMNS = ['n', 'rated', 'csat_sum', ...RATINGS.map((r) => `r${r}`)];

/** REPORT-19: the ratings of the conversations made in the range, by chart group and by agent. */
export async function csatReport(db: DB, who: Reader, q: ReportRangeQuery, now: number): Promise<CsatAnswer> {
  const [from, to] = reportRange(q, now);
  const figures = await figuresIn(db, who.accountId, from, to, CSAT_COLUMNS);
  const ratings = (cell: Figures) => {
    const counts: Record<string, number> = {};
    for (const r of RATINGS) if (cell.get(`r${r}`)) counts[String(r)] = cell.get(`r${r}`)!;
    return counts;
  };
  const data: CsatAnswer['data'] = {};
  const agents: CsatAnswer['agents'] = {};
  let sum = 0;
  let count = 0;
  for (const [group, cell] of fold(figures, 'c', reportGroupOf)) {
    if (!cell.get('rated')) continue;
    data[group] = ratings(cell);
    sum += cell.get('csat_sum') ?? 0;
    count += cell.get('rated') ?? 0;
  }
  for (const [agent, cell] of fold(figures, 'a', (k) => k)) if (cell.get('rated')) agents[agent] = ratings(cell);
  return { result: 'success', data, agents, average: count ? sum / count : null, count };
}

/**
 * Up to this many conversations in a range, the performance report's percentiles are exact (nearest rank over
 * the conversations' own times, read from their facts); over it they are read from the period rollups' histograms,
 * within a few percent, and the answer says `estimated`.
 */
export const EXACT_PERCENTILES_UP_TO = 20_000;

/** Nearest-rank percentile `p` of sorted values. */
const nearestRank = (sorted: number[], p: number): number | null =>
  sorted.length ? sorted[Math.max(0, Math.ceil((sorted.length * p) / 100) - 1)]! : null;

/** Percentile `p` read from a histogram (`fr` or `rs` columns): the nearest rank's place inside its bucket. */
function fromHistogram(cell: Figures, prefix: 'fr' | 'rs', p: number): number | null {
  let total = 0;
  for (let i = 0; i < BUCKETS; i++) total += cell.get(`${prefix}${i}`) ?? 0;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((total * p) / 100));
  let before = 0;
  for (let i = 0; i < BUCKETS; i++) {
    const c = cell.get(`${prefix}${i}`) ?? 0;
    if (before + c >= rank) {
      const lo = bucketLow(i);
      const hi = i === BUCKETS - 1 ? lo : BUCKET_BOUNDS[i]!;
      return Math.round(lo + ((hi - lo) * (rank - before - 0.5)) / c);
    }
    before += c;
  }
  return null;
}

function performanceOf(cell: Figures): Omit<Performance, 'name'> {
  const get = (c: string) => cell.get(c) ?? 0;
  const n = get('n');
  const rated = get('rated');
  return {
    conversations: n,
    answered: get('answered'),
    resolved: get('resolved'),
    reopened: get('reopened'),
    firstResponseP50: fromHistogram(cell, 'fr', 50),
    firstResponseP90: fromHistogram(cell, 'fr', 90),
    resolutionP50: fromHistogram(cell, 'rs', 50),
    resolutionP90: fromHistogram(cell, 'rs', 90),
    slaMet: n ? (n - get('breached')) / n : null,
    csat: rated ? get('csat_sum') / rated : null,
    rated,
  };
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
  o: { exactUpTo?: number } = {},
): Promise<PerformanceAnswer> {
  const [from, to] = reportRange(q, now);
  const figures = await figuresIn(db, who.accountId, from, to);
  const perf = (m: Map<string, Figures>) => new Map([...m].map(([k, cell]) => [k, performanceOf(cell)]));
  const sets = {
    all: perf(fold(figures, 'c', () => 'all')),
    groups: perf(fold(figures, 'c', (k) => reportGroupOf(k) ?? 'other')),
    agents: perf(fold(figures, 'a', (k) => k)),
    teams: perf(fold(figures, 'd', (k) => k)),
  };
  const count = sets.all.get('all')?.conversations ?? 0;
  const estimated = count > (o.exactUpTo ?? EXACT_PERCENTILES_UP_TO);
  if (!estimated && count > 0) {
    // Each conversation's own times, per set and key, for the exact nearest ranks.
    const times = new Map<string, { fr: number[]; rs: number[] }>();
    for (const f of await factsRows(db, who.accountId, from, to)) {
      const keys = [
        'all|all',
        `groups|${reportGroupOf(f.channel) ?? 'other'}`,
        `agents|${f.assignee}`,
        `teams|${f.department_id ?? 0}`,
      ];
      for (const key of keys) {
        const t = times.get(key) ?? { fr: [], rs: [] };
        times.set(key, t);
        if (f.first_response_ms !== null) t.fr.push(f.first_response_ms);
        if (f.resolution_ms !== null) t.rs.push(f.resolution_ms);
      }
    }
    for (const [name, m] of Object.entries(sets))
      for (const [k, p] of m) {
        const t = times.get(`${name}|${k}`);
        const fr = (t?.fr ?? []).sort((x, y) => x - y);
        const rs = (t?.rs ?? []).sort((x, y) => x - y);
        [p.firstResponseP50, p.firstResponseP90] = [nearestRank(fr, 50), nearestRank(fr, 90)];
        [p.resolutionP50, p.resolutionP90] = [nearestRank(rs, 50), nearestRank(rs, 90)];
      }
  }
  const { all, groups, agents, teams } = sets;
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
    estimated,
    total: { name: 'all', ...(all.get('all') ?? EMPTY) },
    groups: named(groups, (k) => REPORT_GROUP_NAMES[k as ReportGroup] ?? k),
    agents: named(agents, (k) => (k === '' ? OMNI_STRINGS.unassigned : (userName.get(k) ?? k))),
    teams: named(teams, (k) => (k === '0' ? OMNI_STRINGS.noTeam : (teamName.get(k) ?? k))),
  };
}
