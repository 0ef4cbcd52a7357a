import { CHANNEL_ALIASES, TICKET_LIST_TYPES, type TicketLoadQuery, WORKSPACE_CHANNEL } from '@parley/contracts';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';
import { hasAdvancedFilters } from './ticketFilters.js';
import type { TicketPage, Viewer } from './tickets.queries.js';

type Db = DB | Trx;

/** A channel list with the codes' aliases (CHANNEL_ALIASES) added, as the list's channel filter reads it. */
export const channelsWithAliases = (codes: readonly string[]) => {
  const out = new Set(codes);
  for (const [alias, code] of Object.entries(CHANNEL_ALIASES)) {
    if (out.has(alias)) out.add(code);
    if (out.has(code)) out.add(alias);
  }
  return [...out];
};

/** Query keys that never narrow the rows (the sort, which time a range reads) or that the counters hold. */
const COUNTED_KEYS = new Set(['received', 'sort', 'field', 'channelFilter', 'depFilter']);

/**
 * Whether `ticket_counts` can answer a page's `count`: besides status and list type only the channel and
 * department filters are set (the counters' columns), and no Workspace chat can be among the rows (those are
 * listed to their members only, CHAT-06, which a counter cannot know). Any other key with a value, including
 * one added later, means a real count.
 */
export function countableByCounters(viewer: Viewer, p: Omit<TicketPage, 'offset' | 'limit'>): boolean {
  const q: TicketLoadQuery = p.query;
  if (hasAdvancedFilters(q)) return false;
  for (const [key, value] of Object.entries(q)) if (!COUNTED_KEYS.has(key) && !empty(value)) return false;
  return noWorkspaceChat(viewer, p);
}

const empty = (v: unknown) => v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/** No Workspace chat can be among a page's rows (or the viewer is the server's own, which sees them all). */
function noWorkspaceChat(viewer: Viewer, p: Omit<TicketPage, 'offset' | 'limit'>): boolean {
  if (viewer.userId === 0) return true;
  const kind = TICKET_LIST_TYPES[p.type];
  const channels: readonly string[] | null =
    kind.only ?? (p.query.channelFilter?.length ? p.query.channelFilter : null);
  return (
    (kind.excluded as readonly string[]).includes(WORKSPACE_CHANNEL) ||
    (channels !== null && !channels.includes(WORKSPACE_CHANNEL))
  );
}

/**
 * TICKET-30: the number of tickets of a page that `countableByCounters` accepts, summed from the account's
 * counters (a few hundred rows at most) instead of counted over every matching ticket.
 */
