import { isDone, TICKET_STATUS } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';
import { type BusinessSchedule, countedMs, nextCheck, numOrNull, type PolicyRow, waitTimes } from './policies.js';

type Q = DB | Trx;

/** What the timers are synced from: the ticket as it is now. */
export interface SyncTicket {
  closed: number;
  label: string;
  last_message_at: number;
  has_responded: number;
  priority: string;
  channel: string;
  department_id: number | null;
  created_at: number;
}

/**
 * The resolution target: one row per ticket whose policy has one, counting from the ticket's creation until it
 * is Resolved or Closed (`stopped_at`; reopened, it counts on from the creation again, with the warning and
 * violation already taken kept, so each goes out once). While the ticket is Pending the count is paused; the
 * counted time spent Pending (`paused_ms`) moves the warning and due times. A policy without the target (or
 * none) leaves nothing to look at.
 */
export async function syncResolutionTimer(
  q: Q,
  at: { accountId: number; ticketId: number; now: number },
  t: SyncTicket,
  policy: PolicyRow | null,
  schedule: () => Promise<BusinessSchedule | null>,
): Promise<void> {
  const { accountId, ticketId, now } = at;
  const row = await q
    .selectFrom('sla_resolution_timers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .executeTakeFirst();
  const minutes = policy?.resolution ?? null;
  if (minutes === null) {
    if (row && row.next_at !== null)
      await q
        .updateTable('sla_resolution_timers')
        .set({ next_at: null, updated_at: now })
        .where('ticket_id', '=', ticketId)
        .execute();
    return;
  }
  const done = isDone(t.closed);
  // Done before it had a target: nothing to count until it is reopened.
  if (!row && done) return;
  const hours = await schedule();
  const pending = !done && t.closed === TICKET_STATUS.pending;
  let pausedMs = row ? Number(row.paused_ms) : 0;
  let pausedAt = row ? numOrNull(row.paused_at) : null;
  if (pausedAt !== null && !pending) {
    pausedMs += countedMs(pausedAt, now, hours);
    pausedAt = null;
  }
  if (pausedAt === null && pending) pausedAt = now;
  const stoppedAt = done ? (numOrNull(row?.stopped_at) ?? now) : null;
  const times = waitTimes(t.created_at, minutes, hours, pausedMs);
  const flags = { warned_at: numOrNull(row?.warned_at), violated_at: numOrNull(row?.violated_at) };
  const next = stoppedAt !== null || pausedAt !== null ? null : nextCheck({ ...times, ...flags });
  const values = {
    sla_minutes: minutes,
    started_at: t.created_at,
    ...times,
    stopped_at: stoppedAt,
    paused_at: pausedAt,
    paused_ms: pausedMs,
    next_at: next,
  };
  if (!row) {
    await q
      .insertInto('sla_resolution_timers')
      .values({ ticket_id: ticketId, account_id: accountId, ...values, ...flags, updated_at: now })
      // Two syncs at once: the first one's row stands (the next sync brings it in line).
      .onConflict((oc) => oc.column('ticket_id').doNothing())
      .execute();
    return;
  }
  const same = (Object.keys(values) as (keyof typeof values)[]).every((k) => numOrNull(row[k]) === values[k]);
  if (same) return;
  await q
    .updateTable('sla_resolution_timers')
    .set({ ...values, updated_at: now })
    .where('ticket_id', '=', ticketId)
    .execute();
}
