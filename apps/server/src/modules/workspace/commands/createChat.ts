import { type ChatItem, type CreateChatInput, WORKSPACE_STRINGS as W, WORKSPACE_CHANNEL } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { type Conversations, postMessage } from '../../messages/index.js';
import { insertNumberedTicket } from '../../tickets/index.js';
import { activeUsers, chatItem } from '../workspace.queries.js';

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(e?.message ?? '');
};

async function directChat(db: DB | Trx, accountId: number, key: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('workspace_chats')
    .select('ticket_id')
    .where('account_id', '=', accountId)
    .where('direct_key', '=', key)
    .executeTakeFirst();
  return row ? Number(row.ticket_id) : undefined;
}

/**
 * CHAT-07: starts a chat with chosen team members. One other member and no title is a 1:1 chat, and a
 * pair has only one: asking again (or both at once) answers the existing chat. A system message opens
 * the chat, so its members' lists learn of it live (`newMessage` to their own rooms).
 */
export async function createChat(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: CreateChatInput,
): Promise<ChatItem> {
  const me = { accountId: auth.accountId, userId: auth.userId, username: auth.username };
  const others = [...new Set(input.members)].filter((id) => id !== auth.userId);
  if (others.length === 0) throw badRequest(W.pickMembers);
  const title = input.title?.trim() ?? '';
  const direct = others.length === 1 && title === '';
  const key = direct ? [auth.userId, others[0]!].sort((a, b) => a - b).join(':') : null;
  const show = async (id: number) => (await chatItem(db, me, id))!;
  if (key) {
    const seen = await directChat(db, auth.accountId, key);
    if (seen) return show(seen);
  }
  try {
    const id = await runCommand(db, async (trx) => {
      const users = await activeUsers(trx, auth.accountId, others);
      // A ticket of channel `chat`, numbered like every ticket of the account.
      const ticketId = await insertNumberedTicket(trx, auth.accountId, {
        title,
        channel: WORKSPACE_CHANNEL,
        name: auth.name || auth.username,
      });
      const at = Date.now();
      await trx
        .insertInto('workspace_chats')
        .values({
          account_id: auth.accountId,
          ticket_id: ticketId,
          kind: direct ? 'direct' : 'group',
          direct_key: key,
          created_by: auth.userId,
          created_at: at,
        })
        .execute();
      await trx
        .insertInto('chat_members')
        .values(
          [{ id: auth.userId, username: auth.username }, ...users].map((u) => ({
            account_id: auth.accountId,
            ticket_id: ticketId,
            user_id: u.id,
            username: u.username,
            joined_at: at,
          })),
        )
        .execute();
      await postMessage(trx, conversations, {
        accountId: auth.accountId,
        ticketId,
        sender: 'server',
        senderName: 'server',
        type: 'system',
        message: `${auth.name || auth.username} started the chat.`,
        fromCustomer: false,
      });
      return ticketId;
    });
    return show(id);
  } catch (err) {
    // Both people started their 1:1 chat at once: the loser answers the winner's chat.
    if (key && isUniqueViolation(err)) {
      const seen = await directChat(db, auth.accountId, key);
      if (seen) return show(seen);
    }
    throw err;
  }
}
