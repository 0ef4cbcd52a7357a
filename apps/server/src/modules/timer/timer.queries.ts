import { TIMER_LIMITS, type TimeEntry, type TimeTotal, WORKSPACE_CHANNEL } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

type Db = DB | Trx;

/** A range of days (YYYY-MM-DD, both included), for one agent or everyone. */
export interface TimeRange {
  from: string;
  to: string;
  userId?: number;
}

/** Entries joined to their ticket (of the same account, never a Workspace chat) and their agent. */
function entries(db: Db, accountId: number) {
  return db
    .selectFrom('time_entries as e')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'e.ticket_id').onRef('t.account_id', '=', 'e.account_id'))
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'e.user_id').onRef('u.account_id', '=', 'e.account_id'))
    .where('e.account_id', '=', accountId)
    .where('t.channel', '<>', WORKSPACE_CHANNEL);
}

const entryColumns = [
  'e.id',
  'e.ticket_id',
  'e.user_id',
  'e.work_day',
  'e.started_at',
  'e.ended_at',
  'e.seconds',
  'e.note',
  'e.source',
  't.ticket_number',
  't.title',
  'u.name',
  'u.username',
] as const;

type Row = {
  id: number;
  ticket_id: number;
  user_id: number;
  work_day: string;
  started_at: number;
  ended_at: number | null;
  seconds: number;
  note: string;
  source: string;
  ticket_number: number;
  title: string;
  name: string | null;
  username: string | null;
};

const toEntry = (r: Row): TimeEntry => ({
  id: Number(r.id),
  ticket_id: Number(r.ticket_id),
  ticket_number: Number(r.ticket_number),
  subject: r.title,
  user_id: Number(r.user_id),
  user: r.name || r.username || '',
  day: r.work_day,
  started_at: Number(r.started_at),
  ended_at: r.ended_at === null ? null : Number(r.ended_at),
  seconds: Number(r.seconds),
  note: r.note,
  source: r.source === 'manual' ? 'manual' : 'timer',
  running: r.ended_at === null,
});

/** One entry of the account; undefined for any other id. */
export async function timeEntry(db: Db, accountId: number, id: number): Promise<TimeEntry | undefined> {
  const r = await entries(db, accountId).select(entryColumns).where('e.id', '=', id).executeTakeFirst();
  return r ? toEntry(r as Row) : undefined;
}

/** The user's running timer, wherever it runs. */
export async function runningEntry(db: Db, accountId: number, userId: number): Promise<TimeEntry | undefined> {
  const r = await entries(db, accountId)
    .select(entryColumns)
    .where('e.user_id', '=', userId)
    .where('e.ended_at', 'is', null)
    .executeTakeFirst();
  return r ? toEntry(r as Row) : undefined;
}

/** A ticket's entries, newest first, and everyone's finished time on it. */
export async function ticketTime(db: Db, accountId: number, ticketId: number) {
  const rows = await entries(db, accountId)
    .select(entryColumns)
    .where('e.ticket_id', '=', ticketId)
    .orderBy('e.work_day', 'desc')
    .orderBy('e.id', 'desc')
    .limit(200)
    .execute();
  const sum = await db
    .selectFrom('time_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('seconds'), eb.lit(0)).as('s'))
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .executeTakeFirst();
  return { entries: rows.map((r) => toEntry(r as Row)), total: Number(sum?.s ?? 0) };
}

/** The range's entries, newest day first (at most TIMER_LIMITS.entries, one more to tell there are more). */
export async function timeEntries(db: Db, accountId: number, range: TimeRange) {
  let q = entries(db, accountId)
    .select(entryColumns)
    .where('e.work_day', '>=', range.from)
    .where('e.work_day', '<=', range.to);
  if (range.userId !== undefined) q = q.where('e.user_id', '=', range.userId);
  const rows = await q
    .orderBy('e.work_day', 'desc')
    .orderBy('e.id', 'desc')
    .limit(TIMER_LIMITS.entries + 1)
    .execute();
  return {
    entries: rows.slice(0, TIMER_LIMITS.entries).map((r) => toEntry(r as Row)),
    truncated: rows.length > TIMER_LIMITS.entries,
  };
}

/**
 * The time tracked per agent over a range of days: finished entries only, most time first. The one query
 * of these totals: `/timer` shows it, and a report wanting time per agent reads it with its own range.
 */
export async function timeTotals(db: Db, accountId: number, range: TimeRange): Promise<TimeTotal[]> {
  let q = entries(db, accountId)
    .select((eb) => [
      'e.user_id',
      eb.fn.max('u.name').as('name'),
      eb.fn.max('u.username').as('username'),
      eb.fn.sum<number>('e.seconds').as('seconds'),
      eb.fn.countAll<number>().as('n'),
    ])
    .where('e.work_day', '>=', range.from)
    .where('e.work_day', '<=', range.to)
    .where('e.ended_at', 'is not', null);
  if (range.userId !== undefined) q = q.where('e.user_id', '=', range.userId);
  const rows = await q.groupBy('e.user_id').execute();
  return rows
    .map((r) => ({
      user_id: Number(r.user_id),
      user: r.name || r.username || '',
      seconds: Number(r.seconds ?? 0),
      entries: Number(r.n),
    }))
    .sort((a, b) => b.seconds - a.seconds || a.user.localeCompare(b.user));
}
