import {
  concurrentLimit,
  DONE_TICKET_STATUSES,
  effectiveStatus,
  LIVECHAT_CODES,
  PLANS,
  SHADOW_ADMIN,
  SUPERVISORY_RISK_LIMIT,
  SUPERVISORY_RISK_WINDOW_MS,
  SUPERVISORY_STRINGS,
  type SupervisoryAgent,
  type SupervisoryQueue,
  type SupervisoryRisk,
  type SupervisorySnapshot,
  type UserType,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import { openChatCounts } from '../livechat/index.js';

/** Channels that are not tickets of the board's ticket counts: Workspace chats, and live chats (their own column). */
const NOT_TICKETS = [WORKSPACE_CHANNEL, ...LIVECHAT_CODES];

const usernamesOf = (assignee: string) =>
  assignee
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The supervisory board of one account at `now`: every query is scoped by `accountId`. Read in one go so the
 * board shows one moment; it is cheap (a handful of grouped queries), and the board reads it again on each
 * socket event that changes what it shows.
 */
export async function supervisorySnapshot(db: DB, accountId: number, now: number): Promise<SupervisorySnapshot> {
  const account = await db.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  const [users, chats, tickets, queue, risk] = await Promise.all([
    db
      .selectFrom('users')
      .select(['id', 'username', 'name', 'photo', 'type', 'status', 'second_status', 'status_reason', 'status_since'])
      .where('account_id', '=', accountId)
      .where('active', '=', 1)
      .where('username', '!=', SHADOW_ADMIN)
      .orderBy('name')
      .orderBy('id')
      .execute(),
    openChatCounts(db, accountId),
    openTicketsByAssignee(db, accountId),
    waitingQueue(db, accountId),
    atRisk(db, accountId, now),
  ]);
  const names = new Map(users.map((u) => [u.username, u.name || u.username]));

  const agents: SupervisoryAgent[] = users
    .map((u) => ({
      userId: Number(u.id),
      username: u.username,
      name: u.name,
      photo: u.photo ?? null,
      type: u.type as UserType,
      status: effectiveStatus(u),
      // A reason belongs to a chosen status; the status module clears it on Online.
      reason: u.second_status ? u.status_reason : '',
      since: Number(u.status_since),
      chats: chats.get(u.username) ?? 0,
      tickets: tickets.get(u.username) ?? 0,
    }))
    // Admins are on the board only while they are here: many admins never take chats or tickets.
    .filter((a) => a.type !== 'admin' || a.status !== 'OFFLINE')
    // Those present first, each group by name (the users' order).
    .sort((x, y) => Number(x.status === 'OFFLINE') - Number(y.status === 'OFFLINE'));

  return {
    now,
    chatLimit: concurrentLimit(Number(account?.plan ?? PLANS.trial)),
    agents,
    queue,
    risks: risk.rows.map((r) => ({
      ...r,
      assignees: r.assignees.map((u) => names.get(u) ?? u),
    })),
    risksTotal: risk.total,
    nextChangeAt: risk.nextChangeAt,
  };
}

/** Tickets not done per assignee username (a ticket with two assignees counts for both). */
async function openTicketsByAssignee(db: DB, accountId: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tickets')
    .select(['assignee', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('assignee', '!=', '')
    .where('closed', 'not in', DONE_TICKET_STATUSES)
    .where('channel', 'not in', NOT_TICKETS)
    .groupBy('assignee')
    .execute();
  const out = new Map<string, number>();
  for (const r of rows) for (const u of new Set(usernamesOf(r.assignee))) out.set(u, (out.get(u) ?? 0) + Number(r.n));
  return out;
}

/** Visitors waiting for an agent, per department, the longest wait first. */
async function waitingQueue(db: DB, accountId: number): Promise<SupervisoryQueue> {
  const rows = await db
    .selectFrom('livechats')
    .leftJoin('departments', (j) =>
      j.onRef('departments.id', '=', 'livechats.department_id').on('departments.account_id', '=', accountId),
    )
    .select([
      'livechats.department_id',
      'departments.name',
      (eb) => eb.fn.countAll<number>().as('n'),
      (eb) => eb.fn.min('livechats.queued_at').as('oldest'),
    ])
    .where('livechats.account_id', '=', accountId)
    .where('livechats.state', '=', 'queued')
    .groupBy(['livechats.department_id', 'departments.name'])
    .execute();
  const departments = rows
    .map((r) => ({
      departmentId: r.department_id === null ? null : Number(r.department_id),
      department:
        r.department_id === null ? SUPERVISORY_STRINGS.noDepartment : (r.name ?? SUPERVISORY_STRINGS.removedDepartment),
      waiting: Number(r.n),
      oldestQueuedAt: Number(r.oldest),
    }))
    .sort((x, y) => x.oldestQueuedAt - y.oldestQueuedAt || (x.departmentId ?? 0) - (y.departmentId ?? 0));
  return {
    waiting: departments.reduce((n, d) => n + d.waiting, 0),
    oldestQueuedAt: departments[0]?.oldestQueuedAt ?? null,
    departments,
  };
}

type Clock = 'sla_timers' | 'sla_resolution_timers';
type RiskRow = Omit<SupervisoryRisk, 'assignees'> & { assignees: string[] };

/**
 * The running, unpaused SLA clocks of tickets not done: the response waits nobody has answered and the
 * resolution clocks not stopped. A Pending ticket's clocks are paused and not at risk (they do not count).
 */
function runningClocks(db: DB, table: Clock, accountId: number) {
  const t = table as 'sla_timers';
  return db
    .selectFrom(t)
    .innerJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', `${t}.ticket_id`).onRef('tickets.account_id', '=', `${t}.account_id`),
    )
    .where(`${t}.account_id`, '=', accountId)
    .where('tickets.account_id', '=', accountId)
    .where(
      table === 'sla_timers'
        ? sql<boolean>`sla_timers.answered_at is null`
        : sql<boolean>`sla_resolution_timers.stopped_at is null`,
    )
    .where(sql<boolean>`${sql.ref(`${table}.paused_at`)} is null`)
    .where('tickets.closed', 'not in', DONE_TICKET_STATUSES)
    .where('tickets.channel', '!=', WORKSPACE_CHANNEL);
}

/**
 * Tickets at SLA risk: a running clock past its warning time or due within the window (breached ones too),
 * one row a ticket (the clock due first), due soonest first; and when the next clock not yet at risk will be.
 */
async function atRisk(
  db: DB,
  accountId: number,
  now: number,
): Promise<{ rows: RiskRow[]; total: number; nextChangeAt: number | null }> {
  const horizon = now + SUPERVISORY_RISK_WINDOW_MS;
  const read = async (table: Clock, target: SupervisoryRisk['target']) => {
    const t = table as 'sla_timers';
    const [rows, next] = await Promise.all([
      runningClocks(db, table, accountId)
        .select(['tickets.id', 'tickets.ticket_number', 'tickets.title', 'tickets.assignee', `${t}.due_at`])
        .where((eb) => eb.or([eb(`${t}.warn_at`, '<=', now), eb(`${t}.due_at`, '<=', horizon)]))
        .execute(),
      runningClocks(db, table, accountId)
        .select((eb) => [eb.fn.min(`${t}.warn_at`).as('warn'), eb.fn.min(`${t}.due_at`).as('due')])
        .where(`${t}.warn_at`, '>', now)
        .where(`${t}.due_at`, '>', horizon)
        .executeTakeFirst(),
    ]);
    const starts = [
      next?.warn,
      next?.due === null || next?.due === undefined ? null : Number(next.due) - SUPERVISORY_RISK_WINDOW_MS,
    ]
      .filter((x): x is number => x !== null && x !== undefined)
      .map(Number);
    return {
      rows: rows.map((r) => ({ ...r, target })),
      next: starts.length > 0 ? Math.min(...starts) : null,
    };
  };
  const [responses, resolutions] = await Promise.all([
    read('sla_timers', 'response'),
    read('sla_resolution_timers', 'resolution'),
  ]);
  // One row a ticket: the clock due first (a ticket can be late on both).
  const byTicket = new Map<number, RiskRow>();
  for (const r of [...responses.rows, ...resolutions.rows]) {
    const dueAt = Number(r.due_at);
    const known = byTicket.get(Number(r.id));
    if (known && known.dueAt <= dueAt) continue;
    byTicket.set(Number(r.id), {
      id: Number(r.id),
      ticketNumber: Number(r.ticket_number),
      title: r.title,
      assignees: usernamesOf(r.assignee),
      target: r.target,
      dueAt,
      breached: dueAt <= now,
    });
  }
  const all = [...byTicket.values()].sort((x, y) => x.dueAt - y.dueAt || x.id - y.id);
  const nexts = [responses.next, resolutions.next].filter((x): x is number => x !== null);
  return {
    rows: all.slice(0, SUPERVISORY_RISK_LIMIT),
    total: all.length,
    nextChangeAt: nexts.length > 0 ? Math.min(...nexts) : null,
  };
}
