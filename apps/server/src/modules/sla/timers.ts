import { isDone, SENDERS, SLA_WARNING_SHARE } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

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
 * When the current wait began, or null when nobody waits: the customer's first message after the last agent
 * reply. An agent reply is a message whose sender is a username of the account (notes are another table).
 * `last_message_at` (the last customer message) is the trigger; the messages table refines the start.
 */
export async function waitStart(
  q: Q,
  t: { accountId: number; ticketId: number; lastMessageAt: number },
  current: { started_at: number; answered_at: number | null } | undefined,
): Promise<number | null> {
  if (t.lastMessageAt <= 0) return null;
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
  if (t.lastMessageAt < replyAt) return null;
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

const nextOf = (r: { warn_at: number; due_at: number; warned_at: number | null; violated_at: number | null }) =>
  r.violated_at !== null ? null : r.warned_at !== null ? r.due_at : r.warn_at;

/**
 * Brings a ticket's timer row in line with the ticket: a new wait (reset), a wait that continues (kept, with
 * the label's current SLA), or a wait that ended (answered, closed or no SLA label left: nothing more to do).
 * Idempotent; safe in any transaction.
 */
export async function syncSlaTimer(q: Q, accountId: number, ticketId: number, now: number): Promise<void> {
  const t = await q
    .selectFrom('tickets')
    .select(['closed', 'label', 'last_message_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
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
  if (!t) return;
  const closed = Number(t.closed);
  const label = isDone(closed) ? null : await applicableLabel(q, accountId, t.label);
  if (!label) return stop();
  const current = row
    ? { started_at: Number(row.started_at), answered_at: row.answered_at === null ? null : Number(row.answered_at) }
    : undefined;
  const start = await waitStart(q, { accountId, ticketId, lastMessageAt: Number(t.last_message_at) }, current);
  if (start === null) return stop();
  const ms = label.sla * 60_000;
  const times = { warn_at: start + Math.round(ms * SLA_WARNING_SHARE), due_at: start + ms };
  if (row && Number(row.started_at) === start) {
    if (row.answered_at !== null && row.next_at === null) return; // this wait already ended
    const flags = {
      warned_at: row.warned_at === null ? null : Number(row.warned_at),
      violated_at: row.violated_at === null ? null : Number(row.violated_at),
    };
    const next = nextOf({ ...times, ...flags });
    if (Number(row.label_id) === label.id && Number(row.sla_minutes) === label.sla && row.next_at === next) return;
    await q
      .updateTable('sla_timers')
      .set({ label_id: label.id, sla_minutes: label.sla, ...times, next_at: next, updated_at: now })
      .where('ticket_id', '=', ticketId)
      .execute();
    return;
  }
  const fresh = {
    account_id: accountId,
    label_id: label.id,
    sla_minutes: label.sla,
    started_at: start,
    ...times,
    warned_at: null,
    violated_at: null,
    answered_at: null,
    next_at: times.warn_at,
    updated_at: now,
  };
  await q
    .insertInto('sla_timers')
    .values({ ticket_id: ticketId, ...fresh })
    .onConflict((oc) => oc.column('ticket_id').doUpdateSet(fresh))
    .execute();
}

/** Timers that need a look now: a warning or a violation is due. */
export async function dueTimers(db: DB, now: number, limit: number) {
  return db
    .selectFrom('sla_timers')
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
