import { type RawBuilder, sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

/**
 * Pre-added report figures, kept beside `report_ticket_facts` in the same transaction as each facts row changes,
 * so a report over a month of a busy account adds up a few thousand rows instead of reading a million:
 *
 * - `report_slots`: per 15 minutes and channel, the conversations made, first answered and resolved in it (the
 *   interval report; 15 minutes divides every report step and every time zone's offset).
 * - `report_periods`: per hour (`period` 'h') and per UTC day ('d') in which conversations were made, per channel
 *   (`dim` 'c'), first assignee ('a') and department ('d', '0' for none), how those conversations went: counts,
 *   the ratings 1-5, and a histogram of their first response and resolution times (the performance and csat
 *   reports). A range adds up its whole UTC days, the whole hours at either end and, for a time zone whose
 *   offset is not whole hours, the conversations of the partial hours from their facts.
 *
 * A facts row's contribution is a pure function of the row: a change of the row takes its old contribution
 * away and adds the new one. `rebuildRollups` works the same figures out from the facts, set-based.
 */

export const SLOT_MS = 15 * 60_000;
export const HOUR_MS = 60 * 60_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * The histogram buckets' upper bounds in ms: under 1 s, then ten steps a decade (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6,
 * 8) from 1 s up to 10^7 s (116 days); the last bucket also takes anything longer. A bucket is at most a third
 * wider than its lower bound, so a percentile read inside one is off by a few percent at most.
 */
const STEPS = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8];
export const BUCKET_BOUNDS: readonly number[] = [
  ...Array.from({ length: 7 }, (_, k) => STEPS.map((s) => Math.round(s * 10 ** k * 1000))).flat(),
  1e10,
];
/** The number of histogram columns per duration (`fr0..`, `rs0..`); migration 0046 makes as many. */
export const BUCKETS = BUCKET_BOUNDS.length;

export function bucketOf(ms: number): number {
  for (let i = 0; i < BUCKETS - 1; i++) if (ms < BUCKET_BOUNDS[i]!) return i;
  return BUCKETS - 1;
}
export const bucketLow = (i: number): number => (i === 0 ? 0 : BUCKET_BOUNDS[i - 1]!);

export const RATINGS = [1, 2, 3, 4, 5] as const;
/** The plain counts of a period row, in column order. */
export const HOUR_COUNTS = [
  'n',
  'answered',
  'resolved',
  'reopened',
  'breached',
  'rated',
  'csat_sum',
  ...RATINGS.map((r) => `r${r}`),
] as const;
export const FR_COLUMNS = Array.from({ length: BUCKETS }, (_, i) => `fr${i}`);
export const RS_COLUMNS = Array.from({ length: BUCKETS }, (_, i) => `rs${i}`);
export const PERIOD_COLUMNS: readonly string[] = [...HOUR_COUNTS, ...FR_COLUMNS, ...RS_COLUMNS];
const SLOT_COLUMNS = ['received', 'answered', 'resolved'] as const;

/** What a facts row contributes from. */
export interface FactsShape {
  channel: string;
  department_id: number | null;
  assignee: string;
  created_at: number;
  first_response_at: number | null;
  first_response_ms: number | null;
  resolved_at: number | null;
  resolution_ms: number | null;
  reopen_count: number;
  sla_breached: number;
  csat: number | null;
}

/** Figures keyed by their row: `slot|channel` for slots, `period|at|dim|k` for periods; column -> amount. */
export interface Rollup {
  slots: Map<string, Map<string, number>>;
  periods: Map<string, Map<string, number>>;
}
export const emptyRollup = (): Rollup => ({ slots: new Map(), periods: new Map() });

function bump(m: Map<string, Map<string, number>>, key: string, column: string, by: number): void {
  const cell = m.get(key) ?? new Map<string, number>();
  m.set(key, cell);
  cell.set(column, (cell.get(column) ?? 0) + by);
}

const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;

/** The dimensions a period row is kept under: channel, first assignee, department ('0' for none). */
export const dimsOf = (f: Pick<FactsShape, 'channel' | 'assignee' | 'department_id'>): [string, string][] => [
  ['c', f.channel],
  ['a', f.assignee],
  ['d', String(f.department_id ?? 0)],
];

