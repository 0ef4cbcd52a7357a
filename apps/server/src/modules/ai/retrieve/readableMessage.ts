import { ENCRYPTION_STRINGS } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import { isEncrypted } from '../../encryption/index.js';
import type { Conversations } from '../../messages/index.js';

/**
 * The ticket of a message the caller may ask the AI about: one of their account, not deleted, in a
 * conversation they may read. Anything else (another account's, a private Workspace chat's, none) is the
 * same 404, so nothing tells them apart. A message of an encrypted conversation is a 400 (CRYPT-11): the text
 * would be the plaintext the browser decrypted, which never goes to the server.
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
    .select(['messages.ticket_id', 'tickets.channel', 'tickets.encryption_method'])
    .where('messages.account_id', '=', auth.accountId)
    .where('tickets.account_id', '=', auth.accountId)
    .where('messages.id', '=', messageId)
    .where('messages.deleted_at', 'is', null)
    .executeTakeFirst();
  const ticket = m && { id: Number(m.ticket_id), accountId: auth.accountId, channel: m.channel };
  if (!m || !ticket || !(await conversations.canRead(db, ticket, auth.userId))) throw notFound('Message not found.');
  if (isEncrypted(m.encryption_method)) throw badRequest(ENCRYPTION_STRINGS.aiSkipped);
  return { ticketId: ticket.id, channel: m.channel };
}
