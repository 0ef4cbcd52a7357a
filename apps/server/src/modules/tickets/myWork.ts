import {
  DONE_TICKET_STATUSES,
  ErrorCode,
  parseTicketFilter,
  QUEUE_RISK_LIMIT,
  type QueueRisk,
  TICKET_STRINGS,
  type TicketLoadQuery,
  TicketLoadQuery as TicketLoadQuerySchema,
  type TicketQueue,
  type TicketViewCounts,
} from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';
import { loadTickets, type OpenCodesSeen, type Viewer, visibleTo } from './tickets.queries.js';

type Db = DB | Trx;

/** The status code of a load-call filter word or code (open, 0 .. 4, a custom code), else 400. */
export function statusOfFilter(filter: string): number {
  const code = parseTicketFilter(filter);
  if (code === null) throw new AppError(400, ErrorCode.validation, TICKET_STRINGS.badFilter);
  return code;
}

/** The load call's query with only the given conditions (defaults for the rest). */
const queryOf = (q: Record<string, string>): TicketLoadQuery => TicketLoadQuerySchema.parse(q);

/** How many tickets of the ticket list (`type` ticket) match `status` and `query`, as the list counts them. */
async function countList(
  db: Db,
  seen: OpenCodesSeen,
  viewer: Viewer,
  status: number,
  query: TicketLoadQuery,
): Promise<number> {
  const page = await loadTickets(db, viewer, { status, type: 'ticket', offset: 0, limit: 0, query }, seen);
  return page.count;
}

/**
 * The views' counts under one status filter: Mine (the caller among the assignees, as the `agent` filter),
 * Unassigned (`assigned=0`) and All. Counted by the list's own code, so they are what each view lists,
 * Workspace chats and live chats left out like the list leaves them out.
 */
export async function viewCounts(
  db: Db,
  seen: OpenCodesSeen,
  viewer: Viewer & { username: string },
  status: number,
): Promise<TicketViewCounts> {
  const [mine, unassigned, all] = await Promise.all([
    countList(db, seen, viewer, status, queryOf({ agent: viewer.username })),
    countList(db, seen, viewer, status, queryOf({ assigned: '0' })),
    countList(db, seen, viewer, status, queryOf({})),
  ]);
  return { mine, unassigned, all };
}

/**
 * The caller's queue on Home: their open (the Open filter, custom open statuses included) and waiting
 * (Pending) tickets, and those of their tickets whose SLA wait has reached its warning time without an
 * answer, due soonest first (breached ones are the most overdue, so they come first).
 */
export async function myQueue(
  db: Db,
  seen: OpenCodesSeen,
  viewer: Viewer & { username: string },
  now: number,
): Promise<TicketQueue> {
  const mine = queryOf({ agent: viewer.username });
  const pattern = `%,${viewer.username.replace(/[!%_]/g, (c) => `!${c}`)},%`;
  const [open, waiting, responses, resolutions] = await Promise.all([
    countList(db, seen, viewer, 0, mine),
    countList(db, seen, viewer, 1, mine),
    atRisk(db, 'sla_timers', viewer, pattern, now),
    atRisk(db, 'sla_resolution_timers', viewer, pattern, now),
  ]);
  // One row a ticket: the target due first (a ticket can be late on both).
  const byTicket = new Map<number, QueueRisk>();
  for (const [target, rows] of [
    ['response', responses],
    ['resolution', resolutions],
  ] as const)
    for (const r of rows) {
      const due = Number(r.due_at);
      const known = byTicket.get(Number(r.id));
      if (known && known.due_at <= due) continue;
      byTicket.set(Number(r.id), {
        id: Number(r.id),
        ticket_number: Number(r.ticket_number),
        title: r.title,
        due_at: due,
        breached: due <= now,
        target,
      });
    }
  return {
    open,
    waiting,
    atRisk: [...byTicket.values()].sort((x, y) => x.due_at - y.due_at || x.id - y.id).slice(0, QUEUE_RISK_LIMIT),
  };
}

/**
 * The caller's tickets whose running, unpaused timer of one kind has reached its warning time: response waits
 * nobody has answered, resolution clocks not stopped. A paused clock (the ticket is Pending) is not at risk.
 */
function atRisk(db: Db, table: 'sla_timers' | 'sla_resolution_timers', viewer: Viewer, pattern: string, now: number) {
  const t = table as 'sla_timers';
  return db
    .selectFrom(t)
    .innerJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', `${t}.ticket_id`).onRef('tickets.account_id', '=', `${t}.account_id`),
    )
    .select(['tickets.id', 'tickets.ticket_number', 'tickets.title', `${t}.due_at`])
    .where(`${t}.account_id`, '=', viewer.accountId)
    .where(
      table === 'sla_timers'
        ? sql<boolean>`sla_timers.answered_at is null`
        : sql<boolean>`sla_resolution_timers.stopped_at is null`,
    )
    .where(sql<boolean>`${sql.ref(`${table}.paused_at`)} is null`)
    .where(`${t}.warn_at`, '<=', now)
    .where(sql<boolean>`(',' || tickets.assignee || ',') like ${pattern} escape '!'`)
    .where('tickets.closed', 'not in', DONE_TICKET_STATUSES)
    .where((eb) => visibleTo(eb, viewer))
    .orderBy(`${t}.due_at`)
    .orderBy('tickets.id')
    .limit(QUEUE_RISK_LIMIT)
    .execute();
}
