import { isDone, SENDERS, type SlaTargetName, TICKET_STATUS, waitsForTeam } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';
import {
  applicablePolicy,
  type BusinessSchedule,
  countedMs,
  nextCheck,
  numOrNull,
  type PolicyRow,
  scheduleFor,
  waitTimes,
} from './policies.js';
import { type SyncTicket, syncResolutionTimer } from './resolution.js';

type Q = DB | Trx;

const parseIds = (s: string): number[] => {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};

/** The label whose SLA applies: the smallest non-zero `sla` among the ticket's labels that are not removed. */
export async function applicableLabel(q: Q, accountId: number, labelJson: string) {
  const ids = parseIds(labelJson);
  if (ids.length === 0) return null;
  const labels = await q
    .selectFrom('labels')
    .select(['id', 'sla'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('removed', '=', 0)
    .where('sla', '>', 0)
    .orderBy('sla')
    .orderBy('id')
    .limit(1)
    .execute();
  const l = labels[0];
  return l ? { id: Number(l.id), sla: Number(l.sla) } : null;
}

/** Senders that are neither the customer nor an agent. */
const NOT_CUSTOMER = [SENDERS.server, SENDERS.translatebot, 'bot', 'chatbot'];

/**
 * When the current wait began, or null when nobody waits. Whether anybody waits is the ticket's
 * `has_responded` (`waitsForTeam`), the same fact the list's "Replied" shows: the write path of every message
 * clears it on a customer message and sets it on an agent answer. The start is the customer's first message
 * after the last agent reply (a message whose sender is a username of the account; notes are another table).
 */
export async function waitStart(
  q: Q,
  t: { accountId: number; ticketId: number; lastMessageAt: number; hasResponded: boolean },
  current: { started_at: number; answered_at: number | null } | undefined,
): Promise<number | null> {
  if (!waitsForTeam(t)) return null;
  const agents = q.selectFrom('users').select('username').where('account_id', '=', t.accountId);
  const lastReply = await q
    .selectFrom('messages')
    .select((eb) => eb.fn.max('created_at').as('at'))
    .where('account_id', '=', t.accountId)
    .where('ticket_id', '=', t.ticketId)
    .where('type', '<>', 'system')
    .where('sender', 'in', agents)
    .executeTakeFirst();
  const replyAt = lastReply?.at === null || lastReply?.at === undefined ? 0 : Number(lastReply.at);
  const first = await q
    .selectFrom('messages')
    .select((eb) => eb.fn.min('created_at').as('at'))
    .where('account_id', '=', t.accountId)
    .where('ticket_id', '=', t.ticketId)
    .where('type', '<>', 'system')
    .where('created_at', '>', replyAt)
    .where('created_at', '<=', t.lastMessageAt)
    .where('sender', 'not in', agents)
    .where('sender', 'not in', NOT_CUSTOMER)
    .executeTakeFirst();
  if (first?.at !== null && first?.at !== undefined) return Number(first.at);
  // No customer message rows (a channel that only moves last_message_at): a wait still open continues.
  if (current && current.answered_at === null && current.started_at > replyAt && current.started_at <= t.lastMessageAt)
    return current.started_at;
  return t.lastMessageAt;
}

/**
 * Brings a ticket's timers in line with the ticket: the response wait (`sla_timers`) and the resolution
 * target (`sla_resolution_timers`, see resolution.ts). Idempotent; safe in any transaction.
 */
export async function syncSlaTimer(q: Q, accountId: number, ticketId: number, now: number): Promise<void> {
  const t = await q
    .selectFrom('tickets')
    .select([
      'closed',
      'label',
      'last_message_at',
      'has_responded',
      'priority',
      'channel',
      'department_id',
      'created_at',
    ])
    .where('account_id', '=', accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
  if (!t) return;
  const ticket: SyncTicket = { ...t, closed: Number(t.closed), created_at: Number(t.created_at) };
  // A matching SLA policy decides; without one the label's SLA does, as before policies existed.
  const policy = await applicablePolicy(q, accountId, ticket);
  // The hours are read once, and only when a timer needs them.
  let hours: Promise<BusinessSchedule | null> | undefined;
  const schedule = (): Promise<BusinessSchedule | null> => {
    if (!policy || policy.calendar) return Promise.resolve(null);
    hours ??= scheduleFor(q, accountId, ticket.department_id);
    return hours;
  };
  await syncResponseTimer(q, { accountId, ticketId, now }, ticket, policy, schedule);
  await syncResolutionTimer(q, { accountId, ticketId, now }, ticket, policy, schedule);
}

/**
 * The response wait: a new wait (reset), a wait that continues (kept, with the target's current time and any
 * time spent Pending), or a wait that ended (answered, closed or no SLA left: nothing more to do). While the
 * ticket is Pending the wait is paused (`paused_at`); when it leaves Pending the counted time spent Pending
 * (`paused_ms`) moves the warning and due times.
 */
async function syncResponseTimer(
  q: Q,
  at: { accountId: number; ticketId: number; now: number },
  t: SyncTicket,
  policy: PolicyRow | null,
  schedule: () => Promise<BusinessSchedule | null>,
): Promise<void> {
  const { accountId, ticketId, now } = at;
  const row = await q
    .selectFrom('sla_timers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .executeTakeFirst();
  const stop = async () => {
    if (row && row.next_at !== null)
      await q
        .updateTable('sla_timers')
        .set({ next_at: null, answered_at: row.answered_at ?? now, updated_at: now })
        .where('ticket_id', '=', ticketId)
        .execute();
  };
  if (isDone(t.closed)) return stop();
  const label = policy ? null : await applicableLabel(q, accountId, t.label);
  if (!policy && !label) return stop();
  const current = row ? { started_at: Number(row.started_at), answered_at: numOrNull(row.answered_at) } : undefined;
  const start = await waitStart(
    q,
    { accountId, ticketId, lastMessageAt: Number(t.last_message_at), hasResponded: Number(t.has_responded) === 1 },
    current,
  );
  if (start === null) return stop();
  // The first response until an agent has answered once, the next response after that (label SLAs too).
  const target: SlaTargetName = (await answeredBefore(q, accountId, ticketId, start))
    ? 'next_response'
    : 'first_response';
  let id = 0;
  let minutes: number;
  let hours: BusinessSchedule | null = null;
  if (policy) {
    const m = target === 'next_response' ? policy.next_response : policy.first_response;
    if (m === null) return stop();
    minutes = m;
    hours = await schedule();
  } else {
    id = label!.id;
    minutes = label!.sla;
  }
  const same = row !== undefined && Number(row.started_at) === start;
  if (same && row.answered_at !== null && row.next_at === null) return; // this wait already ended
  const pending = t.closed === TICKET_STATUS.pending;
  let pausedMs = same ? Number(row.paused_ms) : 0;
  let pausedAt = same ? numOrNull(row.paused_at) : null;
  if (pausedAt !== null && !pending) {
    pausedMs += countedMs(pausedAt, now, hours);
    pausedAt = null;
  }
  if (pausedAt === null && pending) pausedAt = now;
  const times = waitTimes(start, minutes, hours, pausedMs);
  if (same) {
    const flags = { warned_at: numOrNull(row.warned_at), violated_at: numOrNull(row.violated_at) };
    const next = pausedAt !== null ? null : nextCheck({ ...times, ...flags });
    if (
      Number(row.label_id) === id &&
      Number(row.sla_minutes) === minutes &&
      row.target === target &&
      Number(row.due_at) === times.due_at &&
      Number(row.warn_at) === times.warn_at &&
      numOrNull(row.next_at) === next &&
      numOrNull(row.paused_at) === pausedAt &&
      Number(row.paused_ms) === pausedMs
    )
      return;
    await q
      .updateTable('sla_timers')
      .set({
        label_id: id,
        sla_minutes: minutes,
        target,
        ...times,
        next_at: next,
        paused_at: pausedAt,
        paused_ms: pausedMs,
        updated_at: now,
      })
      .where('ticket_id', '=', ticketId)
      .execute();
    return;
  }
  const fresh = {
    account_id: accountId,
    label_id: id,
    sla_minutes: minutes,
    target,
    started_at: start,
    ...times,
    warned_at: null,
    violated_at: null,
    answered_at: null,
    paused_at: pausedAt,
    paused_ms: 0,
    next_at: pausedAt !== null ? null : times.warn_at,
    updated_at: now,
  };
  await q
    .insertInto('sla_timers')
    .values({ ticket_id: ticketId, ...fresh })
    .onConflict((oc) => oc.column('ticket_id').doUpdateSet(fresh))
    .execute();
}

/** An agent answered in this ticket before `at`: a wait starting then is a next response, not the first. */
export async function answeredBefore(q: Q, accountId: number, ticketId: number, at: number): Promise<boolean> {
  const agents = q.selectFrom('users').select('username').where('account_id', '=', accountId);
  const r = await q
    .selectFrom('messages')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('type', '<>', 'system')
    .where('created_at', '<', at)
    .where('sender', 'in', agents)
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

/** Response timers that need a look now: a warning or a violation is due. */
export async function dueTimers(db: DB, now: number, limit: number) {
  return db
    .selectFrom('sla_timers')
    .select(['ticket_id', 'account_id'])
    .where('next_at', '<=', now)
    .orderBy('next_at')
    .limit(limit)
    .execute();
}

/** Resolution timers that need a look now. */
export async function dueResolutionTimers(db: DB, now: number, limit: number) {
  return db
    .selectFrom('sla_resolution_timers')
    .select(['ticket_id', 'account_id'])
    .where('next_at', '<=', now)
    .orderBy('next_at')
    .limit(limit)
    .execute();
}

/** Tickets whose last customer message is newer than `after` (keyset by time, then id). */
export async function ticketsWithMessagesAfter(db: DB, after: { at: number; id: number }, limit: number) {
  return db
    .selectFrom('tickets')
    .select(['id', 'account_id', 'last_message_at'])
    .where(sql<boolean>`(last_message_at > ${after.at} or (last_message_at = ${after.at} and id > ${after.id}))`)
    .orderBy('last_message_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