/** Adds (sign 1) or takes away (-1) what one facts row contributes. */
export function contribute(r: Rollup, f: FactsShape, sign: 1 | -1): void {
  const slot = (at: number, column: string) => bump(r.slots, `${floorTo(at, SLOT_MS)}|${f.channel}`, column, sign);
  slot(f.created_at, 'received');
  if (f.first_response_at !== null) slot(f.first_response_at, 'answered');
  if (f.resolved_at !== null) slot(f.resolved_at, 'resolved');
  const hour = floorTo(f.created_at, HOUR_MS);
  const day = floorTo(f.created_at, DAY_MS);
  for (const [dim, k] of dimsOf(f)) {
    addFigures(r.periods, `h|${hour}|${dim}|${k}`, f, sign);
    addFigures(r.periods, `d|${day}|${dim}|${k}`, f, sign);
  }
}

/** One conversation's figures into the cell `key` of `m` (a period row, or a report's group). */
export function addFigures(m: Map<string, Map<string, number>>, key: string, f: FactsShape, sign: 1 | -1): void {
  bump(m, key, 'n', sign);
  if (f.first_response_at !== null) bump(m, key, 'answered', sign);
  if (f.resolved_at !== null) bump(m, key, 'resolved', sign);
  if (f.reopen_count > 0) bump(m, key, 'reopened', sign);
  if (f.sla_breached) bump(m, key, 'breached', sign);
  if (f.csat !== null) {
    bump(m, key, 'rated', sign);
    bump(m, key, 'csat_sum', sign * f.csat);
    if ((RATINGS as readonly number[]).includes(f.csat)) bump(m, key, `r${f.csat}`, sign);
  }
  if (f.first_response_ms !== null) bump(m, key, `fr${bucketOf(f.first_response_ms)}`, sign);
  if (f.resolution_ms !== null) bump(m, key, `rs${bucketOf(f.resolution_ms)}`, sign);
}

/** The rollup change from a facts row `before` (null: new) to `after`. */
export function rollupChange(before: FactsShape | null, after: FactsShape): Rollup {
  const r = emptyRollup();
  if (before) contribute(r, before, -1);
  contribute(r, after, 1);
  return r;
}

const nonZero = (cell: Map<string, number>) => [...cell].filter(([, v]) => v !== 0);

/** Writes a change into the account's rollup rows (upserts adding to what is there). */
export async function applyRollup(trx: Trx | DB, accountId: number, r: Rollup): Promise<void> {
  for (const [key, cell] of r.slots) {
    const set = nonZero(cell);
    if (set.length === 0) continue;
    const [slot, channel] = [Number(key.slice(0, key.indexOf('|'))), key.slice(key.indexOf('|') + 1)];
    await upsert(trx, 'report_slots', ['account_id', 'slot', 'channel'], [accountId, slot, channel], set);
  }
  for (const [key, cell] of r.periods) {
    const set = nonZero(cell);
    if (set.length === 0) continue;
    const [period, at, dim] = key.split('|', 3) as [string, string, string];
    const k = key.slice(period.length + at.length + dim.length + 3);
    const keys = ['account_id', 'period', 'at', 'dim', 'k'];
    await upsert(trx, 'report_periods', keys, [accountId, period, Number(at), dim, k], set);
  }
}

