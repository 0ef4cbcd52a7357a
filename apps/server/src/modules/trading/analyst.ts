import {
  type AnalystAnswer,
  type InsightAnswer,
  type InsightRow,
  type MentionsAnswer,
  TRADING_STRINGS as S,
  TRADING_LIMITS,
  TRADING_MENTION_PAGE,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { badRequest } from '../../platform/http/errors.js';
import { instrumentOf, listInstruments } from './instruments.js';
import { dayOf } from './read.js';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;

const msOf = (day: string) => {
  const ms = Date.parse(`${day}T00:00:00Z`);
  // 2026-02-31 parses to March: a day must read back as itself.
  if (Number.isNaN(ms) || dayOf(ms) !== day) throw badRequest(S.badDay);
  return ms;
};

/** A range of UTC days, inclusive: the last 30 days to today when not given; 400 when it makes no sense. */
export function rangeOf(
  q: { from?: string; to?: string },
  now = Date.now(),
): { from: string; to: string; days: string[] } {
  const toMs = q.to ? msOf(q.to) : msOf(dayOf(now));
  const fromMs = q.from ? msOf(q.from) : toMs - (DEFAULT_DAYS - 1) * DAY_MS;
  const n = Math.round((toMs - fromMs) / DAY_MS) + 1;
  if (n < 1 || n > TRADING_LIMITS.rangeDays) throw badRequest(S.badRange);
  const days = Array.from({ length: n }, (_, i) => dayOf(fromMs + i * DAY_MS));
  return { from: days[0]!, to: days[n - 1]!, days };
}

const avg = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v)));

/** `/analyst_intelligence`: one instrument's mentions and sentiment per UTC day and channel in a range. */
export async function analyst(
  db: DB,
  accountId: number,
  q: { instrument: number; from?: string; to?: string },
  now?: number,
): Promise<Omit<AnalystAnswer, 'result'>> {
  const r = rangeOf(q, now);
  const instrument = await instrumentOf(db, accountId, q.instrument);
  const rows = await db
    .selectFrom('trading_mentions')
    .select((e) => ['day', 'channel', e.fn.countAll().as('n'), e.fn.sum<number>('sentiment').as('s')])
    .where('account_id', '=', accountId)
    .where('instrument_id', '=', q.instrument)
    .where('day', '>=', r.from)
    .where('day', '<=', r.to)
    .groupBy(['day', 'channel'])
    .orderBy('day')
    .orderBy('channel')
    .execute();
  const buckets = rows.map((x) => ({
    day: x.day,
    channel: x.channel,
    mentions: Number(x.n),
    sentiment: Math.round(Number(x.s) / Number(x.n)),
  }));
  const perDay = new Map<string, { n: number; s: number }>();
  const perChannel = new Map<string, { n: number; s: number }>();
  for (const x of rows) {
    for (const [map, key] of [
      [perDay, x.day],
      [perChannel, x.channel],
    ] as const) {
      const t = map.get(key) ?? { n: 0, s: 0 };
      t.n += Number(x.n);
      t.s += Number(x.s);
      map.set(key, t);
    }
  }
  const total = rows.reduce((a, x) => a + Number(x.n), 0);
  const sum = rows.reduce((a, x) => a + Number(x.s), 0);
  return {
    instrument,
    from: r.from,
    to: r.to,
    days: r.days.map((day) => {
      const t = perDay.get(day);
      return { day, mentions: t?.n ?? 0, sentiment: t ? Math.round(t.s / t.n) : null };
    }),
    buckets,
    channels: [...perChannel.entries()]
      .map(([channel, t]) => ({ channel, mentions: t.n, sentiment: Math.round(t.s / t.n) }))
      .sort((a, b) => b.mentions - a.mentions || a.channel.localeCompare(b.channel)),
    total,
    sentiment: total > 0 ? Math.round(sum / total) : null,
  };
}

