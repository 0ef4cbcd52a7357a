import {
  type DeleteNoteEvent,
  ErrorCode,
  MESSAGE_STRINGS,
  type Note,
  type PinEvent,
  type ReactionEvent,
  type SyncDeleteEvent,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, badRequest, forbidden, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { toNote, toReaction } from '../messages.queries.js';
import type { Conversations } from '../messages.realtime.js';

/**
 * A live message of the caller's account and its ticket's channel; else "Message not found." (404). A
 * message of a conversation the caller may not read (a Workspace chat they are not a member of) is
 * "You cannot read this conversation." (403), as its history is.
 */
async function messageOf(trx: Trx, conversations: Conversations, auth: AuthContext, messageId: number) {
  const accountId = auth.accountId;
  const m = await trx
    .selectFrom('messages')
    .innerJoin('tickets', 'tickets.id', 'messages.ticket_id')
    .select([
      'messages.id',
      'messages.ticket_id',
      'messages.sender',
      'messages.type',
      'messages.pinned',
      'tickets.channel',
    ])
    .where('messages.account_id', '=', accountId)
    .where('tickets.account_id', '=', accountId)
    .where('messages.id', '=', messageId)
    .where('messages.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!m) throw notFound(MESSAGE_STRINGS.messageNotFound);
  const audience = { id: Number(m.ticket_id), accountId, channel: m.channel };
  if (!(await conversations.canRead(trx, audience, auth.userId)))
    throw new AppError(403, ErrorCode.forbidden, MESSAGE_STRINGS.cannotRead);
  return {
    id: Number(m.id),
    ticketId: Number(m.ticket_id),
    sender: m.sender,
    type: m.type,
    pinned: Number(m.pinned) === 1,
    audience,
  };
}

/**
 * MSG-32, MSG-33 (design), MSG-34: the sender or an admin deletes a message; system messages stay. The row
 * is kept (deleted_at) so a client that was away learns of it: `syncDelete` now, the `delete_message` item of
 * `/event` and the `deleted` list of the check call later. A message of another ticket or account is
 * "Ticket not found." (404) as the spec's error says.
 */
export async function deleteMessage(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: { message_id: number; ticket_id: number },
): Promise<void> {
  await runCommand(db, async (trx) => {
    const m = await messageOf(trx, conversations, auth, input.message_id).catch(() => null);
    if (!m || m.ticketId !== input.ticket_id) throw notFound(MESSAGE_STRINGS.ticketNotFound);
    if (m.type === 'system' || m.sender === 'server') throw badRequest(MESSAGE_STRINGS.systemMessage);
    if (m.sender !== auth.username && auth.type !== 'admin') throw forbidden(MESSAGE_STRINGS.notYours);
    const at = Date.now();
    await trx
      .updateTable('messages')
      .set({ deleted_at: at, deleted_by: auth.username, pinned: 0 })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', m.id)
      .execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'message.deleted',
      payload: { ticketId: m.ticketId, messageId: m.id } satisfies SyncDeleteEvent,
      realtime: { name: 'syncDelete', rooms: await conversations.messageAudience(trx, m.audience) },
    });
  });
}

/** MSG-19 (design): adds a note to a message; `receiveNote` to the staff of the conversation. */
export async function addNote(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: { message_id: number; text: string },
): Promise<Note> {
  return runCommand(db, async (trx) => {
    const m = await messageOf(trx, conversations, auth, input.message_id);
    const at = Date.now();
    const row = await trx
      .insertInto('message_notes')
      .values({
        account_id: auth.accountId,
        ticket_id: m.ticketId,
        message_id: m.id,
        sender: auth.username,
        text: input.text,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const note = toNote(row);
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'note.added',
      payload: { ...note, ticketId: m.ticketId },
      realtime: { name: 'receiveNote', rooms: await conversations.staffAudience(trx, m.audience) },
    });
    return note;
  });
}

