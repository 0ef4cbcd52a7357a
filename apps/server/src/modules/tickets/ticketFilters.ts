import type { AdvCondition, TicketLoadQuery } from '@parley/contracts';
import { type CallFilterQueryFields, hasCallFilters, TICKET_STATUS } from '@parley/contracts';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { type DB, likeEscape, onPostgres } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';

type Eb = ExpressionBuilder<Database, 'tickets'>;
type Filters = Pick<
  TicketLoadQuery,
  'advFilter' | 'automatic' | 'automaticStatus' | 'noAutomaticStatus' | 'replyTAT' | keyof typeof CallFilterQueryFields
>;

/**
 * Whether a page uses one of the filters of this file (`advFilter`, `automatic`, `automaticStatus`,
 * `noAutomaticStatus`, `replyTAT`), which read other tables (assignments, audit log, messages): a count kept
 * per status, channel or department cannot answer such a page. The other filters of the load call live in
 * `tickets.queries.ts`; a caller deciding on a shortcut checks those itself.
 */
export function hasAdvancedFilters(q: Filters): boolean {
  return (
    (q.advFilter?.length ?? 0) > 0 ||
    q.automatic !== undefined ||
    q.automaticStatus === '1' ||
    q.noAutomaticStatus === '1' ||
    q.replyTAT !== undefined ||
    hasCallFilters(q)
  );
}

/** Senders whose messages are not an agent's reply (MSG-04: the customer, the server, the translator). */
const NOT_AGENTS = ['visitor', 'server', 'translatebot'];

/** LIKE patterns escape with '!', which reads the same in both dialects. */

function advCondition(eb: Eb, c: AdvCondition): Expression<SqlBool> {
  if (c.field === 'ticket_number') {
    const ops = { is: '=', is_not: '!=', gt: '>', lt: '<' } as const;
    return eb('tickets.ticket_number', ops[c.op], c.value);
  }
  const col = sql`lower(${sql.ref(`tickets.${c.field}`)})`;
  const v = c.value.toLowerCase();
  switch (c.op) {
    case 'contains':
      return sql<SqlBool>`${col} like ${`%${likeEscape(v)}%`} escape '!'`;
    case 'not_contains':
      return sql<SqlBool>`${col} not like ${`%${likeEscape(v)}%`} escape '!'`;
    case 'starts_with':
      return sql<SqlBool>`${col} like ${`${likeEscape(v)}%`} escape '!'`;
    case 'is':
      return sql<SqlBool>`${col} = ${v}`;
    case 'is_not':
      return sql<SqlBool>`${col} != ${v}`;
  }
}

/**
 * TICKET-06 (design), TICKET-30: the conditions of `advFilter`, `automatic`, `automaticStatus`,
 * `noAutomaticStatus` and `replyTAT` (meanings in `@parley/contracts` ticketFilters.ts and docs/tickets.md),
 * for `loadTickets` to add to the page's conditions. Every subquery is scoped by the account.
 */
