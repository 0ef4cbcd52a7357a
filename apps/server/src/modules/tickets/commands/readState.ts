import { rooms, TICKET_STRINGS, type TicketUpdated, type UnreadCount, type UnreadCount2 } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { emitChannelData } from '../live.js';
import { ticketItem, type Viewer } from '../tickets.queries.js';
import { ticketAudience } from '../tickets.realtime.js';
import { unreadCounts } from '../unreadCounts.js';

/**
 * TICKET-41, RT-17: marks a ticket read by the caller now (`ticket_reads`), then sends the caller's new
 * unread counts to their own room (`unreadCount2`, every tab of theirs). 404 for another account's ticket.
 */
export async function markTicketRead(db: DB, viewer: Viewer, ticketId: number): Promise<UnreadCount[]> {
  return runCommand(db, async (trx) => {
    const found = await trx
      .selectFrom('tickets')
      .select('id')
      .where('account_id', '=', viewer.accountId)
      .where('id', '=', ticketId)
      .executeTakeFirst();
    if (!found) throw notFound(TICKET_STRINGS.notFound);
    const at = Date.now();
    await trx
      .insertInto('ticket_reads')
      .values({ account_id: viewer.accountId, ticket_id: ticketId, user_id: viewer.userId, read_at: at })
      .onConflict((oc) => oc.columns(['ticket_id', 'user_id']).doUpdateSet({ read_at: at }))
      .execute();
    const data = await unreadCounts(trx, viewer);
    await appendEvent(trx, {
      accountId: viewer.accountId,
      type: 'ticket.unread',
      payload: { data } satisfies UnreadCount2,
      realtime: { name: 'unreadCount2', rooms: [rooms.user(viewer.userId)] },
    });
    return data;
  });
}

/**
 * For the messages module: a message was added to a ticket. Call it inside the transaction that stores the
 * message (`runCommand(db, async (trx) => { ...insert...; await touchTicketOnMessage(trx, {...}) })`).
 * - `updated_at` moves to `at` (the list re-sorts);
 * - a customer message (`fromCustomer`) sets `last_message_at`, so the ticket shows "New message" to
 *   everyone who has not read it since (TICKET-42, TICKET-57), and tells non-admins (`channelDataUpdated`);
 * - an agent message sets `has_responded` (the highlight reads "Replied", TICKET-57; a customer message clears
 *   it again: the SLA engine reads the same column) and, when `readerId`
 *   is given, marks the ticket read for that agent.
 * Emits `updateTicket` to the account room. Another account's ticket is "Ticket not found.".
 */
export async function touchTicketOnMessage(
  trx: Trx,
  m: { accountId: number; ticketId: number; fromCustomer: boolean; at?: number; readerId?: number | null },
): Promise<void> {
  const at = m.at ?? Date.now();
  const done = await trx
    .updateTable('tickets')
    .set(
      m.fromCustomer ? { updated_at: at, last_message_at: at, has_responded: 0 } : { updated_at: at, has_responded: 1 },
    )
    .where('account_id', '=', m.accountId)
    .where('id', '=', m.ticketId)
    .returning('channel')
    .executeTakeFirst();
  if (!done) throw notFound(TICKET_STRINGS.notFound);
  if (!m.fromCustomer && m.readerId)
    await trx
      .insertInto('ticket_reads')
      .values({ account_id: m.accountId, ticket_id: m.ticketId, user_id: m.readerId, read_at: at })
      .onConflict((oc) => oc.columns(['ticket_id', 'user_id']).doUpdateSet({ read_at: at }))
      .execute();
  const {
    read: _r,
    newMessage: _n,
    ...payload
  } = await ticketItem(trx, { accountId: m.accountId, userId: 0 }, m.ticketId);
  await appendEvent(trx, {
    accountId: m.accountId,
    type: 'ticket.updated',
    payload: payload satisfies TicketUpdated,
    realtime: ticketAudience(m.accountId, payload),
  });
  if (m.fromCustomer)
    await emitChannelData(trx, m.accountId, { channel: done.channel, ticketId: m.ticketId, reason: 'message' });
}
