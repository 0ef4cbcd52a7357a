import {
  type AssignStrategy,
  concurrentLimit,
  openCodes,
  TICKET_STATUS,
  TICKET_STRINGS,
  TICKET_SYSTEM_MESSAGES,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { lockAccount } from '../../platform/db/locks.js';
import { notFound } from '../../platform/http/errors.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import type { Conversations } from '../messages/messages.realtime.js';
import { type Actor, changeTicketIn } from './commands/changeTicket.js';
import { listTicketStatuses } from './ticketStatuses.js';

/** One agent who might take a ticket, with what the choice needs to know about them. */
export interface AssignCandidate {
  username: string;
  /** users.status: ONLINE while connected. */
  status: string;
  /** users.second_status: '' when the agent is plainly Online, else BUSY, AWAY, a custom status... */
  secondStatus: string;
  /** Open tickets (status 0, 1 or an open-type custom status) the agent is assigned to now. */
  open: number;
  /** Order of the agent's latest assignment (higher = more recent); null when never assigned. */
  lastAssigned: number | null;
}

/** The state the choice depends on beyond the candidates: the concurrent limit (null = unlimited). */
export interface AssignState {
  limit: number | null;
}

/** An agent can take a ticket only when effectively ONLINE: status ONLINE and no second status. */
export const isAvailable = (c: AssignCandidate, state: AssignState) =>
  c.status === 'ONLINE' && c.secondStatus === '' && (state.limit === null || c.open < state.limit);

const byName = (a: AssignCandidate, b: AssignCandidate) =>
  a.username < b.username ? -1 : a.username > b.username ? 1 : 0;
/** Least recently assigned first; never assigned before everyone. */
const byRecency = (a: AssignCandidate, b: AssignCandidate) => (a.lastAssigned ?? -1) - (b.lastAssigned ?? -1);

/**
 * Automatic assignment: who gets the ticket, or null when nobody can take it. Skips agents who are
 * not effectively ONLINE and agents at the limit. `round_robin`: the least recently assigned, ties by
 * username. `least_loaded`: the fewest open tickets, ties by least recently assigned, then username.
 */
export function chooseAssignee(
  candidates: readonly AssignCandidate[],
  strategy: AssignStrategy,
  state: AssignState,
): string | null {
  const open = candidates.filter((c) => isAvailable(c, state));
  const order =
    strategy === 'least_loaded'
      ? (a: AssignCandidate, b: AssignCandidate) => a.open - b.open || byRecency(a, b) || byName(a, b)
      : (a: AssignCandidate, b: AssignCandidate) => byRecency(a, b) || byName(a, b);
  return [...open].sort(order)[0]?.username ?? null;
}

const parseIds = (s: string): number[] => {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};

/**
 * The candidates for a ticket: active users of the account who belong to the ticket's department (every
 * active user of the account when the ticket has no department), with their open load (this ticket not
 * counted) and their latest assignment.
 */
export async function assignCandidates(
  trx: DB | Trx,
  accountId: number,
  ticketId: number,
  departmentId: number | null,
): Promise<AssignCandidate[]> {
  const users = (
    await trx
      .selectFrom('users')
      .select(['username', 'status', 'second_status', 'departments'])
      .where('account_id', '=', accountId)
      .where('active', '=', 1)
      .execute()
  ).filter((u) => departmentId === null || parseIds(u.departments).includes(departmentId));
  if (users.length === 0) return [];
  const open = new Map<string, number>();
  const rows = await trx
    .selectFrom('tickets')
    .select('assignee')
    .where('account_id', '=', accountId)
    .where('closed', 'in', [TICKET_STATUS.pending, ...openCodes(await listTicketStatuses(trx, accountId))])
    .where('assignee', '<>', '')
    .where('id', '<>', ticketId)
    .execute();
  for (const r of rows)
    for (const name of new Set(r.assignee.split(',').map((x) => x.trim())))
      if (name) open.set(name, (open.get(name) ?? 0) + 1);
  const last = await trx
    .selectFrom('ticket_assignments')
    .select(['username', (eb) => eb.fn.max('id').as('last')])
    .where('account_id', '=', accountId)
    .where(
      'username',
      'in',
      users.map((u) => u.username),
    )
    .groupBy('username')
    .execute();
  const lastOf = new Map(last.map((l) => [l.username, Number(l.last)]));
  return users.map((u) => ({
    username: u.username,
    status: u.status,
    secondStatus: u.second_status,
    open: open.get(u.username) ?? 0,
    lastAssigned: lastOf.get(u.username) ?? null,
  }));
}

/**
 * Assigns one ticket automatically: chooses among the candidates of its department with the account's
 * plan limit (PLAN-20..23), then assigns the ticket to that one agent (replacing any assignees), posts a
 * system message, records the assignment (`how` = the strategy), audits and emits `updateTicket`. Returns
 * the username, or null when nobody can take it (the ticket is left as it is). Another account's ticket is
 * "Ticket not found.". Assignments in one account are serialised (`lockAccount` first), so two at once
 * cannot both give the last free slot away.
 */
export async function assignTicketAutomatically(
  db: DB,
  conversations: Conversations,
  accountId: number,
  ticketId: number,
  strategy: AssignStrategy,
  by: { userId: number; username: string; name: string } | null = null,
): Promise<string | null> {
  return runCommand(db, (trx) => assignTicketAutomaticallyIn(trx, conversations, accountId, ticketId, strategy, by));
}

/** `assignTicketAutomatically` inside the caller's transaction (ticket creation runs it there). */
export async function assignTicketAutomaticallyIn(
  trx: Trx,
  conversations: Conversations,
  accountId: number,
  ticketId: number,
  strategy: AssignStrategy,
  by: { userId: number; username: string; name: string } | null = null,
): Promise<string | null> {
  const actor: Actor = by ? { accountId, ...by } : { accountId, userId: null, username: 'server', name: 'server' };
  let chosen: string | null = null;
  await changeTicketIn(trx, conversations, actor, ticketId, async (trx, current) => {
    const account = await lockAccount(trx, accountId);
    if (!account) throw notFound(TICKET_STRINGS.notFound);
    const candidates = await assignCandidates(trx, accountId, ticketId, current.department_id);
    chosen = chooseAssignee(candidates, strategy, { limit: concurrentLimit(account.plan) });
    if (chosen === null) return null;
    return {
      set: { assignee: chosen },
      message: TICKET_SYSTEM_MESSAGES.autoAssigned(chosen, strategy),
      action: 'ticket.assigned',
      detail: { assignee: [chosen], how: strategy },
      assigned: { usernames: [chosen], how: strategy },
    };
  });
  return chosen;
}
