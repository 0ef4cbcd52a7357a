import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { notFound } from '../../../platform/http/errors.js';
import type { Conversations } from '../../messages/index.js';

/**
 * The ticket of a message the caller may ask the AI about: one of their account, not deleted, in a
 * conversation they may read. Anything else (another account's, a private Workspace chat's, none) is the
 * same 404, so nothing tells them apart.
 */
export async function readableMessage(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  messageId: number,
): Promise<{ ticketId: number; channel: string }> {
  const m = await db
    .selectFrom('messages')
    .innerJoin('tickets', 'tickets.id', 'messages.ticket_id')
    .select(['messages.ticket_id', 'tickets.channel'])
    .where('messages.account_id', '=', auth.accountId)
    .where('tickets.account_id', '=', auth.accountId)
    .where('messages.id', '=', messageId)
    .where('messages.deleted_at', 'is', null)
    .executeTakeFirst();
  const ticket = m && { id: Number(m.ticket_id), accountId: auth.accountId, channel: m.channel };
  if (!m || !ticket || !(await conversations.canRead(db, ticket, auth.userId))) throw notFound('Message not found.');
  return { ticketId: ticket.id, channel: m.channel };
}