/** `/analyst_intelligence/:channel/:id`: the mentions of one instrument on one channel, newest first. */
export async function mentionsOf(
  db: DB,
  accountId: number,
  p: { channel: string; id: number },
  q: { from?: string; to?: string; offset: number },
  now?: number,
): Promise<Omit<MentionsAnswer, 'result'>> {
  const r = rangeOf(q, now);
  const instrument = await instrumentOf(db, accountId, p.id);
  const base = () =>
    db
      .selectFrom('trading_mentions as x')
      .innerJoin('messages as m', (j) => j.onRef('m.id', '=', 'x.message_id').on('m.account_id', '=', accountId))
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'x.ticket_id').on('t.account_id', '=', accountId))
      .where('x.account_id', '=', accountId)
      .where('x.instrument_id', '=', p.id)
      .where('x.channel', '=', p.channel)
      .where('x.day', '>=', r.from)
      .where('x.day', '<=', r.to)
      .where('m.deleted_at', 'is', null);
  const [rows, count] = await Promise.all([
    base()
      .select(['x.message_id', 'x.ticket_id', 'x.sentiment', 'x.at', 'm.message', 't.ticket_number', 't.name'])
      .orderBy('x.at', 'desc')
      .orderBy('x.id', 'desc')
      .limit(TRADING_MENTION_PAGE)
      .offset(q.offset)
      .execute(),
    base()
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirst(),
  ]);
  return {
    instrument,
    channel: p.channel,
    total: Number(count?.n ?? 0),
    data: rows.map((x) => ({
      message_id: Number(x.message_id),
      ticket_id: Number(x.ticket_id),
      ticket_number: Number(x.ticket_number),
      customer: x.name,
      text: x.message
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 300),
      sentiment: Number(x.sentiment),
      at: Number(x.at),
    })),
  };
}

/** `/integrated_insight`: every instrument in the range and in the range of the same length before it. */
export async function insight(
  db: DB,
  accountId: number,
  q: { from?: string; to?: string },
  now?: number,
): Promise<Omit<InsightAnswer, 'result'>> {
  const r = rangeOf(q, now);
  const before = {
    from: dayOf(msOf(r.from) - r.days.length * DAY_MS),
    to: dayOf(msOf(r.from) - DAY_MS),
  };
  const totals = async (from: string, to: string) => {
    const rows = await db
      .selectFrom('trading_mentions')
      .select((e) => ['instrument_id', e.fn.countAll().as('n'), e.fn.avg<number>('sentiment').as('s')])
      .where('account_id', '=', accountId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .groupBy('instrument_id')
      .execute();
    return new Map(rows.map((x) => [Number(x.instrument_id), { n: Number(x.n), s: avg(x.s) }]));
  };
  const [instruments, now_, then] = await Promise.all([
    listInstruments(db, accountId),
    totals(r.from, r.to),
    totals(before.from, before.to),
  ]);
  const rows: InsightRow[] = instruments.map((instrument) => {
    const a = now_.get(instrument.id);
    const b = then.get(instrument.id);
    const sentiment = a?.s ?? null;
    const before_sentiment = b?.s ?? null;
    return {
      instrument,
      mentions: a?.n ?? 0,
      sentiment,
      before_mentions: b?.n ?? 0,
      before_sentiment,
      change: sentiment !== null && before_sentiment !== null ? sentiment - before_sentiment : null,
    };
  });
  const top = [...rows].sort(
    (a, b) => b.mentions - a.mentions || a.instrument.symbol.localeCompare(b.instrument.symbol),
  );
  const movers = rows
    .filter((x) => x.change !== null)
    .sort(
      (a, b) => Math.abs(b.change!) - Math.abs(a.change!) || a.instrument.symbol.localeCompare(b.instrument.symbol),
    );
  return { from: r.from, to: r.to, top, movers, total: rows.reduce((a, x) => a + x.mentions, 0) };
}
