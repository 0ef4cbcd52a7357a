import {
  CUSTOM_STATUS_FIRST_CODE,
  rooms,
  TICKET_STATUS_STRINGS,
  type TicketCustomStatus,
  type TicketStatusCreateInput,
  type TicketStatusesUpdated,
  type TicketStatusUpdateInput,
} from '@parley/contracts';
import { sql } from 'kysely';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { lockAccount } from '../../platform/db/locks.js';
import { badRequest, notFound } from '../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../platform/outbox/index.js';

type Db = DB | Trx;

const toStatus = (r: { id: number; status_code: number; name: string; alternate: string }): TicketCustomStatus => ({
  id: Number(r.id),
  status_code: Number(r.status_code),
  name: r.name,
  alternate: r.alternate === '0' ? '0' : '1',
});

/** The account's custom ticket statuses (not deleted), by code. */
export async function listTicketStatuses(db: Db, accountId: number): Promise<TicketCustomStatus[]> {
  const rows = await db
    .selectFrom('ticket_statuses')
    .select(['id', 'status_code', 'name', 'alternate'])
    .where('account_id', '=', accountId)
    .where('removed', '=', 0)
    .orderBy('status_code')
    .execute();
  return rows.map(toStatus);
}

/** Whether a code is one of the account's custom statuses (deleted ones too, when `withRemoved`). */
export async function customStatusExists(db: Db, accountId: number, code: number, withRemoved = false) {
  let q = db
    .selectFrom('ticket_statuses')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status_code', '=', code);
  if (!withRemoved) q = q.where('removed', '=', 0);
  return (await q.executeTakeFirst()) !== undefined;
}

async function assertNameFree(trx: Trx, accountId: number, name: string, exceptId: number | null) {
  let q = trx
    .selectFrom('ticket_statuses')
    .select('id')
    .where('account_id', '=', accountId)
    .where('removed', '=', 0)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId !== null) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw badRequest(TICKET_STATUS_STRINGS.nameTaken);
  // The default names are taken too (a custom "Open" would make two Opens).
  if (['open', 'pending', 'resolved', 'closed', 'all', '?'].includes(name.toLowerCase()))
    throw badRequest(TICKET_STATUS_STRINGS.nameTaken);
}

async function announce(trx: Trx, accountId: number): Promise<void> {
  const statuses = await listTicketStatuses(trx, accountId);
  await appendEvent(trx, {
    accountId,
    type: 'ticket_statuses.updated',
    payload: { statuses } satisfies TicketStatusesUpdated,
    realtime: { name: 'ticketStatusesUpdated', rooms: [rooms.account(accountId)] },
  });
}

/** Admin: adds a custom status at the account's next free code (5 and up; deleted codes are not reused). */
export async function createTicketStatus(
  db: DB,
  auth: AuthContext,
  input: TicketStatusCreateInput,
): Promise<TicketCustomStatus> {
  return runCommand(db, async (trx) => {
    // Creations in one account take turns, so two never take the same code.
    await lockAccount(trx, auth.accountId);
    await assertNameFree(trx, auth.accountId, input.name, null);
    const max = await trx
      .selectFrom('ticket_statuses')
      .select((eb) => eb.fn.max('status_code').as('m'))
      .where('account_id', '=', auth.accountId)
      .executeTakeFirst();
    const code = Math.max(CUSTOM_STATUS_FIRST_CODE, Number(max?.m ?? 0) + 1);
    const row = await trx
      .insertInto('ticket_statuses')
      .values({
        account_id: auth.accountId,
        status_code: code,
        name: input.name,
        alternate: input.alternate,
        created_at: Date.now(),
      })
      .returning(['id', 'status_code', 'name', 'alternate'])
      .executeTakeFirstOrThrow();
    await announce(trx, auth.accountId);
    return toStatus(row);
  });
}

/** Admin: renames a custom status or changes whether it counts as open. */
export async function updateTicketStatus(
  db: DB,
  auth: AuthContext,
  input: TicketStatusUpdateInput,
): Promise<TicketCustomStatus> {
  return runCommand(db, async (trx) => {
    await assertNameFree(trx, auth.accountId, input.name, input.id);
    const row = await trx
      .updateTable('ticket_statuses')
      .set({ name: input.name, alternate: input.alternate })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', input.id)
      .where('removed', '=', 0)
      .returning(['id', 'status_code', 'name', 'alternate'])
      .executeTakeFirst();
    if (!row) throw notFound(TICKET_STATUS_STRINGS.notFound);
    await announce(trx, auth.accountId);
    return toStatus(row);
  });
}

/**
 * Admin: deletes a custom status. Its tickets keep their code (they show "?" from then on and stay
 * reachable under All and by the code); the code is never given to a new status.
 */
export async function deleteTicketStatus(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const row = await trx
      .updateTable('ticket_statuses')
      .set({ removed: 1 })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .where('removed', '=', 0)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw notFound(TICKET_STATUS_STRINGS.notFound);
    await announce(trx, auth.accountId);
  });
}