export function ticketFilterConditions(
  db: DB | Trx,
  accountId: number,
  q: Filters,
  now: number = Date.now(),
): (eb: Eb) => Expression<SqlBool>[] {
  if (!hasAdvancedFilters(q)) return () => [];
  const pg = onPostgres(db);
  return (eb) => {
    const out: Expression<SqlBool>[] = [];

    if (q.automatic !== undefined) {
      // The latest assignment record says how the current assignees came (ticket_assignments.how).
      const latestHow = eb
        .selectFrom('ticket_assignments')
        .select('ticket_assignments.how')
        .where('ticket_assignments.account_id', '=', accountId)
        .whereRef('ticket_assignments.ticket_id', '=', 'tickets.id')
        .orderBy('ticket_assignments.id', 'desc')
        .limit(1);
      const automatic = eb.and([
        eb('tickets.assignee', '!=', ''),
        eb(eb.fn.coalesce(latestHow, sql.lit('manual')), '!=', 'manual'),
      ]);
      out.push(q.automatic === '1' ? automatic : eb.not(automatic));
    }

    if (q.automaticStatus === '1' || q.noAutomaticStatus === '1') {
      // The ticket id of a status change in the audit log (`detail` is `{"id": ticketId, "status": code}`).
      const ticketOf = pg
        ? sql<number>`(audit_log.detail::jsonb ->> 'id')::bigint`
        : sql<number>`(audit_log.detail ->> 'id')`;
      const changes = () =>
        eb
          .selectFrom('audit_log')
          .where('audit_log.account_id', '=', accountId)
          .where('audit_log.action', '=', 'ticket.status_set')
          .where(ticketOf, 'is not', null)
          .groupBy(ticketOf);
      // Tickets whose latest status change was a person's (user_id set), and those with any change.
      const byPerson = changes()
        .select(ticketOf.as('ticket_id'))
        .having(
          sql`max(case when audit_log.user_id is not null then audit_log.id else 0 end)`,
          '=',
          sql`max(audit_log.id)`,
        );
      const anyChange = changes().select(ticketOf.as('ticket_id'));
      const automatic = eb.and([
        eb('tickets.id', 'not in', byPerson),
        eb.or([eb('tickets.closed', '!=', TICKET_STATUS.open), eb('tickets.id', 'in', anyChange)]),
      ]);
      out.push(q.automaticStatus === '1' ? automatic : eb.not(automatic));
    }

    if (q.replyTAT !== undefined) {
      const due = sql<number>`tickets.created_at + ${q.replyTAT * 60_000}`;
      out.push(
        eb(due, '<', now),
        eb.not(
          eb.exists(
            eb
              .selectFrom('messages')
              .select('messages.id')
              .where('messages.account_id', '=', accountId)
              .whereRef('messages.ticket_id', '=', 'tickets.id')
              .where('messages.type', '!=', 'system')
              .where('messages.sender', 'not in', NOT_AGENTS)
              .where('messages.created_at', '<=', due),
          ),
        ),
      );
    }

    for (const c of q.advFilter ?? []) out.push(advCondition(eb, c));
    out.push(...callConditions(eb, accountId, q));
    return out;
  };
}

/**
 * CALL-30, REC-10: the call list's filters (`CallFilterQueryFields`). Direction, number, DID, assignee,
 * emotion and date read the ticket; energy, pace and personality the call's row (account-scoped).
 */
function callConditions(eb: Eb, accountId: number, q: Filters): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (q.direction) out.push(eb('tickets.call_direction', '=', q.direction));
  if (q.DID) out.push(eb('tickets.did', '=', q.DID));
  if (q.number) out.push(sql<SqlBool>`tickets.phone like ${`%${likeEscape(q.number)}%`} escape '!'`);
  if (q.assignee) {
    const a = q.assignee;
    out.push(sql<SqlBool>`(',' || tickets.assignee || ',') like ${`%,${likeEscape(a)},%`} escape '!'`);
  }
  if (q.emotion?.length) out.push(eb('tickets.emotion', 'in', q.emotion));
  if (q.date) {
    const from = Date.parse(`${q.date}T00:00:00Z`);
    out.push(eb('tickets.created_at', '>=', from), eb('tickets.created_at', '<', from + 86_400_000));
  }
  const call = (cond: (c: ExpressionBuilder<Database, 'calls'>) => Expression<SqlBool>) =>
    eb.exists(
      eb
        .selectFrom('calls')
        .select('calls.id')
        .where('calls.account_id', '=', accountId)
        .whereRef('calls.ticket_id', '=', 'tickets.id')
        .where((c) => cond(c as unknown as ExpressionBuilder<Database, 'calls'>)),
    );
  if (q.energy?.length) {
    const steps = q.energy.map(Number);
    out.push(call((c) => c('calls.energy', 'in', steps)));
  }
  if (q.pace?.length) {
    const steps = q.pace.map(Number);
    out.push(call((c) => c('calls.pace', 'in', steps)));
  }
  if (q.personality?.length) {
    const p = q.personality;
    out.push(call((c) => c('calls.personality', 'in', p)));
  }
  return out;
}
