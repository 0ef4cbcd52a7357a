import {
  CHANNELS_OF_KIND,
  ErrorCode,
  isLiveChatChannel,
  LIVECHAT_STRINGS,
  MESSAGE_MAX_TEXT,
  MESSAGE_STRINGS,
  type Message,
  type MessageFile,
  type NewMessageEvent,
  SENDERS,
  type SendMessageInput,
  TICKET_STATUS,
  TICKET_STRINGS,
  type TicketUpdated,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { type DB, onPostgres } from '../../../platform/db/db.js';
import { AppError, badRequest, notFound } from '../../../platform/http/errors.js';
import { appendEvents, type NewEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { checkEncryptedMessage, isEncrypted } from '../../encryption/index.js';
import { ticketAudience, touchTicketItem } from '../../tickets/index.js';
import { findMessage, forReader, hydrate, type MessageRow, toEvent } from '../messages.queries.js';
import { type Conversations, staffOf } from '../messages.realtime.js';
import { systemMessage } from '../systemMessage.js';

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
  /**
   * An e-mail reply that leaves through the ticket's mailbox: stored `sending`, with `email.reply_queued`
   * appended for the sender (docs/email.md, "Out").
   */
  emailOut?: boolean;
  /** A WhatsApp template this message sends instead of its text (the customer-service window closed). */
  channelTemplate?: { name: string; language: string };
  /** A Facebook post's comment answered by Messenger (a private reply) instead of under the post. */
  channelPrivate?: boolean;
  /** Its text in other languages (`translated_text`): a translated reply keeps the agent's own words here. */
  translatedText?: Record<string, string>;
  /** For the team only (a translatebot line): never sent to a live chat visitor's room. */
  staffOnly?: boolean;
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
export async function postMessage(trx: Trx, conversations: Conversations, m: PostMessage): Promise<NewMessageEvent> {
  return (await postMessages(trx, conversations, m.accountId, [m]))[0]!;
}

/**
 * Several messages of one account in one go (`postMessage` is the case of one): the rows in one insert, in
 * the order given; each ticket touched once, after every read; one `newMessage` a message and one
 * `updateTicket` a ticket (its state after all of them), appended last with one sequence bump. On Postgres
 * the ticket rows and the account's sequence are locked from the touch to commit only, once for the lot.
 */
export async function postMessages(
  trx: Trx,
  conversations: Conversations,
  accountId: number,
  list: PostMessage[],
): Promise<NewMessageEvent[]> {
  const at = Date.now();
  const ticketIds = [...new Set(list.map((m) => m.ticketId))].sort((a, b) => a - b);
  const channels = new Map<number, string>();
  for (const m of list) if (m.channel !== undefined) channels.set(m.ticketId, m.channel);
  const unread = ticketIds.filter((id) => !channels.has(id));
  if (unread.length > 0) {
    const found = await trx
      .selectFrom('tickets')
      .select(['id', 'channel'])
      .where('account_id', '=', accountId)
      .where('id', 'in', unread)
      .execute();
    for (const t of found) channels.set(Number(t.id), t.channel);
    if (found.length !== unread.length) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  }
  // Agents' answers in a conversation of a connected messaging channel leave on it (docs/channels.md).
  const channelOut = new Set<number>();
  const outCandidates = list.filter((m) => isAgentAnswer(m) && MESSAGING.has(channels.get(m.ticketId)!));
  if (outCandidates.length > 0) {
    const connected = await trx
      .selectFrom('tickets')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', [...new Set(outCandidates.map((m) => m.ticketId))])
      .where('channel_connection_id', 'is not', null)
      .execute();
    for (const t of connected) channelOut.add(Number(t.id));
  }
  const goesOut = (m: PostMessage) => channelOut.has(m.ticketId) && isAgentAnswer(m);
  const rows = (
    (await trx
      .insertInto('messages')
      .values(
        list.map((m) => ({
          account_id: accountId,
          ticket_id: m.ticketId,
          type: m.type,
          message: m.message,
          sender: m.sender,
          sender_name: m.senderName,
          client_id: m.clientId ?? null,
          reply_id: m.replyId ?? null,
          files: JSON.stringify(m.files ?? []),
          email_meta: m.email ? JSON.stringify(m.email) : null,
          email_state: m.email && m.emailOut ? 'sending' : null,
          delivery_state: goesOut(m) ? 'sending' : null,
          ...(m.translatedText ? { translated_text: JSON.stringify(m.translatedText) } : {}),
          created_at: at,
        })),
      )
      .returningAll()
      .execute()) as MessageRow[]
  ).sort((a, b) => Number(a.id) - Number(b.id));
  // Ids come from one sequence in the order the rows were given: sorted, the rows line up with the list.
  if (rows.length !== list.length) throw new Error(`inserted ${rows.length} messages of ${list.length}`);

  // Rows inserted just now have no notes or reactions yet (messages are never deleted outright, so their ids
  // are new): only a reply needs a read, for the quoted message's preview.
  const stored = rows.some((r) => r.reply_id !== null)
    ? await hydrate(trx, accountId, rows)
    : rows.map((r) => toEvent(r));
  // Listeners (Web Push) learn who wrote it from the event instead of reading the account's users again.
  const events = stored.map((e, i) => ({ ...e, fromCustomer: list[i]!.fromCustomer }));

  const tickets = new Map<number, { messageRooms: string[]; staffRooms: string[]; set: TouchSet }>();
  for (const id of ticketIds) {
    const messageRooms = await conversations.messageAudience(trx, { id, accountId, channel: channels.get(id)! });
    tickets.set(id, { messageRooms, staffRooms: staffOf(messageRooms), set: { updated_at: at } });
  }
  for (const m of list) {
    const set = tickets.get(m.ticketId)!.set;
    const agentAnswer = isAgentAnswer(m);
    // has_responded is "the team answered the customer's last message", the one fact the list's "Replied" and
    // the SLA engine (waitsForTeam) both read: a customer message clears it, an agent answer sets it.
    if (m.fromCustomer) {
      set.last_message_at = at;
      set.has_responded = 0;
    }
    if (agentAnswer) set.has_responded = 1;
  }
  // The tickets' activity and their list items from the updated rows, after every read, in id order (two
  // writers lock them in the same order).
  const updated: NewEvent[] = [];
  const reopened: NewEvent[] = [];
  for (const [id, t] of tickets) {
    let item = await touchTicketItem(trx, accountId, id, t.set);
    if (!item) throw notFound(MESSAGE_STRINGS.ticketNotFound);
    // A customer writing to a Pending ticket (one waiting for the customer) hands it back to the team: Open
    // again, so the list, the views and the SLA clocks (paused while Pending) see it waiting.
    if (t.set.last_message_at !== undefined && item.closed === TICKET_STATUS.pending) {
      item = (await touchTicketItem(trx, accountId, id, { updated_at: at, closed: TICKET_STATUS.open }))!;
      const channel = channels.get(id)!;
      const message = TICKET_STRINGS.customerReopened;
      reopened.push(await systemMessage(trx, conversations, { accountId, ticketId: id, channel, message, at }));
      await recordAudit(trx, {
        accountId,
        actor: 'server',
        action: 'ticket.status_set',
        detail: { id, status: TICKET_STATUS.open, reason: 'customer_message' },
      });
    }
    updated.push({
      accountId,
      type: 'ticket.updated',
      payload: item satisfies TicketUpdated,
      // The conversation's staff audience: the account room (as ticketAudience) unless the channel narrows
      // it, so a Workspace chat's activity reaches its members only.
      realtime: { name: ticketAudience(accountId, item).name, rooms: t.staffRooms },
    });
  }
  // Appended last: the account's sequence stays locked from here to commit only.
  await appendEvents(trx, accountId, [
    ...events.map(
      (event, i): NewEvent => ({
        accountId,
        type: 'message.created',
        payload: event,
        realtime: {
          name: 'newMessage',
          rooms: list[i]!.staffOnly
            ? tickets.get(event.ticketId)!.staffRooms
            : tickets.get(event.ticketId)!.messageRooms,
        },
      }),
    ),
    ...events.flatMap((event, i): NewEvent[] =>
      list[i]!.email && list[i]!.emailOut
        ? [{ accountId, type: 'email.reply_queued', payload: { messageId: event.id, ticketId: event.ticketId } }]
        : [],
    ),
    ...events.flatMap((event, i): NewEvent[] =>
      goesOut(list[i]!)
        ? [
            {
              accountId,
              type: 'channel.reply_queued',
              payload: {
                messageId: event.id,
                ticketId: event.ticketId,
                ...(list[i]!.channelTemplate ? { template: list[i]!.channelTemplate } : {}),
                ...(list[i]!.channelPrivate ? { privately: true } : {}),
              },
            },
          ]
        : [],
    ),
    ...reopened,
    ...updated,
  ]);
  return events;
}

/**
 * A message of the team to the customer. A customer's message that does not wait for the team (an
 * auto-reply or a bounce stored in its ticket: sender `visitor`, not `fromCustomer`) is no answer either: it
 * leaves the ticket's state as it was.
 */
export const isAgentAnswer = (m: Pick<PostMessage, 'fromCustomer' | 'type' | 'sender'>) =>
  !m.fromCustomer &&
  m.type !== 'system' &&
  m.sender !== 'server' &&
  m.sender !== 'translatebot' &&
  m.sender !== SENDERS.visitor;

/** The ticket channels whose conversations a messaging connection carries. */
const MESSAGING = new Set<string>(Object.values(CHANNELS_OF_KIND).flat());

type TouchSet = Parameters<typeof touchTicketItem>[3];

/** A unique-index violation on either database. */
const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(e?.message ?? '');
};

/** A `queue-` id already taken by a message of another conversation (the id is unique per account). */
export const CLIENT_ID_TAKEN = 'This message id is already used.';

/**
 * The message already stored under this `queue-` id in this ticket, hydrated, or undefined. The id is
 * unique per account: one stored in another conversation is a 400 that says nothing of it (that
 * conversation may be one the caller cannot read).
 */
async function byClientId(db: DB, accountId: number, ticketId: number, clientId: string) {
  const row = await db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!row) return undefined;
  if (Number(row.ticket_id) !== ticketId) throw badRequest(CLIENT_ID_TAKEN);
  return (await hydrate(db, accountId, [row]))[0];
}

