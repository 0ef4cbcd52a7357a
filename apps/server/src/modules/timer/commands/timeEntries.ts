import { TIMER_STRINGS, type TimeEntryChange, type TimeEntryInput, WORKSPACE_CHANNEL } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../../platform/db/db.js';
import { conflict, forbidden, notFound } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';

/** The caller's ticket (of their account, never a Workspace chat), or 404 as for any other id. */
export async function assertTicket(db: DB | Trx, accountId: number, ticketId: number): Promise<void> {
  const t = await db
    .selectFrom('tickets')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', ticketId)
    .where('channel', '<>', WORKSPACE_CHANNEL)
    .executeTakeFirst();
  if (!t) throw notFound(TIMER_STRINGS.notFound);
}

/** The day of `ms` at UTC offset `tz` minutes, YYYY-MM-DD. */
const dayAt = (ms: number, tz: number) => new Date(ms + tz * 60_000).toISOString().slice(0, 10);

/** Stops the user's running timer inside `trx`; answers its id, or null when none ran. */
async function stopRunning(trx: Trx, accountId: number, userId: number, at: number): Promise<number | null> {
  const running = await trx
    .selectFrom('time_entries')
    .select(['id', 'started_at'])
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  if (!running) return null;
  const seconds = Math.max(0, Math.round((at - Number(running.started_at)) / 1000));
  await trx
    .updateTable('time_entries')
    .set({ ended_at: at, seconds, updated_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', running.id)
    .execute();
  return Number(running.id);
}

/**
 * Starts the caller's timer on a ticket, stopping the one running elsewhere first (its time kept): one
 * running timer per person, which the partial unique index also holds when two starts race.
 */
export async function startTimer(db: DB, auth: AuthContext, ticketId: number, tz: number, now: () => number) {
  try {
    return await runCommand(db, async (trx) => {
      await assertTicket(trx, auth.accountId, ticketId);
      const at = now();
      const stopped = await stopRunning(trx, auth.accountId, auth.userId, at);
      const row = await trx
        .insertInto('time_entries')
        .values({
          account_id: auth.accountId,
          ticket_id: ticketId,
          user_id: auth.userId,
          work_day: dayAt(at, tz),
          started_at: at,
          ended_at: null,
          seconds: 0,
          note: '',
          source: 'timer',
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: Number(row.id), stopped };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(TIMER_STRINGS.raced);
    throw err;
  }
}

/** Stops the caller's running timer; the stopped entry's id, or null when none ran. */
export function stopTimer(db: DB, auth: AuthContext, now: () => number): Promise<number | null> {
  return runCommand(db, (trx) => stopRunning(trx, auth.accountId, auth.userId, now()));
}

/** Time entered by hand for a day. */
export function addTimeEntry(db: DB, auth: AuthContext, input: TimeEntryInput, now: () => number): Promise<number> {
  return runCommand(db, async (trx) => {
    await assertTicket(trx, auth.accountId, input.ticket_id);
    const at = now();
    const row = await trx
      .insertInto('time_entries')
      .values({
        account_id: auth.accountId,
        ticket_id: input.ticket_id,
        user_id: auth.userId,
        work_day: input.date,
        started_at: at,
        ended_at: at,
        seconds: input.minutes * 60,
        note: input.note,
        source: 'manual',
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
}

/** The entry, when the caller may change it: their own, or any as an admin. */
async function ownEntry(trx: Trx, auth: AuthContext, id: number) {
  const e = await trx
    .selectFrom('time_entries')
    .select(['id', 'user_id', 'ended_at'])
    .where('account_id', '=', auth.accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!e) throw notFound(TIMER_STRINGS.entryNotFound);
  if (Number(e.user_id) !== auth.userId && auth.type !== 'admin') throw forbidden(TIMER_STRINGS.notYours);
  return e;
}

/** Changes an entry's minutes, day and note; a running timer is stopped first (409). */
export function changeTimeEntry(db: DB, auth: AuthContext, id: number, input: TimeEntryChange, now: () => number) {
  return runCommand(db, async (trx) => {
    const e = await ownEntry(trx, auth, id);
    if (e.ended_at === null) throw conflict(TIMER_STRINGS.stopFirst);
    await trx
      .updateTable('time_entries')
      .set({ seconds: input.minutes * 60, work_day: input.date, note: input.note, updated_at: now() })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .execute();
  });
}

/** Removes an entry (a running timer is discarded). */
export function removeTimeEntry(db: DB, auth: AuthContext, id: number) {
  return runCommand(db, async (trx) => {
    await ownEntry(trx, auth, id);
    await trx.deleteFrom('time_entries').where('account_id', '=', auth.accountId).where('id', '=', id).execute();
  });
}
