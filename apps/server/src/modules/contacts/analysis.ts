import { addCounts, type CustomerAnalysis, dominantEmotion, TICKET_STATUS } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';

const DAY_MS = 86_400_000;
/** How many customers the "wrote most" table lists. */
const TOP_CUSTOMERS = 20;
const TOP_LABELS = 8;
const TOP_EMOTIONS = 6;

const parseCounts = (json: string): Record<string, number> => {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
};

/**
 * The customers of the last `days` days: conversations made in the period with a known contact (Workspace
 * chats and unknown customers have none). New customers had no conversation before the period.
 */
export async function customerAnalysis(
  db: DB,
  accountId: number,
  days: number,
  now: number,
): Promise<CustomerAnalysis> {
  const to = now;
  const from = now - days * DAY_MS;
  const inPeriod = () =>
    db
      .selectFrom('tickets as t')
      .where('t.account_id', '=', accountId)
      .where('t.contact_id', 'is not', null)
      .where('t.created_at', '>=', from)
      .where('t.created_at', '<=', to);

  const notDone = sql<number>`sum(case when t.closed in (${TICKET_STATUS.resolved}, ${TICKET_STATUS.closed}) then 0 else 1 end)`;
  const [totals, earlier, top, rated, labels, feelings] = await Promise.all([
    inPeriod()
      .select((eb) => [
        eb.fn.countAll<number>().as('conversations'),
        sql<number>`count(distinct t.contact_id)`.as('customers'),
      ])
      .executeTakeFirstOrThrow(),
    // Customers of the period who wrote before it too.
    inPeriod()
      .select(sql<number>`count(distinct t.contact_id)`.as('n'))
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('tickets as b')
            .select('b.id')
            .where('b.account_id', '=', accountId)
            .whereRef('b.contact_id', '=', 't.contact_id')
            .where('b.created_at', '<', from),
        ),
      )
      .executeTakeFirstOrThrow(),
    inPeriod()
      .innerJoin('contacts as c', (j) =>
        j.onRef('c.id', '=', 't.contact_id').onRef('c.account_id', '=', 't.account_id'),
      )
      .select((eb) => [
        't.contact_id',
        'c.name',
        eb.fn.countAll<number>().as('conversations'),
        notDone.as('open'),
        eb.fn.max('t.created_at').as('last_at'),
      ])
      .groupBy(['t.contact_id', 'c.name'])
      .orderBy('conversations', 'desc')
      .orderBy('last_at', 'desc')
      .limit(TOP_CUSTOMERS)
      .execute(),
    inPeriod()
      .innerJoin('report_ticket_facts as f', (j) =>
        j.onRef('f.ticket_id', '=', 't.id').onRef('f.account_id', '=', 't.account_id'),
      )
      .where('f.csat', 'is not', null)
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('f.csat').as('sum')])
      .executeTakeFirstOrThrow(),
    inPeriod()
      .innerJoin('ticket_labels as tl', (j) =>
        j.onRef('tl.ticket_id', '=', 't.id').onRef('tl.account_id', '=', 't.account_id'),
      )
      .innerJoin('labels as l', (j) => j.onRef('l.id', '=', 'tl.label_id').onRef('l.account_id', '=', 'tl.account_id'))
      .select((eb) => ['l.id', 'l.name', 'l.color', eb.fn.countAll<number>().as('tickets')])
      .groupBy(['l.id', 'l.name', 'l.color'])
      .orderBy('tickets', 'desc')
      .orderBy('l.name')
      .limit(TOP_LABELS)
      .execute(),
    inPeriod().select(['t.contact_id', 't.emotion_2']).where('t.emotion_2', '!=', '{}').execute(),
  ]);

  const topIds = top.map((r) => Number(r.contact_id));
  const channels = topIds.length
    ? await inPeriod()
        .select(['t.contact_id', 't.channel'])
        .where('t.contact_id', 'in', topIds)
        .groupBy(['t.contact_id', 't.channel'])
        .orderBy('t.channel')
        .execute()
    : [];
  let overall: Record<string, number> = {};
  const perCustomer = new Map<number, Record<string, number>>();
  for (const r of feelings) {
    const counts = parseCounts(r.emotion_2);
    overall = addCounts(overall, counts);
    const id = Number(r.contact_id);
    if (topIds.includes(id)) perCustomer.set(id, addCounts(perCustomer.get(id) ?? {}, counts));
  }

  const customers = Number(totals.customers);
  const returning = Number(earlier.n);
  const ratedN = Number(rated.n);
  return {
    days,
    from,
    to,
    figures: {
      customers,
      new_customers: customers - returning,
      returning,
      conversations: Number(totals.conversations),
      csat: ratedN > 0 ? Math.round((Number(rated.sum) / ratedN) * 100) / 100 : null,
      rated: ratedN,
    },
    labels: labels.map((l) => ({ id: Number(l.id), name: l.name, color: l.color, tickets: Number(l.tickets) })),
    emotions: Object.entries(overall)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, TOP_EMOTIONS)
      .map(([emotion, count]) => ({ emotion, count })),
    customers: top.map((r) => {
      const id = Number(r.contact_id);
      const counts = perCustomer.get(id) ?? {};
      return {
        contact_id: id,
        name: r.name,
        conversations: Number(r.conversations),
        open: Number(r.open ?? 0),
        channels: channels.filter((c) => Number(c.contact_id) === id).map((c) => c.channel),
        last_at: Number(r.last_at),
        emotion: Object.keys(counts).length ? dominantEmotion(counts) : '',
      };
    }),
  };
}
