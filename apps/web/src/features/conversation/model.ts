import {
  BOT_NAMES,
  MESSAGE_WINDOW,
  type Message,
  type MessageDeliveryEvent,
  type MessageEmailStateEvent,
  type NewMessageEvent,
  type Note,
  noAiResults,
  type Reaction,
  SENDERS,
  type SendStatus,
} from '@parley/contracts';
import type { ConversationData } from '../../lib/conversationData';
import { conversationDay } from '../../lib/dates';
import { heldItems, type OutboxItem, pendingFor } from './outbox';

/**
 * The pure core of a conversation (MSG-18, MSG-40, MSG-41): the window of messages one pane keeps, how
 * messages merge into it (by id, and by `client_id` for my own), how it is trimmed, how it is grouped by
 * date, and how notes, reactions, pins and deletions apply. No React, no network: unit-tested.
 */

/** A message as a pane shows it: a stored one, or one still in the outbox (`id` is its queue- id). */
export type ShownMessage = (Message & { sendStatus: SendStatus; key: string }) | PendingShown;
export interface PendingShown extends Omit<Message, 'id'> {
  id: string;
  key: string;
  sendStatus: SendStatus;
  error?: string;
  /** Waits for a failed message of this conversation written before it (retried or discarded). */
  held?: boolean;
}

/** A message still in the outbox as the pane shows it: mine, "sending" or "failed" (MSG-08). */
export const asPending = (i: OutboxItem, me: string, name: string, held = false): PendingShown => ({
  id: i.client_id,
  key: i.client_id,
  ticketId: i.ticket_id,
  type: i.type,
  message: i.message,
  sender: me,
  senderName: name,
  ts: Math.floor(i.at / 1000),
  created_at: i.at,
  client_id: i.client_id,
  isSender: true,
  unread: false,
  reply: i.reply,
  reply_id: i.reply_id,
  notes: [],
  reactions: [],
  reactions_2: {},
  pinned: false,
  emotion_2: {},
  context: '',
  translated_text: {},
  ...noAiResults(),
  files: i.fileInfo,
  email: null,
  sendStatus: i.status,
  error: i.error,
  held,
});

/**
 * MSG-08, MSG-10: what a pane shows: the stored messages ("success"), then this conversation's outbox items
 * the server does not have yet ("sending" or "failed"), in the order written. While the newest messages are
 * out of the window (scrolled up), pending ones wait below with them.
 */
export function shownMessages(data: ConversationData, items: OutboxItem[], me: string, name: string): ShownMessage[] {
  const stored = data.messages.map((m) => ({ ...m, sendStatus: 'success' as const, key: String(m.id) }));
  const pending = data.newerOut ? [] : pendingFor(items, data.ticketId, data.messages);
  const held = heldItems(items);
  return [...stored, ...pending.map((i) => asPending(i, me, name, held.has(i.client_id)))];
}

/** An event's message as the signed-in user sees it. */
export function asMessage(e: NewMessageEvent | Message, me: string): Message {
  return { ...e, isSender: e.sender === me, unread: 'unread' in e ? e.unread : e.sender !== me } as Message;
}

