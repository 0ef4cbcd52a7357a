import type { TicketListItem, TicketPriorityInput, TicketUpdated } from '@parley/contracts';
import { TICKET_STRINGS } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { ticketItem } from '../tickets.queries.js';
import { ticketAudience } from '../tickets.realtime.js';

/**
 * TICKET-51, TICKET-52: anyone in the account sets a ticket's priority (H, M, L or '' for none). The change
 * counts as activity (`updated_at` moves). Emits `ticket.updated` (`updateTicket` to the account room).
 * Another account's ticket is "not found" and nothing changes.
 */
export async function setTicketPriority(
  db: DB,
  auth: AuthContext,
  input: TicketPriorityInput,
): Promise<TicketListItem> {
  return runCommand(db, (trx) => setTicketPriorityIn(trx, auth, input));
}

/** `setTicketPriority` inside the caller's transaction (a macro run changes many tickets in one). */
export async function setTicketPriorityIn(
  trx: Trx,
  auth: Pick<AuthContext, 'accountId' | 'username'> & { userId: number | null },
  input: Pick<TicketPriorityInput, 'id' | 'priority'>,
): Promise<TicketListItem> {
  const done = await trx
    .updateTable('tickets')
    .set({ priority: input.priority, updated_at: Date.now() })
    .where('account_id', '=', auth.accountId)
    .where('id', '=', input.id)
    .returning('id')
    .executeTakeFirst();
  if (!done) throw notFound(TICKET_STRINGS.notFound);
  const item = await ticketItem(trx, { accountId: auth.accountId, userId: auth.userId ?? 0 }, input.id);
  await recordAudit(trx, {
    accountId: auth.accountId,
    userId: auth.userId,
    actor: auth.userId === null ? 'server' : auth.username,
    action: 'ticket.priority_set',
    detail: { id: input.id, priority: input.priority },
  });
  const { read: _read, newMessage: _new, ...payload } = item;
  await appendEvent(trx, {
    accountId: auth.accountId,
    type: 'ticket.updated',
    payload: payload satisfies TicketUpdated,
    realtime: ticketAudience(auth.accountId, payload),
  });
  return item;
}
