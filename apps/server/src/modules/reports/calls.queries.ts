import { CALL_REPORT_STRINGS, type CallFigures, type CallReportAnswer, type ReportRangeQuery } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { type Reader, reportRange } from './reports.queries.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** One stored call as the report reads it. */
export interface CallRow {
  id: number;
  ticketId: number;
  ticketNumber: number;
  startedAt: number;
  ended: boolean;
  duration: number;
  direction: string;
  number: string;
  did: string;
  recorded: boolean;
  username: string;
  name: string;
}

/**
 * The account's calls started in the range, oldest first, with their ticket's direction, number and DID and
 * the user who took or made them. Reads `calls` (kept by the call commands as calls start and end) joined to
 * their CALL ticket; never messages or transcripts.
 */
export async function callRows(
  db: DB,
  who: Reader,
  from: number,
  to: number,
  after: [number, number] = [from - 1, 0],
  limit = 5_000,
): Promise<CallRow[]> {
  const [at, id] = after;
  const rows = await db
    .selectFrom('calls as c')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'c.ticket_id').onRef('t.account_id', '=', 'c.account_id'))
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'c.user_id').onRef('u.account_id', '=', 'c.account_id'))
    .select([
      'c.id',
      'c.ticket_id',
      't.ticket_number',
      'c.started_at',
      'c.ended_at',
      'c.duration',
      't.call_direction',
      't.phone',
      't.did',
      'c.recording_key',
      'u.username',
      'u.name',
    ])
    .where('c.account_id', '=', who.accountId)
    .where('c.started_at', '>=', from)
    .where('c.started_at', '<', to)
    .where((eb) => eb.or([eb('c.started_at', '>', at), eb.and([eb('c.started_at', '=', at), eb('c.id', '>', id)])]))
    .orderBy('c.started_at')
    .orderBy('c.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    ticketId: Number(r.ticket_id),
    ticketNumber: Number(r.ticket_number),
    startedAt: Number(r.started_at),
    ended: r.ended_at !== null,
    duration: Number(r.duration),
    direction: r.call_direction === 'outbound' ? 'outbound' : 'inbound',
    number: r.phone ?? '',
    did: r.did ?? '',
    recorded: Boolean(r.recording_key),
    username: r.username ?? '',
    name: r.name || r.username || '',
  }));
}

const empty = (): CallFigures => ({
  calls: 0,
  inbound: 0,
  outbound: 0,
  answered: 0,
  missed: 0,
  talkSeconds: 0,
  averageSeconds: null,
  longestSeconds: 0,
  recorded: 0,
});

/** Adds one call to a set's figures (the average is worked out at the end). */
function add(f: CallFigures, c: CallRow): void {
  f.calls++;
  if (c.direction === 'outbound') f.outbound++;
  else f.inbound++;
  if (c.duration > 0) f.answered++;
  else if (c.direction === 'inbound' && c.ended) f.missed++;
  f.talkSeconds += c.duration;
  f.longestSeconds = Math.max(f.longestSeconds, c.duration);
  if (c.recorded) f.recorded++;
}
const finish = (f: CallFigures): CallFigures => ({
  ...f,
  averageSeconds: f.answered > 0 ? Math.round((f.talkSeconds / f.answered) * 10) / 10 : null,
});

/**
 * The call report over the range (REPORT-03, design): totals, each day of the caller's time (quiet days too),
 * per agent and per DID. A call is **answered** when it has talk time (duration over 0) and **missed** when an
 * inbound call ended without any; a call still going counts as a call and nothing else. Range rules as the
 * other reports: YYYY-MM-DD days, both included, the end not after today, in the caller's `tz`.
 */
export async function callReport(db: DB, who: Reader, q: ReportRangeQuery, now: number): Promise<CallReportAnswer> {
  const [from, to] = reportRange(q, now);
  const dayOf = (ms: number) => new Date(ms + q.tz * MINUTE_MS).toISOString().slice(0, 10);
  const days = new Map<string, CallReportAnswer['days'][number]>();
  for (let at = from; at < to; at += DAY_MS) {
    const day = dayOf(at);
    days.set(day, { day, inbound: 0, outbound: 0, answered: 0, missed: 0 });
  }
  const total = empty();
  const agents = new Map<string, CallFigures & { username: string; name: string }>();
  const dids = new Map<string, CallFigures & { did: string; description: string }>();
  // Read a page of 5,000 at a time by key, so a busy month never sits in memory at once.
  const PAGE = 5_000;
  let after: [number, number] = [from - 1, 0];
  for (;;) {
    const page = await callRows(db, who, from, to, after, PAGE);
    for (const c of page) {
      add(total, c);
      const d = days.get(dayOf(c.startedAt));
      if (d) {
        if (c.direction === 'outbound') d.outbound++;
        else d.inbound++;
        if (c.duration > 0) d.answered++;
        else if (c.direction === 'inbound' && c.ended) d.missed++;
      }
      let a = agents.get(c.username);
      if (!a) {
        a = { ...empty(), username: c.username, name: c.name || CALL_REPORT_STRINGS.unassigned };
        agents.set(c.username, a);
      }
      add(a, c);
      let n = dids.get(c.did);
      if (!n) {
        n = { ...empty(), did: c.did, description: '' };
        dids.set(c.did, n);
      }
      add(n, c);
    }
    if (page.length < PAGE) break;
    const last = page[page.length - 1]!;
    after = [last.startedAt, last.id];
  }
  if (dids.size > 0) {
    const described = await db
      .selectFrom('call_dids')
      .select(['did', 'description'])
      .where('account_id', '=', who.accountId)
      .where('did', 'in', [...dids.keys()])
      .execute();
    for (const r of described) {
      const n = dids.get(r.did);
      if (n) n.description = r.description;
    }
  }
  const byCalls = <T extends CallFigures>(x: T, y: T) => y.calls - x.calls;
  return {
    result: 'success',
    total: finish(total),
    days: [...days.values()],
    agents: [...agents.values()].map((a) => ({ ...finish(a), username: a.username, name: a.name })).sort(byCalls),
    dids: [...dids.values()].map((d) => ({ ...finish(d), did: d.did, description: d.description })).sort(byCalls),
  };
}