/** Checks the text of a message by its type; throws the clear 400 of each case. */
export function checkBody(type: string, message: string, hasFiles: boolean): void {
  if (message.trim() === '' && !hasFiles) throw badRequest(MESSAGE_STRINGS.empty);
  if (type !== 'text/html' && message.length > MESSAGE_MAX_TEXT)
    throw badRequest(MESSAGE_STRINGS.tooLong(MESSAGE_MAX_TEXT));
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
    if (!row) throw badRequest(`Unknown file: ${url.slice(0, 100)}`);
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
 * 404 "Ticket not found." when the ticket is not the account's, 403 "You cannot read this conversation."
 * when the user may not read it (callers need not check first); its channel goes on to `postMessage`.
 *
 * The checks read outside the write; the message then joins the account's next batch (`SendBatcher`): the
 * messages that arrive while one batch is being written (Postgres), or in the same turn of the event loop
 * (SQLite), are written together, in one transaction. Should a batch fail, each of its messages is sent
 * alone, checks and all, in its own transaction.
 */
/**
 * A live chat that has ended has no visitor to receive a message: an agent's message to it is refused with
 * the reason (its notes, and messages before the end, stay). A converted chat is a MANUAL ticket by then.
 */
async function refuseEndedLiveChat(q: DB, accountId: number, ticketId: number): Promise<void> {
  const chat = await q
    .selectFrom('livechats')
    .select('state')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (chat?.state === 'ended') throw new AppError(409, 'LIVECHAT_ENDED', LIVECHAT_STRINGS.endedNoSend);
}

export async function sendMessage(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: SendMessageInput,
  extra: Partial<Pick<PostMessage, 'email' | 'files' | 'emailOut'>> = {},
): Promise<Message> {
  const reader = { accountId: auth.accountId, username: auth.username };
  /** The message to post, or the one a repeat of its queue- id already stored. */
  const prepare = async (q: DB): Promise<{ seen: NewMessageEvent } | { post: PostMessage }> => {
    const ticket = await q
      .selectFrom('tickets')
      .select(['id', 'channel', 'encryption_method'])
      .where('account_id', '=', auth.accountId)
      .where('id', '=', input.ticket_id)
      .executeTakeFirst();
    if (!ticket) throw notFound(MESSAGE_STRINGS.ticketNotFound);
    const audience = { id: input.ticket_id, accountId: auth.accountId, channel: ticket.channel };
    if (!(await conversations.canRead(q, audience, auth.userId)))
      throw new AppError(403, ErrorCode.forbidden, MESSAGE_STRINGS.cannotRead);
    if (isLiveChatChannel(ticket.channel)) await refuseEndedLiveChat(q, auth.accountId, input.ticket_id);
    if (input.client_id) {
      const seen = await byClientId(q, auth.accountId, input.ticket_id, input.client_id);
      if (seen) return { seen };
    }
    const files = [...(extra.files ?? []), ...(await filesOf(q, auth.accountId, input.files ?? []))];
    // CRYPT-01, CRYPT-11: an encrypted ticket takes only envelopes, so plaintext is never stored.
    if (isEncrypted(ticket.encryption_method))
      checkEncryptedMessage(ticket.encryption_method, {
        type: input.type,
        message: input.message,
        hasFiles: files.length > 0,
        translated: input.original !== undefined,
      });
    else checkBody(input.type, input.message, files.length > 0);
    if (input.original && input.type !== 'text') throw badRequest(MESSAGE_STRINGS.translatedTextOnly);
    if (input.reply_id) {
      const replied = await findMessage(q, auth.accountId, input.reply_id);
      if (!replied || Number(replied.ticket_id) !== input.ticket_id) throw badRequest(MESSAGE_STRINGS.replyNotFound);
    }
    return {
      post: {
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
        emailOut: extra.emailOut ?? false,
        ...(input.original ? { translatedText: { [input.original.lang]: input.original.text } } : {}),
        fromCustomer: false,
        channel: ticket.channel,
      },
    };
  };
  /** Checks and write in one transaction of its own. */
  const alone = () =>
    runCommand(db, async (trx) => {
      const p = await prepare(trx as unknown as DB);
      return 'seen' in p ? p.seen : postMessage(trx, conversations, p.post);
    });
  try {
    const p = await prepare(db);
    const stored = 'seen' in p ? p.seen : await batcherOf(db, conversations).post(p.post, alone);
    // A reply sent translated: the agent's language becomes the conversation's team side (`source_lang`), so
    // the customer's next messages are translated into it (translatebot).
    if (input.original) await setSourceLanguage(db, auth.accountId, input.ticket_id, input.original.lang);
    return forReader(stored, reader);
  } catch (err) {
    // Two sends of one queue- id raced (two nodes, a retry overtaking the first): the loser answers the winner.
    if (input.client_id && isUniqueViolation(err)) {
      const seen = await byClientId(db, auth.accountId, input.ticket_id, input.client_id);
      if (seen) return forReader(seen, reader);
    }
    throw err;
  }
}

/** The language the team reads and writes a ticket in (`source_lang`); the customer's is `language`. */
async function setSourceLanguage(db: DB, accountId: number, ticketId: number, lang: string): Promise<void> {
  await runCommand(db, (trx) =>
    trx
      .updateTable('tickets')
      .set({ source_lang: lang })
      .where('account_id', '=', accountId)
      .where('id', '=', ticketId)
      .where('source_lang', '!=', lang)
      .execute(),
  );
}

/** Messages of one batch at most (one insert, one sequence bump). */
const BATCH_MAX = 100;

interface SendJob {
  post: PostMessage;
  alone: () => Promise<NewMessageEvent>;
  resolve(e: NewMessageEvent): void;
  reject(err: unknown): void;
}

/**
 * Agents' messages of an account, written a batch at a time: a message that finds no batch of its account
 * running starts one (at once on Postgres, at the end of this turn of the event loop on SQLite); those that
 * arrive meanwhile wait for it and go together in the next. Under load that turns many transactions, each
 * locking the ticket and the account's sequence (on Postgres) or writing the WAL (SQLite), into a few.
 */
class SendBatcher {
  private readonly waiting = new Map<number, SendJob[]>();
  private readonly busy = new Set<number>();

  constructor(
    private readonly db: DB,
    private readonly conversations: Conversations,
  ) {}

  post(post: PostMessage, alone: () => Promise<NewMessageEvent>): Promise<NewMessageEvent> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(post.accountId);
      const job = { post, alone, resolve, reject };
      if (queue) queue.push(job);
      else this.waiting.set(post.accountId, [job]);
      if (this.busy.has(post.accountId)) return;
      // Postgres: the first message goes at once; those arriving during its round trips make the next batch.
      // SQLite writes without waiting, so nothing would ever arrive meanwhile: the batch is what arrived in
      // this turn of the event loop, written at its end. A commit costs 200-500 us there (the WAL write) and
      // the rest of a message's write ~150 us: 50 busy senders went from ~800 to ~1,700 messages a second.
      this.busy.add(post.accountId);
      if (onPostgres(this.db)) void this.drain(post.accountId);
      else setImmediate(() => void this.drain(post.accountId));
    });
  }

  private async drain(accountId: number): Promise<void> {
    this.busy.add(accountId);
    try {
      for (;;) {
        const queue = this.waiting.get(accountId);
        if (!queue || queue.length === 0) break;
        const jobs = queue.splice(0, BATCH_MAX);
        let events: NewMessageEvent[] | undefined;
        try {
          events = await runCommand(this.db, (trx) =>
            postMessages(
              trx,
              this.conversations,
              accountId,
              jobs.map((j) => j.post),
            ),
          );
        } catch {
          // A repeated queue- id inside the batch or from another node, a ticket gone since its check, a
          // deadlock: each message goes alone, where its own checks give its own answer.
        }
        if (events) for (const [i, j] of jobs.entries()) j.resolve(events[i]!);
        // One after another, so their rows and events keep the order they came in.
        else for (const j of jobs) await j.alone().then(j.resolve, j.reject);
      }
    } finally {
      this.waiting.delete(accountId);
      this.busy.delete(accountId);
    }
  }
}

const batchers = new WeakMap<DB, SendBatcher>();
/** One batcher per database handle, so per server instance (its conversation rules with it). */
function batcherOf(db: DB, conversations: Conversations): SendBatcher {
  let b = batchers.get(db);
  if (!b) {
    b = new SendBatcher(db, conversations);
    batchers.set(db, b);
  }
  return b;
}

export { toEvent };
