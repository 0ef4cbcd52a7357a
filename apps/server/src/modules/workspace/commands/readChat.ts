import { ErrorCode, WORKSPACE_STRINGS as W, WORKSPACE_CHANNEL } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import type { Trx } from '../../../platform/outbox/index.js';
import { isMember } from '../workspace.queries.js';

/**
 * The chat the caller is a member of: 404 "Chat not found." when the account has no such chat, 403 when
 * the caller is not a member (the messages module answers the same way for history and sending).
 */
export async function memberChat(db: DB | Trx, auth: Pick<AuthContext, 'accountId' | 'userId'>, ticketId: number) {
  const chat = await db
    .selectFrom('workspace_chats as w')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'w.ticket_id').onRef('t.account_id', '=', 'w.account_id'))
    .select(['w.kind', 't.title'])
    .where('w.account_id', '=', auth.accountId)
    .where('w.ticket_id', '=', ticketId)
    .where('t.channel', '=', WORKSPACE_CHANNEL)
    .executeTakeFirst();
  if (!chat) throw notFound(W.chatNotFound);
  if (!(await isMember(db, auth.accountId, ticketId, auth.userId)))
    throw new AppError(403, ErrorCode.forbidden, W.notMember);
  return chat;
}

/** The caller read the chat up to now: its unread count is 0 (the same read state the pane's receipts write). */
export async function readChat(db: DB, auth: AuthContext, ticketId: number): Promise<void> {
  await memberChat(db, auth, ticketId);
  const at = Date.now();
  await db
    .insertInto('ticket_reads')
    .values({ account_id: auth.accountId, ticket_id: ticketId, user_id: auth.userId, read_at: at })
    .onConflict((oc) => oc.columns(['ticket_id', 'user_id']).doUpdateSet({ read_at: at }))
    .execute();
  await db
    .updateTable('chat_members')
    .set({ read_at: at })
    .where('account_id', '=', auth.accountId)
    .where('ticket_id', '=', ticketId)
    .where('user_id', '=', auth.userId)
    .execute();
}
