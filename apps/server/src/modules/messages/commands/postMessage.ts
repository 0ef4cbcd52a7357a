import {
  ErrorCode,
  MESSAGE_MAX_TEXT,
  MESSAGE_STRINGS,
  type Message,
  type MessageFile,
  type NewMessageEvent,
  type SendMessageInput,
  type TicketUpdated,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import { appendEvents, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { ticketAudience, touchTicketItem } from '../../tickets/index.js';
import { findMessage, forReader, hydrate, type MessageRow, toEvent } from '../messages.queries.js';
import { canRead, messageAudience, staffAudience } from '../messages.realtime.js';

const bad = (message: string) => new AppError(400, ErrorCode.validation, message);

/** What any module writes as a message (agents, visitors, channels, the server). */
export interface PostMessage {
  accountId: number;
  ticketId: number;
  /** A username, 'visitor', 'server' or 'translatebot' (MSG-04). */
  sender: string;
  senderName: string;
  type: string;
  message: string;
  clientId?: string | null;
  replyId?: number | null;
  files?: MessageFile[];
  email?: { to: string[]; cc: string[]; subject: string; email2?: string; template?: string } | null;
  /** A customer wrote it (visitor, e-mail, social): the ticket waits for an answer. */
  fromCustomer: boolean;
  /** The ticket's channel, when the caller read the ticket in this same transaction (saves reading it again). */
  channel?: string;
}

/**
 * The one write path of a message, inside the caller's transaction: the row, the ticket's activity
 * (updated_at; last_message_at for a customer, has_responded for an agent), `newMessage` to the
 * conversation's audience and `updateTicket` to the account. The caller has checked the ticket's account.
 */
export async function postMessage(trx: Trx, m: PostMessage): Promise<NewMessageEvent> {
  const at = Date.now();
  const ticket =
    m.channel !== undefined
      ? { channel: m.channel }
      : await trx
          .selectFrom('tickets')
          .select(['id', 'channel'])
          .where('account_id', '=', m.accountId)
          .where('id', '=', m.ticketId)
          .executeTakeFirst();
  if (!ticket) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  const row = (await trx
    .insertInto('messages')
    .values({
      account_id: m.accountId,
      ticket_id: m.ticketId,
      type: m.type,
      message: m.message,
      sender: m.sender,
      sender_name: m.senderName,
      client_id: m.clientId ?? null,
      reply_id: m.replyId ?? null,
      files: JSON.stringify(m.files ?? []),
      email_meta: m.email ? JSON.stringify(m.email) : null,
      created_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()) as MessageRow;

  const agentAnswer = !m.fromCustomer && m.type !== 'system' && m.sender !== 'server' && m.sender !== 'translatebot';

  // A row inserted just now has no notes or reactions yet (messages are never deleted outright, so its id is
  // new): only a reply needs a read, for the quoted message's preview.
  const [stored] = row.reply_id === null ? [toEvent(row)] : await hydrate(trx, m.accountId, [row]);
  // Listeners (Web Push) learn who wrote it from the event instead of reading the account's users again.
  const event = { ...stored!, fromCustomer: m.fromCustomer };
  const audienceTicket = { id: m.ticketId, accountId: m.accountId, channel: ticket.channel };
  const messageRooms = await messageAudience(trx, audienceTicket);
  const staffRooms = await staffAudience(trx, audienceTicket);
  // The ticket's activity, and its list item from the updated row, after every read: on Postgres the ticket
  // row stays locked from here to commit only, so concurrent messages of one ticket wait on each other less.
  const item = await touchTicketItem(trx, m.accountId, m.ticketId, {
    updated_at: at,
    ...(m.fromCustomer ? { last_message_at: at } : {}),
    ...(agentAnswer ? { has_responded: 1 } : {}),
  });
  if (!item) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  // Appended last: the account's sequence stays locked from here to commit only.
  await appendEvents(trx, m.accountId, [
    {
      accountId: m.accountId,
      type: 'message.created',
      payload: event,
      realtime: { name: 'newMessage', rooms: messageRooms },
    },
    {
      accountId: m.accountId,
      type: 'ticket.updated',
      payload: item satisfies TicketUpdated,
      // The conversation's staff audience: the account room (as ticketAudience) unless the channel narrows
      // it, so a Workspace chat's activity reaches its members only.
      realtime: { name: ticketAudience(m.accountId, item).name, rooms: staffRooms },
    },
  ]);
  return event;
}

/** A unique-index violation on either database. */
const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(e?.message ?? '');
};

/** The message already stored under this `queue-` id in the account, hydrated, or undefined. */
async function byClientId(db: DB, accountId: number, clientId: string) {
  const row = await db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row ? (await hydrate(db, accountId, [row]))[0] : undefined;
}

/** Checks the text of a message by its type; throws the clear 400 of each case. */
export function checkBody(type: string, message: string, hasFiles: boolean): void {
  if (message.trim() === '' && !hasFiles) throw bad(MESSAGE_STRINGS.empty);
  if (type !== 'text/html' && message.length > MESSAGE_MAX_TEXT) throw bad(MESSAGE_STRINGS.tooLong(MESSAGE_MAX_TEXT));
}

/** Uploaded files named by their URLs, each one of the account's own. */
export async function filesOf(db: DB | Trx, accountId: number, urls: string[]): Promise<MessageFile[]> {
  const out: MessageFile[] = [];
  for (const url of urls) {
    const key = /^\/files\/([A-Za-z0-9_-]{16,64})\//.exec(url)?.[1];
    const row = key
      ? await db
          .selectFrom('uploads')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .executeTakeFirst()
      : undefined;
    if (!row) throw bad(`Unknown file: ${url.slice(0, 100)}`);
    out.push(fileOf(row));
  }
  return out;
}

export const fileOf = (r: {
  key: string;
  name: string;
  mime: string;
  size: number;
  thumb_key: string | null;
}): MessageFile => ({
  file: `/files/${r.key}/${encodeURIComponent(r.name)}`,
  fileName: r.name,
  fileType: r.mime,
  size: Number(r.size),
  thumb: r.thumb_key ? `/files/${r.thumb_key}/thumb.jpg` : null,
});

/**
 * MSG-10, MSG-23: an agent sends a message. Idempotent by `client_id` (the `queue-` id): a repeat answers
 * the message the first call stored, whichever node or retry it came through, and appends no event.
 * The ticket is read once, in the command's transaction: 404 "Ticket not found." when it is not the
 * account's, 403 "You cannot read this conversation." when the user may not read it (callers need not
 * check first); its channel goes on to `postMessage`.
 */
export async function sendMessage(
  db: DB,
  auth: AuthContext,
  input: SendMessageInput,
  extra: Partial<Pick<PostMessage, 'email' | 'files'>> = {},
): Promise<Message> {
  const reader = { accountId: auth.accountId, username: auth.username };
  const attempt = async () =>
    runCommand(db, async (trx) => {
      const ticket = await trx
        .selectFrom('tickets')
        .select(['id', 'channel'])
        .where('account_id', '=', auth.accountId)
        .where('id', '=', input.ticket_id)
        .executeTakeFirst();
      if (!ticket) throw notFound(MESSAGE_STRINGS.ticketNotFound);
      const audience = { id: input.ticket_id, accountId: auth.accountId, channel: ticket.channel };
      if (!(await canRead(trx, audience, auth.userId)))
        throw new AppError(403, ErrorCode.forbidden, MESSAGE_STRINGS.cannotRead);
      if (input.client_id) {
        const seen = await byClientId(trx as unknown as DB, auth.accountId, input.client_id);
        if (seen) return seen;
      }
      const files = [...(extra.files ?? []), ...(await filesOf(trx, auth.accountId, input.files ?? []))];
      checkBody(input.type, input.message, files.length > 0);
      if (input.reply_id) {
        const replied = await findMessage(trx as unknown as DB, auth.accountId, input.reply_id);
        if (!replied || Number(replied.ticket_id) !== input.ticket_id) throw bad(MESSAGE_STRINGS.replyNotFound);
      }
      return postMessage(trx, {
        accountId: auth.accountId,
        ticketId: input.ticket_id,
        sender: auth.username,
        senderName: auth.name || auth.username,
        type: input.type,
        message: input.message,
        clientId: input.client_id ?? null,
        replyId: input.reply_id ?? null,
        files,
        email: extra.email ?? null,
        fromCustomer: false,
        channel: ticket.channel,
      });
    });
  try {
    return forReader(await attempt(), reader);
  } catch (err) {
    // Two sends of one queue- id raced (two nodes, a retry overtaking the first): the loser answers the winner.
    if (input.client_id && isUniqueViolation(err)) {
      const seen = await byClientId(db, auth.accountId, input.client_id);
      if (seen) return forReader(seen, reader);
    }
    throw err;
  }
}

export { toEvent };
