import {
  CHAT_MAX_MEMBERS,
  type ChatItem,
  type ParticipantChangedEvent,
  rooms,
  type UpdateChatInput,
  WORKSPACE_STRINGS as W,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { type Conversations, postMessage } from '../../messages/index.js';
import { activeUsers, chatItem, memberChat, memberRooms } from '../workspace.queries.js';

/**
 * CHAT-07 (design): a member renames a group, adds team members or removes members (themselves too:
 * leaving). A 1:1 chat does not change. Each change is a system message; `participantChanged` goes to
 * everyone who was or is a member, so a removed member's open chat closes (RT-30).
 */
export async function updateChat(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: UpdateChatInput,
): Promise<ChatItem | null> {
  const me = { accountId: auth.accountId, userId: auth.userId, username: auth.username };
  await runCommand(db, async (trx) => {
    const chat = await memberChat(trx, auth, input.id);
    if (chat.kind === 'direct') throw badRequest(W.directNoChange);
    const current = await trx
      .selectFrom('chat_members')
      .select(['user_id', 'username'])
      .where('account_id', '=', auth.accountId)
      .where('ticket_id', '=', input.id)
      .execute();
    const ids = new Set(current.map((m) => Number(m.user_id)));
    const add = [...new Set(input.add ?? [])].filter((id) => !ids.has(id));
    const remove = [...new Set(input.remove ?? [])].filter((id) => ids.has(id));
    const added = await activeUsers(trx, auth.accountId, add);
    const left = ids.size + added.length - remove.length;
    if (left < 2) throw badRequest(W.lastMember);
    if (left > CHAT_MAX_MEMBERS) throw badRequest(`A chat has at most ${CHAT_MAX_MEMBERS} members.`);
    const before = await memberRooms(trx, auth.accountId, input.id);
    const at = Date.now();
    const lines: string[] = [];
    const who = auth.name || auth.username;
    if (input.title !== undefined && input.title.trim() !== chat.title) {
      await trx
        .updateTable('tickets')
        .set({ title: input.title.trim(), updated_at: at })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', input.id)
        .execute();
      lines.push(`${who} renamed the chat to "${input.title.trim()}".`);
    }
    if (added.length) {
      await trx
        .insertInto('chat_members')
        .values(
          added.map((u) => ({
            account_id: auth.accountId,
            ticket_id: input.id,
            user_id: u.id,
            username: u.username,
            joined_at: at,
          })),
        )
        .execute();
      lines.push(`${who} added ${added.map((u) => u.name || u.username).join(', ')}.`);
    }
    const removed = current.filter((m) => remove.includes(Number(m.user_id)));
    if (removed.length) {
      await trx
        .deleteFrom('chat_members')
        .where('account_id', '=', auth.accountId)
        .where('ticket_id', '=', input.id)
        .where('user_id', 'in', remove)
        .execute();
      lines.push(`${who} removed ${removed.map((m) => m.username).join(', ')}.`);
    }
    if (lines.length === 0) return;
    await postMessage(trx, conversations, {
      accountId: auth.accountId,
      ticketId: input.id,
      sender: 'server',
      senderName: 'server',
      type: 'system',
      message: lines.join(' '),
      fromCustomer: false,
    });
    const now = await trx
      .selectFrom('chat_members')
      .select('username')
      .where('account_id', '=', auth.accountId)
      .where('ticket_id', '=', input.id)
      .execute();
    const everyone = [...new Set([...before, ...added.map((u) => rooms.user(u.id))])];
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'chat.participants_changed',
      payload: {
        ticketId: input.id,
        participants: now.map((m) => m.username),
        removed: removed.map((m) => m.username),
      } satisfies ParticipantChangedEvent,
      realtime: { name: 'participantChanged', rooms: everyone },
    });
  });
  return (await chatItem(db, me, input.id)) ?? null;
}