export async function countFromCounters(
  db: Db,
  viewer: Viewer,
  p: Omit<TicketPage, 'offset' | 'limit'>,
  codes: number[] | null,
): Promise<number> {
  const kind = TICKET_LIST_TYPES[p.type];
  let q = db
    .selectFrom('ticket_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), sql<number>`0`).as('n'))
    .where('account_id', '=', viewer.accountId);
  if (codes !== null) q = q.where('closed', 'in', codes);
  if (kind.only) q = q.where('channel', 'in', [...kind.only]);
  if (kind.excluded.length) q = q.where('channel', 'not in', [...kind.excluded]);
  if (p.query.channelFilter?.length) q = q.where('channel', 'in', channelsWithAliases(p.query.channelFilter));
  // Department filter ids are checked to be the account's (`checkFilterIds`), so never 0 (none).
  if (p.query.depFilter?.length) q = q.where('department_id', 'in', p.query.depFilter);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The conditions of a page on `ticket_labels`: the labels, then the copied status, type, channel, department, time. */
function labelWhere(
  eb: ExpressionBuilder<Database, 'ticket_labels'>,
  viewer: Viewer,
  p: Omit<TicketPage, 'offset' | 'limit'>,
  codes: number[] | null,
  labels: number[],
): Expression<SqlBool> {
  const q = p.query;
  const kind = TICKET_LIST_TYPES[p.type];
  const all: Expression<SqlBool>[] = [
    eb('ticket_labels.account_id', '=', viewer.accountId),
    eb('ticket_labels.label_id', 'in', labels),
  ];
  if (codes !== null) all.push(eb('ticket_labels.closed', 'in', codes));
  if (kind.only) all.push(eb('ticket_labels.channel', 'in', [...kind.only]));
  if (kind.excluded.length) all.push(eb('ticket_labels.channel', 'not in', [...kind.excluded]));
  if (q.channelFilter?.length) all.push(eb('ticket_labels.channel', 'in', channelsWithAliases(q.channelFilter)));
  if (q.depFilter?.length) all.push(eb('ticket_labels.department_id', 'in', q.depFilter));
  const time = q.received === 'created' ? 'ticket_labels.created_at' : 'ticket_labels.updated_at';
  if (q.start !== undefined) all.push(eb(time, '>=', q.start * 1000));
  if (q.end !== undefined) all.push(eb(time, '<=', q.end * 1000 + 999));
  return eb.and(all);
}

/**
 * TICKET-30: the label filter (any of the labels) as `tickets.id in (...)` over `ticket_labels`, which also
 * repeats the page's status, list type, channel, department and received-time conditions so the index
 * `ticket_labels_list_idx` finds the few ids itself. The outer query still applies every condition.
 */
export function labelCondition(
  eb: ExpressionBuilder<Database, 'tickets'>,
  viewer: Viewer,
  p: Omit<TicketPage, 'offset' | 'limit'>,
  codes: number[] | null,
  labels: number[],
): Expression<SqlBool> {
  const sub = eb
    .selectFrom('ticket_labels')
    .select('ticket_labels.ticket_id')
    .where((x) => labelWhere(x, viewer, p, codes, labels));
  return eb('tickets.id', 'in', sub);
}

/** Keys a label page may have for `labelPage` to answer it: the counters' ones, the labels, a time range. */
const LABEL_PAGE_KEYS = new Set([...COUNTED_KEYS, 'labelFilter', 'start', 'end']);

/**
 * TICKET-30, TICKET-34: a page whose conditions all live in `ticket_labels` (labels, status, list type,
 * channel, department, received-time range; sorted by updated or created time) is counted and paged from
 * its index alone: the count of distinct tickets, and the ids of this page in the list's order (newest
 * time, then newest id). Null for any other page. The caller reads just those tickets.
 */
export async function labelPage(
  db: Db,
  viewer: Viewer,
  p: TicketPage,
  codes: number[] | null,
): Promise<{ count: number; ids: number[] } | null> {
  const q = p.query;
  const labels = q.labelFilter;
  if (!labels?.length || q.sort === 'priority' || hasAdvancedFilters(q) || !noWorkspaceChat(viewer, p)) return null;
  for (const [key, value] of Object.entries(q)) if (!LABEL_PAGE_KEYS.has(key) && !empty(value)) return null;
  const where = (eb: ExpressionBuilder<Database, 'ticket_labels'>) => labelWhere(eb, viewer, p, codes, labels);
  // Every row of a ticket carries the ticket's times, so max() is the ticket's own.
  const time = q.sort === 'created' ? 'ticket_labels.created_at' : 'ticket_labels.updated_at';
  const [counted, rows] = await Promise.all([
    db
      .selectFrom('ticket_labels')
      .where(where)
      .select((eb) => eb.fn.count('ticket_labels.ticket_id').distinct().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('ticket_labels')
      .where(where)
      .select('ticket_labels.ticket_id')
      .groupBy('ticket_labels.ticket_id')
      .orderBy((eb) => eb.fn.max(time), 'desc')
      .orderBy('ticket_labels.ticket_id', 'desc')
      .limit(p.limit)
      .offset(p.offset)
      .execute(),
  ]);
  return { count: Number(counted.n), ids: rows.map((r) => Number(r.ticket_id)) };
}
