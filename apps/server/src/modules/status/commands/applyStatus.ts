import { effectiveStatus, type StatusUpdated } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { lockUser } from '../../../platform/db/locks.js';
import { appendEvent, type Trx } from '../../../platform/outbox/index.js';
import { statusUpdatedAudience } from '../status.realtime.js';

/** Whose status changes. */
export type Who = Pick<AuthContext, 'accountId' | 'userId'>;

/** Presence: is any socket of the user connected on any node. */
export type Presence = 'ONLINE' | 'OFFLINE';

/** What changes; a field left out keeps its value. */
export interface StatusChange {
  status?: Presence;
  /** The chosen status ('' for Online): built-in or the name of a custom status. */
  second_status?: string;
  reason?: string;
}

const PLAIN = new Set(['ONLINE', 'OFFLINE']);

/**
 * The one place a user's status changes (STATUS-03, STATUS-06). When the effective status or its reason
 * changes, the open status period is closed and a new one opened, so the time spent in each status can
 * be reported; going Offline stamps last_seen_at. Emits `status.updated` to the account when anything
 * changed. Answers the user's state after the change and whether there was one (a repeat is a no-op).
 */
export async function applyStatus(
  trx: Trx,
  who: Who,
  next: StatusChange,
  at = Date.now(),
): Promise<{ changed: boolean; state: StatusUpdated } | null> {
  // The user's lock first, so two nodes changing one user apply in turn and each sees the other's result.
  if (!(await lockUser(trx, who.accountId, who.userId))) return null;
  const u = await trx
    .selectFrom('users')
    .select(['username', 'status', 'second_status', 'status_reason', 'status_since'])
    .where('account_id', '=', who.accountId)
    .where('id', '=', who.userId)
    .executeTakeFirstOrThrow();

  const status = next.status ?? (u.status === 'OFFLINE' ? 'OFFLINE' : 'ONLINE');
  const second_status = next.second_status ?? u.second_status;
  // A reason belongs to a chosen status; Online has none.
  const reason = second_status ? (next.reason ?? u.status_reason) : '';
  const was = effectiveStatus(u);
  const now = effectiveStatus({ status, second_status });
  const same = u.status === status && u.second_status === second_status && u.status_reason === reason;
  const state = (since: number): StatusUpdated => ({
    userId: who.userId,
    username: u.username,
    status,
    second_status,
    reason,
    since,
  });
  if (same) return { changed: false, state: state(Number(u.status_since)) };

  const newPeriod = was !== now || (!PLAIN.has(now) && reason !== u.status_reason);
  if (newPeriod) {
    await trx
      .updateTable('status_periods')
      .set({ ended_at: at })
      .where('account_id', '=', who.accountId)
      .where('user_id', '=', who.userId)
      .where('ended_at', 'is', null)
      .execute();
    await trx
      .insertInto('status_periods')
      .values({
        account_id: who.accountId,
        user_id: who.userId,
        status: now,
        reason: PLAIN.has(now) ? '' : reason,
        started_at: at,
        ended_at: null,
      })
      .execute();
  }
  const since = newPeriod ? at : Number(u.status_since);
  await trx
    .updateTable('users')
    .set({
      status,
      second_status,
      status_reason: reason,
      status_since: since,
      updated_at: at,
      ...(status === 'OFFLINE' && u.status !== 'OFFLINE' ? { last_seen_at: at } : {}),
    })
    .where('account_id', '=', who.accountId)
    .where('id', '=', who.userId)
    .execute();

  const payload = state(since);
  await appendEvent(trx, {
    accountId: who.accountId,
    type: 'status.updated',
    payload,
    realtime: statusUpdatedAudience(who.accountId, payload),
  });
  return { changed: true, state: payload };
}