/** The caller's own note of the account, with its message's audience. */
async function ownNote(trx: Trx, conversations: Conversations, auth: AuthContext, id: number) {
  const n = await trx
    .selectFrom('message_notes')
    .selectAll()
    .where('account_id', '=', auth.accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!n) throw notFound(MESSAGE_STRINGS.noteNotFound);
  if (n.sender !== auth.username && auth.type !== 'admin') throw forbidden(MESSAGE_STRINGS.notYours);
  const m = await messageOf(trx, conversations, auth, Number(n.message_id));
  return { n, m };
}

/** MSG-19: the author (or an admin) edits a note; `receiveNote` carries the new text. */
export async function editNote(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: { id: number; text: string },
): Promise<Note> {
  return runCommand(db, async (trx) => {
    const { n, m } = await ownNote(trx, conversations, auth, input.id);
    const at = Date.now();
    await trx
      .updateTable('message_notes')
      .set({ text: input.text, updated_at: at })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', input.id)
      .execute();
    const note = toNote({ ...n, text: input.text, updated_at: at });
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'note.edited',
      payload: { ...note, ticketId: m.ticketId },
      realtime: { name: 'receiveNote', rooms: await conversations.staffAudience(trx, m.audience) },
    });
    return note;
  });
}

/** MSG-19: the author (or an admin) deletes a note; `deleteNote`. */
export async function deleteNote(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: { id: number },
): Promise<void> {
  await runCommand(db, async (trx) => {
    const { n, m } = await ownNote(trx, conversations, auth, input.id);
    await trx.deleteFrom('message_notes').where('account_id', '=', auth.accountId).where('id', '=', input.id).execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'note.deleted',
      payload: { id: Number(n.id), message_id: m.id, ticketId: m.ticketId } satisfies DeleteNoteEvent,
      realtime: { name: 'deleteNote', rooms: await conversations.staffAudience(trx, m.audience) },
    });
  });
}

/**
 * MSG-19, MSG-06: a user's reaction, once per emoji and message; adding it twice or removing one that is
 * not there changes nothing and sends nothing.
 */
export async function react(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: { message_id: number; reaction: string; emoji_text: string; remove: boolean },
): Promise<void> {
  await runCommand(db, async (trx) => {
    const m = await messageOf(trx, conversations, auth, input.message_id);
    const existing = await trx
      .selectFrom('message_reactions')
      .selectAll()
      .where('account_id', '=', auth.accountId)
      .where('message_id', '=', m.id)
      .where('username', '=', auth.username)
      .where('reaction', '=', input.reaction)
      .executeTakeFirst();
    let row = existing;
    if (input.remove) {
      if (!existing) return;
      await trx.deleteFrom('message_reactions').where('id', '=', existing.id).execute();
    } else {
      if (existing) return;
      row = await trx
        .insertInto('message_reactions')
        .values({
          account_id: auth.accountId,
          ticket_id: m.ticketId,
          message_id: m.id,
          username: auth.username,
          reaction: input.reaction,
          emoji_text: input.emoji_text,
          created_at: Date.now(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: input.remove ? 'reaction.removed' : 'reaction.added',
      payload: { ...toReaction(row!), ticketId: m.ticketId } satisfies ReactionEvent,
      realtime: {
        name: input.remove ? 'removeReaction' : 'addReaction',
        rooms: await conversations.staffAudience(trx, m.audience),
      },
    });
  });
}

/** MSG-19, MSG-20: pins and unpins a message; a no-op when it already is. */
export async function pin(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: { message_id: number; pinned: boolean },
): Promise<void> {
  await runCommand(db, async (trx) => {
    const m = await messageOf(trx, conversations, auth, input.message_id);
    if (m.pinned === input.pinned) return;
    await trx
      .updateTable('messages')
      .set({ pinned: input.pinned ? 1 : 0 })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', m.id)
      .execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: input.pinned ? 'message.pinned' : 'message.unpinned',
      payload: { ticketId: m.ticketId, messageId: m.id, username: auth.username } satisfies PinEvent,
      realtime: {
        name: input.pinned ? 'addPin' : 'removePin',
        rooms: await conversations.staffAudience(trx, m.audience),
      },
    });
  });
}
