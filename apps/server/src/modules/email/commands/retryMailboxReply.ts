import { ErrorCode, MESSAGE_STRINGS, type MessageEmailStateEvent } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, conflict, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import type { Conversations } from '../../messages/index.js';
import { appendEmailState, type ReplyQueued } from './sendMailboxReply.js';

/**
 * Sends a failed mailbox reply again: `sending` once more and queued for the sender, with the same
 * Message-ID. Another account's message (or one not there) is a 404; a conversation the user may not read a
 * 403; a reply that has not failed (sending, sent, or no mailbox reply at all) or whose mailbox was removed a
 * 409. Two retries at once queue one send: the second finds it no longer failed.
 */
export async function retryMailboxReply(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  messageId: number,
): Promise<MessageEmailStateEvent> {
  return runCommand(db, async (trx) => {
    const row = await trx
      .selectFrom('messages as m')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'))
      .select(['m.id', 'm.ticket_id', 'm.email_state', 't.channel', 't.mailbox_id'])
      .where('m.account_id', '=', auth.accountId)
      .where('m.id', '=', messageId)
      .where('m.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw notFound(MESSAGE_STRINGS.messageNotFound);
    const m = { accountId: auth.accountId, id: Number(row.id), ticketId: Number(row.ticket_id), channel: row.channel };
    if (
      !(await conversations.canRead(trx, { id: m.ticketId, accountId: m.accountId, channel: m.channel }, auth.userId))
    )
      throw new AppError(403, ErrorCode.forbidden, MESSAGE_STRINGS.cannotRead);
    if (row.email_state !== 'failed') throw conflict(MESSAGE_STRINGS.emailNotFailed);
    if (row.mailbox_id === null) throw conflict(MESSAGE_STRINGS.emailNoMailbox);
    const r = await trx
      .updateTable('messages')
      .set({ email_state: 'sending', email_error: null, email_attempt_at: null })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', m.id)
      .where('email_state', '=', 'failed')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw conflict(MESSAGE_STRINGS.emailNotFailed);
    await appendEmailState(trx, conversations, m, 'sending', null);
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'email.reply_queued',
      payload: { messageId: m.id, ticketId: m.ticketId } satisfies ReplyQueued,
    });
    return { ticketId: m.ticketId, messageId: m.id, state: 'sending' as const, error: null };
  });
}
