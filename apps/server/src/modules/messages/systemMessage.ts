import type { NewEvent, Trx } from '../../platform/outbox/index.js';
import { type MessageRow, toEvent } from './messages.queries.js';
import type { Conversations } from './messages.realtime.js';

/**
 * A system message in a ticket ("X set the status to Y."), inside the caller's transaction: the row, and the
 * `message.created` event (`newMessage` to the conversation's audience) for the caller to append with its
 * own events, so open conversations show it at once. It does not touch the ticket: the caller's change does.
 * Imported by path, not through the module's index, because the tickets module uses it and the index
 * imports the tickets module.
 */
export async function systemMessage(
  trx: Trx,
  conversations: Conversations,
  m: { accountId: number; ticketId: number; channel: string; message: string; at: number },
): Promise<NewEvent> {
  const row = (await trx
    .insertInto('messages')
    .values({
      account_id: m.accountId,
      ticket_id: m.ticketId,
      type: 'system',
      message: m.message,
      sender: 'server',
      client_id: null,
      created_at: m.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()) as MessageRow;
  const audience = { id: m.ticketId, accountId: m.accountId, channel: m.channel };
  return {
    accountId: m.accountId,
    type: 'message.created',
    payload: { ...toEvent(row), fromCustomer: false },
    realtime: { name: 'newMessage', rooms: await conversations.messageAudience(trx, audience) },
  };
}