async function upsert(
  trx: Trx | DB,
  table: 'report_slots' | 'report_periods',
  keys: string[],
  keyValues: (number | string)[],
  set: [string, number][],
): Promise<void> {
  const columns = [...keys, ...set.map(([c]) => c)];
  const values = [...keyValues, ...set.map(([, v]) => v)];
  await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    values (${sql.join(values.map((v) => sql`${v}`))})
    on conflict (${sql.join(keys.map((c) => sql.ref(c)))}) do update set ${sql.join(
      set.map(([c]) => sql`${sql.ref(c)} = ${sql.ref(`${table}.${c}`)} + ${sql.ref(`excluded.${c}`)}`),
    )}`.execute(trx);
}

/** `sum(...)` of a whole-number SQL expression, typed as a number by both databases. */
const count = (cond: RawBuilder<unknown>) => sql`sum(case when ${cond} then 1 else 0 end)`;

/** For each histogram column, the SQL condition that puts a duration `col` in its bucket. */
function bucketConditions(col: string): RawBuilder<unknown>[] {
  return BUCKET_BOUNDS.map((hi, i) => {
    const lo = bucketLow(i);
    const ref = sql.ref(col);
    if (i === BUCKETS - 1) return sql`${ref} >= ${sql.lit(lo)}`;
    return i === 0 ? sql`${ref} < ${sql.lit(hi)}` : sql`${ref} >= ${sql.lit(lo)} and ${ref} < ${sql.lit(hi)}`;
  });
}

/**
 * Works an account's rollup rows out again from its facts (after facts were written without them: the backfill,
 * a bench's seed), set-based: the rows are replaced in one transaction.
 */
export async function rebuildRollups(db: DB, accountId: number): Promise<void> {
  const acc = sql.lit(accountId);
  const slotOf = (col: string) => sql`(${sql.ref(col)} / ${sql.lit(SLOT_MS)}) * ${sql.lit(SLOT_MS)}`;
  const hourOf = sql`(created_at / ${sql.lit(HOUR_MS)}) * ${sql.lit(HOUR_MS)}`;
  const figures = [
    sql`count(*)`,
    sql`count(first_response_at)`,
    sql`count(resolved_at)`,
    count(sql`reopen_count > 0`),
    sql`sum(sla_breached)`,
    sql`count(csat)`,
    sql`coalesce(sum(csat), 0)`,
    ...RATINGS.map((r) => count(sql`csat = ${sql.lit(r)}`)),
    ...bucketConditions('first_response_ms').map(count),
    ...bucketConditions('resolution_ms').map(count),
  ];
  const keyOf: Record<string, RawBuilder<unknown>> = {
    c: sql`channel`,
    a: sql`assignee`,
    d: sql`cast(coalesce(department_id, 0) as text)`,
  };
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('report_slots').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('report_periods').where('account_id', '=', accountId).execute();
    // Integer division in both databases: the columns are whole numbers.
    const slotRows = (col: string, column: (typeof SLOT_COLUMNS)[number]) =>
      sql`select ${slotOf(col)} as slot, channel,
          ${sql.join(SLOT_COLUMNS.map((c) => sql`${c === column ? sql`count(*)` : sql`0`} as ${sql.ref(c)}`))}
        from report_ticket_facts where account_id = ${acc} and ${sql.ref(col)} is not null
        group by ${slotOf(col)}, channel`;
    await sql`insert into report_slots (account_id, slot, channel, received, answered, resolved)
      select ${acc}, slot, channel, sum(received), sum(answered), sum(resolved) from (
        ${slotRows('created_at', 'received')} union all ${slotRows('first_response_at', 'answered')}
        union all ${slotRows('resolved_at', 'resolved')}) s
      group by slot, channel`.execute(trx);
    const cols = sql.join(PERIOD_COLUMNS.map((c) => sql.ref(c)));
    for (const [dim, key] of Object.entries(keyOf))
      await sql`insert into report_periods (account_id, period, at, dim, k, ${cols})
        select ${acc}, 'h', ${hourOf}, ${sql.lit(dim)}, ${key}, ${sql.join(figures)}
        from report_ticket_facts where account_id = ${acc} group by ${hourOf}, ${key}`.execute(trx);
    // The days are their hours added up.
    await sql`insert into report_periods (account_id, period, at, dim, k, ${cols})
      select ${acc}, 'd', (at / ${sql.lit(DAY_MS)}) * ${sql.lit(DAY_MS)}, dim, k,
        ${sql.join(PERIOD_COLUMNS.map((c) => sql`sum(${sql.ref(c)})`))}
      from report_periods where account_id = ${acc} and period = 'h'
      group by (at / ${sql.lit(DAY_MS)}) * ${sql.lit(DAY_MS)}, dim, k`.execute(trx);
  });
}