/** Sorted by id, one per id and per client_id (a later copy replaces an earlier one). */
export function mergeMessages(current: Message[], incoming: Message[]): Message[] {
  const byId = new Map<number, Message>();
  for (const m of current) byId.set(m.id, m);
  for (const m of incoming) {
    if (m.client_id) {
      for (const [id, old] of byId) if (old.client_id === m.client_id && id !== m.id) byId.delete(id);
    }
    byId.set(m.id, m);
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * MSG-41: keeps at most `max` messages. `keep: 'newest'` (reading at the bottom, a new message came)
 * lets the oldest go; `keep: 'oldest'` (older ones were just loaded on top) lets the newest go.
 */
export function trimWindow(
  d: ConversationData,
  keep: 'newest' | 'oldest',
  max: number = MESSAGE_WINDOW,
): ConversationData {
  if (d.messages.length <= max) return d;
  if (keep === 'newest') return { ...d, messages: d.messages.slice(-max), olderOut: true };
  return { ...d, messages: d.messages.slice(0, max), newerOut: true };
}

/**
 * A new live message: appended when the window holds the newest end, else only counted. A copy of a message
 * already held (my own ack, then its `newMessage`) keeps the held channel delivery: the copy was taken when the
 * message was stored, and `messageDelivery` may already have brought a newer state.
 */
export function addLive(d: ConversationData, incoming: Message): ConversationData {
  const held = d.messages.find((x) => x.id === incoming.id);
  const m = held?.delivery ? { ...incoming, delivery: held.delivery } : incoming;
  const known = d.messages.some((x) => x.id === m.id || (m.client_id !== null && x.client_id === m.client_id));
  if (d.newerOut) {
    const last = d.messages.at(-1);
    if (known || (last && m.id <= last.id)) return { ...d, messages: d.messages.map((x) => (x.id === m.id ? m : x)) };
    return { ...d, count: d.count + 1 };
  }
  const messages = mergeMessages(d.messages, [m]);
  return trimWindow({ ...d, messages, count: known ? d.count : d.count + 1 }, 'newest');
}

/** Older messages loaded above the window (scrolling up). */
export function addOlder(d: ConversationData, older: Message[], more: boolean, count: number): ConversationData {
  return trimWindow({ ...d, messages: mergeMessages(d.messages, older), olderOut: more, count }, 'oldest');
}

/** What a check call returned after a reconnect: missed messages added, deleted ones removed. */
export function applyCheck(d: ConversationData, missing: Message[], deleted: number[], ts: number): ConversationData {
  let next = removeMessages(d, deleted);
  for (const m of missing) next = addLive(next, m);
  return { ...next, ts };
}

export function removeMessages(d: ConversationData, ids: number[]): ConversationData {
  if (ids.length === 0) return d;
  const gone = new Set(ids);
  const messages = d.messages.filter((m) => !gone.has(m.id));
  const removed = d.messages.length - messages.length;
  if (removed === 0) return d;
  return { ...d, messages, count: Math.max(0, d.count - removed) };
}

const mapMessage = (d: ConversationData, id: number, f: (m: Message) => Message): ConversationData =>
  d.messages.some((m) => m.id === id) ? { ...d, messages: d.messages.map((m) => (m.id === id ? f(m) : m)) } : d;

/** `receiveNote`: a new note, or an edit of one. */
export const upsertNote = (d: ConversationData, n: Note): ConversationData =>
  mapMessage(d, n.message_id, (m) => {
    const note: Note = {
      id: n.id,
      message_id: n.message_id,
      sender: n.sender,
      text: n.text,
      ts: n.ts,
      updated_at: n.updated_at,
    };
    const has = m.notes.some((x) => x.id === n.id);
    return { ...m, notes: has ? m.notes.map((x) => (x.id === n.id ? note : x)) : [...m.notes, note] };
  });

export const dropNote = (d: ConversationData, messageId: number, noteId: number): ConversationData =>
  mapMessage(d, messageId, (m) => ({ ...m, notes: m.notes.filter((x) => x.id !== noteId) }));

/** MSG-06: `reactions_2` is rebuilt from the list, each reaction to the usernames who gave it. */
export function byReaction(reactions: Reaction[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of reactions) out[r.reaction] = [...(out[r.reaction] ?? []), r.username];
  return out;
}

export const applyReaction = (d: ConversationData, r: Reaction, add: boolean): ConversationData =>
  mapMessage(d, r.message_id, (m) => {
    const others = m.reactions.filter((x) => !(x.username === r.username && x.reaction === r.reaction));
    const reactions = add
      ? [
          ...others,
          { id: r.id, message_id: r.message_id, emoji_text: r.emoji_text, reaction: r.reaction, username: r.username },
        ]
      : others;
    return { ...m, reactions, reactions_2: byReaction(reactions) };
  });

export const applyPin = (d: ConversationData, messageId: number, pinned: boolean): ConversationData =>
  mapMessage(d, messageId, (m) => ({ ...m, pinned }));

/** RT-24, RT-25: a customer message's reading (`textEmotion`) or what it is about (`newContext`). */
export const applyReading = (
  d: ConversationData,
  messageId: number,
  reading: Partial<Pick<Message, 'emotion_2' | 'context' | 'recommendation' | 'aiqon_results' | 'scam_results'>>,
): ConversationData => mapMessage(d, messageId, (m) => ({ ...m, ...reading }));

/** A mailbox reply's e-mail state, as `messageEmailState` brings it. */
export const applyEmailState = (d: ConversationData, e: MessageEmailStateEvent): ConversationData =>
  mapMessage(d, e.messageId, (m) =>
    m.email
      ? {
          ...m,
          email: {
            to: m.email.to,
            cc: m.email.cc,
            subject: m.email.subject,
            state: e.state,
            ...(e.error !== null ? { error: e.error } : {}),
          },
        }
      : m,
  );

/**
 * A channel reply's delivery (sending, sent, delivered, read or failed with the provider's words), as
 * `messageDelivery` brings it: a new object for a new state, so a retry asked from the previous one sees it changed.
 */
export const applyDelivery = (d: ConversationData, e: MessageDeliveryEvent): ConversationData =>
  mapMessage(d, e.messageId, (m) => ({
    ...m,
    delivery: { state: e.state, ...(e.error !== null ? { error: e.error } : {}) },
  }));

/** Whether the conversation holds the message (a delivery for one not held yet waits for it). */
export const holds = (d: ConversationData, messageId: number) => d.messages.some((m) => m.id === messageId);

/** MSG-18: DD/MM/YYYY in the browser's time zone (the shared formatter's conversation day). */
export const dayOf = (ms: number): string => conversationDay(ms);

export type Entry<M> = { kind: 'count'; count: number } | { kind: 'day'; day: string } | { kind: 'message'; m: M };

/** MSG-18: a first entry holding the count, then each date followed by that day's messages. */
export function groupByDate<M extends { created_at: number }>(messages: M[], count: number): Entry<M>[] {
  const out: Entry<M>[] = [{ kind: 'count', count }];
  let day = '';
  for (const m of messages) {
    const d = dayOf(m.created_at);
    if (d !== day) {
      out.push({ kind: 'day', day: d });
      day = d;
    }
    out.push({ kind: 'message', m });
  }
  return out;
}

/** The newest stored message id of the window, for the check call and read receipts. */
export const lastId = (d: ConversationData) => d.messages.at(-1)?.id ?? 0;

/** RT-09 (design): a Workspace chat (channel `chat`) is read with `readMessage2`, every other conversation with `readMessage`. */
export const readEventFor = (channel: string) => (channel === 'chat' ? 'readMessage2' : 'readMessage');

/**
 * RT-09: "Seen by" under the newest message of the window each other reader has read up to (a reader of a
 * message outside the window, or of one deleted, shows under the newest one before it).
 */
export function seenByMessage(reads: Record<string, number>, messages: Message[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [user, upTo] of Object.entries(reads)) {
    const at = messages.filter((m) => m.id <= upTo).at(-1)?.id;
    if (at !== undefined) out.set(at, [...(out.get(at) ?? []), user]);
  }
  return out;
}

/**
 * The names of the other people of the team who replied after `since` (ms): a customer, the server and the
 * bots are not the team. What the composer warns about before an agent sends a reply written meanwhile.
 */
export function othersRepliedSince(messages: Message[], me: string, since: number): string[] {
  const notTeam = new Set<string>([...Object.values(SENDERS), ...BOT_NAMES, me]);
  const names = messages
    .filter((m) => m.id > 0 && m.created_at > since && m.type !== 'system' && !notTeam.has(m.sender))
    .map((m) => m.senderName || m.sender);
  return [...new Set(names)];
}
