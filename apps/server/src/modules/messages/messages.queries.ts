import {
  type DeliveryState,
  type EmailState,
  MESSAGE_CHUNK,
  type Message,
  type MessageFile,
  type NewMessageEvent,
  type Note,
  type Reaction,
} from '@parley/contracts';
import type { Kysely, Selectable } from 'kysely';
import type { Database, MessagesTable } from '../../platform/db/schema.js';

type Db = Kysely<Database>;
export type MessageRow = Selectable<MessagesTable>;

/** Who reads: `isSender` and `unread` are computed for them. */
export interface Reader {
  accountId: number;
  username: string;
  /** When the reader last read the ticket (ms); messages after it from others are unread. */
  readAt?: number;
}

const parse = <T>(text: string | null, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

const seconds = (ms: number) => Math.floor(ms / 1000);

export function toNote(r: {
  id: number;
  message_id: number;
  sender: string;
  text: string;
  created_at: number;
  updated_at: number;
}): Note {
  return {
    id: Number(r.id),
    message_id: Number(r.message_id),
    sender: r.sender,
    text: r.text,
    ts: seconds(Number(r.created_at)),
    updated_at: seconds(Number(r.updated_at)),
  };
}

export function toReaction(r: {
  id: number;
  message_id: number;
  emoji_text: string;
  reaction: string;
  username: string;
}): Reaction {
  return {
    id: Number(r.id),
    message_id: Number(r.message_id),
    emoji_text: r.emoji_text,
    reaction: r.reaction,
    username: r.username,
  };
}

/** MSG-06: reaction -> usernames. */
export function reactionsByEmoji(reactions: Reaction[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of reactions) {
    const list = out[r.reaction] ?? [];
    list.push(r.username);
    out[r.reaction] = list;
  }
  return out;
}

/** A stored row as every client sees it (the event payload); `reply` is filled from the replied message. */
export function toEvent(
  r: MessageRow,
  extra: { notes?: Note[]; reactions?: Reaction[]; reply?: { sender: string; message: string } | null } = {},
): NewMessageEvent {
  const reactions = extra.reactions ?? [];
  const meta = parse<{ to?: string[]; cc?: string[]; subject?: string } | null>(r.email_meta, null);
  return {
    id: Number(r.id),
    ticketId: Number(r.ticket_id),
    type: r.type,
    message: r.message,
    sender: r.sender,
    senderName: r.sender_name || r.sender,
    ts: seconds(Number(r.created_at)),
    created_at: Number(r.created_at),
    client_id: r.client_id,
    reply: extra.reply ?? null,
    reply_id: r.reply_id === null ? null : Number(r.reply_id),
    notes: extra.notes ?? [],
    reactions,
    reactions_2: reactionsByEmoji(reactions),
    pinned: Number(r.pinned) === 1,
    emotion_2: parse<Record<string, number>>(r.emotion_2, {}),
    context: r.context,
    translated_text: parse<Record<string, string>>(r.translated_text, {}),
    // MSG-01, AI-02: what the engine made of a customer's message (empty for the rest).
    recommendation: r.recommendation,
    aiqon_results: parse<Record<string, unknown>[]>(r.aiqon_results, []),
    scam_results: parse<Record<string, unknown>[]>(r.scam_results, []),
    files: parse<MessageFile[]>(r.files, []),
    email: meta
      ? {
          to: meta.to ?? [],
          cc: meta.cc ?? [],
          subject: meta.subject ?? '',
          // Only a reply sent through the ticket's mailbox has a state.
          ...(r.email_state ? { state: r.email_state as EmailState } : {}),
          ...(r.email_error && r.email_state === 'failed' ? { error: r.email_error } : {}),
        }
      : null,
    // A reply on a messaging channel: where it is (docs/channels.md).
    ...(r.delivery_state
      ? {
          delivery: {
            state: r.delivery_state as DeliveryState,
            ...(r.delivery_error && r.delivery_state === 'failed' ? { error: r.delivery_error } : {}),
          },
        }
      : {}),
  };
}

/** MSG-54: the caller's flags on a message. */
export const forReader = (m: NewMessageEvent, reader: Reader): Message => ({
  ...m,
  isSender: m.sender === reader.username,
  unread: m.sender !== reader.username && reader.readAt !== undefined && m.created_at > reader.readAt,
});

/** Rows -> messages with their notes, reactions and replied-to previews, in the rows' order. */
export async function hydrate(db: Db, accountId: number, rows: MessageRow[]): Promise<NewMessageEvent[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => Number(r.id));
  const replyIds = [
    ...new Set(
      rows
        .map((r) => r.reply_id)
        .filter((x): x is number => x !== null)
        .map(Number),
    ),
  ];
  const [notes, reactions, replies] = await Promise.all([
    db
      .selectFrom('message_notes')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('message_id', 'in', ids)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('message_reactions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('message_id', 'in', ids)
      .orderBy('id')
      .execute(),
    replyIds.length
      ? db
          .selectFrom('messages')
          .select(['id', 'sender', 'message', 'deleted_at'])
          .where('account_id', '=', accountId)
          .where('id', 'in', replyIds)
          .execute()
      : Promise.resolve([]),
  ]);
  const group = <T extends { message_id: number }>(list: T[]) => {
    const m = new Map<number, T[]>();
    for (const x of list) {
      const k = Number(x.message_id);
      const arr = m.get(k);
      if (arr) arr.push(x);
      else m.set(k, [x]);
    }
    return m;
  };
  const notesBy = group(notes);
  const reactionsBy = group(reactions);
  const replyBy = new Map(replies.map((r) => [Number(r.id), r]));
  return rows.map((r) => {
    const replied = r.reply_id === null ? undefined : replyBy.get(Number(r.reply_id));
    return toEvent(r, {
      notes: (notesBy.get(Number(r.id)) ?? []).map(toNote),
      reactions: (reactionsBy.get(Number(r.id)) ?? []).map(toReaction),
      // A deleted message is quoted without its text.
      reply: replied ? { sender: replied.sender, message: replied.deleted_at === null ? replied.message : '' } : null,
    });
  });
}

/** The ticket of the caller's account, or undefined. */
export async function findTicket(db: Db, accountId: number, ticketId: number) {
  return db
    .selectFrom('tickets')
    .select(['id', 'account_id', 'channel', 'title', 'language', 'source_lang', 'encryption_method'])
    .where('account_id', '=', accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
}

/** When the user last read the ticket (ms), or undefined when never. */
export async function readAtOf(db: Db, accountId: number, ticketId: number, userId: number) {
  const r = await db
    .selectFrom('ticket_reads')
    .select('read_at')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return r ? Number(r.read_at) : 0;
}

/**
 * MSG-38: one chunk of history, oldest first. `before` = a message id: the chunk just older than it;
 * otherwise the newest chunk, skipping `skip` of the newest.
 */
export async function historyChunk(
  db: Db,
  accountId: number,
  ticketId: number,
  o: { before?: number; skip?: number; limit?: number },
): Promise<{ rows: MessageRow[]; count: number; more: boolean }> {
  const limit = o.limit ?? MESSAGE_CHUNK;
  let q = db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('deleted_at', 'is', null);
  if (o.before !== undefined) q = q.where('id', '<', o.before);
  const rows = await q
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .offset(o.before === undefined ? (o.skip ?? 0) : 0)
    .execute();
  const { count } = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  const more = rows.length > limit;
  return { rows: rows.slice(0, limit).reverse(), count: Number(count), more };
}

/** MSG-44: messages after `afterId` (oldest first, at most `limit + 1` to tell if there are more). */
export async function messagesAfter(db: Db, accountId: number, ticketId: number, afterId: number, limit: number) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('id', '>', afterId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

/** Ids of the ticket's messages deleted after `sinceMs`. */
export async function deletedSince(db: Db, accountId: number, ticketId: number, sinceMs: number) {
  const rows = await db
    .selectFrom('messages')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('deleted_at', '>', sinceMs)
    .orderBy('id')
    .limit(5000)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** One live message of the account (with its ticket id), or undefined. */
export async function findMessage(db: Db, accountId: number, messageId: number) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', messageId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
