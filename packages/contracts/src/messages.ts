import { z } from 'zod';
import { MessageDelivery } from './channels.js';
import { EMAIL_CHANNELS } from './constants.js';
import { planEntitlements, STORAGE_FULL } from './plans.js';
import { NotConfiguredAnswer } from './services.js';

/*
 * Conversations and messages (MSG, RT): the message entity, its notes, reactions and pins, the calls that
 * send, load, sync and delete, and the socket payloads. Decisions where the spec is silent are written on
 * each export and summarised in docs/messages.md.
 */

/** MSG-39: messages per history chunk. */
export const MESSAGE_CHUNK = 30;
/** MSG-40: messages a conversation keeps in memory. */
export const MESSAGE_WINDOW = 60;
/** Recent tickets whose conversations stay cached. */
export const RECENT_CONVERSATIONS = 10;
/** RT-39: a typing indicator set by a socket event clears after 5 s, a local one after 2 s. */
export const TYPING_REMOTE_MS = 5_000;
export const TYPING_LOCAL_MS = 2_000;
/** MSG-37 (design): longest text message in characters; an HTML body may be longer. */
export const MESSAGE_MAX_TEXT = 20_000;
export const MESSAGE_MAX_HTML = 500_000;
/** Longest note. */
export const NOTE_MAX = 5_000;
/** Most missed messages one `check` call returns; more means the client reloads the conversation. */
export const SYNC_LIMIT = 500;

/** MSG-14, MSG-46, MSG-47, MSG-30 and the other strings of conversations, exactly as the spec has them. */
export const MESSAGE_STRINGS = {
  sendFailed: (response: string) => `Opps, message failed to send. The error is ${response}`,
  cannotRead: 'You cannot read this conversation.',
  crashed: 'Ops! The chat has crashed unexpectedly.',
  syncError: 'Sync error. Please close the app and try again.',
  badEmail: (address: string) => `Please check the email address. ${address}`,
  noKey: "You cannot read or send message because you don't have the encryption key on this browser.",
  ticketNotFound: 'Ticket not found.',
  messageNotFound: 'Message not found.',
  noteNotFound: 'Note not found.',
  notYours: 'You can only change your own messages and notes.',
  systemMessage: 'System messages cannot be deleted.',
  tooLong: (max: number) => `The message is too long (at most ${max} characters).`,
  empty: 'The message is empty.',
  badType: 'Unknown message type.',
  badQueueId: 'The client id must be "queue-" followed by 10 letters or digits.',
  replyNotFound: 'The message you reply to is not in this conversation.',
  translationOff: 'Translation is not configured.',
  translatedTextOnly: 'Only a text reply can be sent translated.',
  noFiles: 'Attach at least one file.',
  fileTooLarge: (mb: number) => `A file may be at most ${mb} MB.`,
  storageFull: STORAGE_FULL,
  fileType: 'This type of file is not allowed.',
  socketDown: 'No connection to the server.',
  /** The reply is stored, but no SMTP server is configured (SMTP_URL) to send it. */
  mailNotConfigured: 'E-mail is not configured on this server (SMTP_URL), so the reply was stored but not sent.',
  mailFailed: (response: string) => `The e-mail could not be sent: ${response}`,
  /** A reply sent through the ticket's mailbox (design): its state under the message. */
  emailSending: 'Sending…',
  emailFailed: (response: string) => `Failed: ${response}`,
  emailRetry: 'Retry',
  emailNotFailed: 'Only an e-mail that failed can be sent again.',
  emailNoMailbox: "The ticket's mailbox was removed: the e-mail cannot be sent again.",
  /** A send cut short by a crash: whether the SMTP server took it cannot be known, so it is not sent again. */
  emailInterrupted:
    'Sending was interrupted: the e-mail may or may not have left. Check with the customer before sending it again.',
} as const;

/**
 * A reply sent through the ticket's mailbox (design, docs/email.md "Out"): `sending` from the moment it is
 * stored until the SMTP server takes it (`sent`) or refuses it for good (`failed`, with the server's words).
 */
export const EmailState = z.enum(['sending', 'sent', 'failed']);
export type EmailState = z.infer<typeof EmailState>;

/** MSG-26 (design): the channels whose replies go out as e-mail through the reply composer. */
export const isEmailChannel = (channel: string) => (EMAIL_CHANNELS as readonly string[]).includes(channel);

/** MSG-09: a message queued locally has the id "queue-" and 10 random letters or digits. */
export const QUEUE_ID = /^queue-[A-Za-z0-9]{10}$/;
const QUEUE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function newQueueId(random: (n: number) => number = (n) => Math.floor(Math.random() * n)): string {
  let s = 'queue-';
  for (let i = 0; i < 10; i++) s += QUEUE_ALPHABET[random(QUEUE_ALPHABET.length)];
  return s;
}

/** MSG-02: the named types; any other type must be a file MIME type (`image/png`, `application/pdf`). */
export const MESSAGE_TYPES = ['text', 'image', 'system', 'text/html', 'case'] as const;
const MIME = /^(application|audio|font|image|text|video|model)\/[A-Za-z0-9][A-Za-z0-9.+-]{0,100}$/;
export const isMessageType = (t: string) => (MESSAGE_TYPES as readonly string[]).includes(t) || MIME.test(t);
/** Types a client may send; `system` is written by the server only. */
export const SendableType = z
  .string()
  .max(120)
  .refine((t) => t !== 'system' && isMessageType(t), MESSAGE_STRINGS.badType);

/** MSG-04: senders besides agent usernames. */
export const SENDERS = { visitor: 'visitor', server: 'server', translatebot: 'translatebot' } as const;
/** PROFILE-04: names that have no profile lookup. */
export const BOT_NAMES = ['bot', 'chatbot', 'translatebot'] as const;

/** MSG-08. */
export const SEND_STATUS = ['sending', 'success', 'failed'] as const;
export type SendStatus = (typeof SEND_STATUS)[number];

/** MSG-27: something, an @, something, a dot, then a final part that does not end in a dot. */
export function isEmailAddress(a: string): boolean {
  return /^[^@\s]+@[^@\s]+\.[^@\s]*[^@\s.]$/.test(a.trim());
}
/** MSG-28, MSG-29, MSG-30: the first address that fails, or null; `main` is needed for HTML without toEmail. */
export function firstBadEmail(o: { type: string; email?: string; cc?: string[]; toEmail?: string[] }): string | null {
  for (const a of [...(o.cc ?? []), ...(o.toEmail ?? [])]) if (!isEmailAddress(a)) return a;
  const needsMain = o.type === 'text/html' && (o.toEmail ?? []).length === 0;
  if (needsMain || (o.email ?? '') !== '') if (!isEmailAddress(o.email ?? '')) return o.email ?? '';
  return null;
}

/** MSG-16. */
export const Note = z.object({
  id: z.number(),
  message_id: z.number(),
  sender: z.string(),
  text: z.string(),
  /** Unix seconds. */
  ts: z.number(),
  updated_at: z.number(),
});
export type Note = z.infer<typeof Note>;

/** MSG-17: `reaction` is the emoji, `emoji_text` its short name (":thumbsup:"). */
export const Reaction = z.object({
  id: z.number(),
  message_id: z.number(),
  emoji_text: z.string(),
  reaction: z.string(),
  username: z.string(),
});
export type Reaction = z.infer<typeof Reaction>;

/** An attached file as stored (MSG-35): served at `file` to members of the account only. */
export const MessageFile = z.object({
  file: z.string(),
  fileName: z.string(),
  fileType: z.string(),
  size: z.number(),
  /** A small JPEG of an image, or null. */
  thumb: z.string().nullable(),
});
export type MessageFile = z.infer<typeof MessageFile>;

/** AI-02 (design): one finding of the AI about a message, as its service gives it (a JSON object). */
export const MessageAiFinding = z.record(z.string(), z.unknown());

/**
 * MSG-01, AI-02 (design): what the AI made of a message, empty until the AI work fills it in.
 * `recommendation`: the next-best-action hint for the agent, '' for none. `aiqon_results`: the AI's analysis
 * findings (classification, what to say), `scam_results`: its scam-detection findings; [] for none.
 */
export const noAiResults = () => ({
  recommendation: '',
  aiqon_results: [] as z.infer<typeof MessageAiFinding>[],
  scam_results: [] as z.infer<typeof MessageAiFinding>[],
});

/** MSG-01: one message as every client sees it. `isSender` and `unread` are the caller's view. */
export const Message = z.object({
  id: z.number(),
  ticketId: z.number(),
  type: z.string(),
  message: z.string(),
  sender: z.string(),
  /** Display name of the sender (an agent's name, "Visitor", "Parley"). */
  senderName: z.string(),
  /** Unix seconds (MSG-01), and the same moment in ms for ordering and display. */
  ts: z.number(),
  created_at: z.number(),
  /** The `queue-` id the client sent it with (the idempotency key), or null. */
  client_id: z.string().nullable(),
  isSender: z.boolean(),
  unread: z.boolean(),
  reply: z.object({ sender: z.string(), message: z.string() }).nullable(),
  reply_id: z.number().nullable(),
  notes: z.array(Note),
  reactions: z.array(Reaction),
  reactions_2: z.record(z.string(), z.array(z.string())),
  pinned: z.boolean(),
  emotion_2: z.record(z.string(), z.number()),
  context: z.string(),
  translated_text: z.record(z.string(), z.string()),
  /** MSG-01, AI-02: see `noAiResults`. */
  recommendation: z.string(),
  aiqon_results: z.array(MessageAiFinding),
  scam_results: z.array(MessageAiFinding),
  files: z.array(MessageFile),
  /**
   * E-mail replies: the addresses it went to. `state` and `error` only for a reply sent through the ticket's
   * mailbox (see `EmailState`); `error` is the SMTP server's words of a failure.
   */
  email: z
    .object({
      to: z.array(z.string()),
      cc: z.array(z.string()),
      subject: z.string(),
      state: EmailState.optional(),
      error: z.string().optional(),
    })
    .nullable(),
  /** A reply on a messaging channel (WhatsApp, Telegram...): sending, sent, delivered, read or failed. */
  delivery: MessageDelivery.optional(),
});
export type Message = z.infer<typeof Message>;

const ticketId = z.coerce.number().int().positive();
const messageId = z.coerce.number().int().positive();
const queueId = z.string().regex(QUEUE_ID, MESSAGE_STRINGS.badQueueId);

/**
 * MSG-23, MSG-24 (design): `POST /api/ticket/message`, and the socket's `newChatMessage` (RT-10) with the
 * same body. `sender` is accepted for old clients and ignored: the sender is the signed-in user. `status`
 * (a ticket status code) is accepted and ignored. `client_id` is the `queue-` id: the same id twice makes
 * one message, the second call answers the first message.
 */
export const SendMessageInput = z.object({
  ticket_id: ticketId,
  message: z.string().max(MESSAGE_MAX_HTML),
  type: SendableType.default('text'),
  sender: z.string().max(200).optional(),
  status: z.unknown().optional(),
  client_id: queueId.optional(),
  reply_id: z.coerce.number().int().positive().nullable().optional(),
  /** Uploaded file paths from `/api/upload` to attach. */
  files: z.array(z.string().max(300)).max(10).optional(),
  /**
   * MSG-53, "translate my reply": `message` is the agent's text translated into the customer's language; this
   * is what the agent wrote, in their language, kept on the message's `translated_text` under `lang`.
   */
  original: z
    .object({
      lang: z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/),
      text: z.string().trim().min(1).max(MESSAGE_MAX_TEXT),
    })
    .optional(),
});
export type SendMessageInput = z.infer<typeof SendMessageInput>;
export const MessageAnswer = z.object({ result: z.literal('success'), data: Message });
export type MessageAnswer = z.infer<typeof MessageAnswer>;

const addressList = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(/[,;]/)
          .map((x) => x.trim())
          .filter(Boolean)
      : v,
  z.array(z.string().max(254)).max(50).default([]),
);
/**
 * MSG-25, MSG-26 (design): `POST /api/ticket/message/reply`, JSON or multipart (files as `attachment[]`).
 * `email` is the customer's address, `toEmail` more recipients, `cc` copies, `title` the subject; `email2`
 * and `template` are accepted and kept with the message. `closed` sets the ticket status with the reply.
 */
export const ReplyInput = SendMessageInput.omit({ files: true }).extend({
  closed: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(3).optional()),
  reply: z.string().max(MESSAGE_MAX_HTML).optional(),
  title: z.string().max(500).optional(),
  cc: addressList,
  email: z.string().max(254).optional(),
  email2: z.string().max(254).optional(),
  toEmail: addressList,
  template: z.string().max(200).optional(),
});
export type ReplyInput = z.infer<typeof ReplyInput>;
/**
 * MSG-25: `id` and the attached files (first one flat as the spec names them, all in `data.files`).
 * `mail` (design) says what happened to the e-mail: `sent` (the SMTP server took it), `not_configured`
 * (stored, not sent: no SMTP_URL; `description` says so), or `none` (not an e-mail reply). A refused
 * e-mail is not stored: the call answers 502 with the SMTP server's response (MSG-31). A reply on a ticket
 * that came in through a mailbox is stored at once and sent from that mailbox after: `sending` (a repeat of
 * its `queue-` id answers its state then: `sent` or `failed`); `data.email.state` follows it.
 */
export const ReplyAnswer = z.object({
  result: z.literal('success'),
  id: z.number(),
  file: z.string(),
  fileType: z.string(),
  fileName: z.string(),
  data: Message,
  mail: z.enum(['sent', 'sending', 'failed', 'not_configured', 'none']),
  description: z.string().optional(),
});
export type ReplyAnswer = z.infer<typeof ReplyAnswer>;

/** A mailbox reply's e-mail state changed (socket `messageEmailState`, to the conversation's staff). */
export const MessageEmailStateEvent = z.object({
  ticketId: z.number(),
  messageId: z.number(),
  state: EmailState,
  /** The SMTP server's words when it failed; null otherwise. */
  error: z.string().nullable(),
});
export type MessageEmailStateEvent = z.infer<typeof MessageEmailStateEvent>;

/**
 * `POST /api/ticket/message/reply/retry` (design): sends a failed mailbox reply again, with the same
 * Message-ID. 404 for a message that is not the account's, 409 when it is not a failed mailbox reply.
 */
export const RetryEmailInput = z.object({ id: messageId });
export const RetryEmailAnswer = z.object({ result: z.literal('success'), data: MessageEmailStateEvent });
export type RetryEmailAnswer = z.infer<typeof RetryEmailAnswer>;

/** MSG-32, MSG-33 (design): the sender of a message, or an admin, deletes it; system messages stay. */
export const DeleteMessageInput = z.object({ message_id: messageId, ticket_id: ticketId });
export const DeleteMessageAnswer = z.object({ result: z.literal('success'), message_id: z.number() });

/**
 * MSG-38: `GET /ticket/data/{id}/{count}` (and `/api/ticket/data3/{id}/0`): 30 messages, oldest first.
 * Without `messageId` the newest 30; with it the 30 before that message (scrolling up). `{count}` is the
 * number of messages the client holds, used as an offset from the newest when no `messageId` is given.
 */
export const HistoryParams = z.object({ id: ticketId, count: z.coerce.number().int().min(0).max(1_000_000) });
export const HistoryQuery = z.object({
  messageId: z.preprocess((v) => (v === '' ? undefined : v), messageId.optional()),
});
export const HistoryAnswer = z.object({
  result: z.literal('success'),
  /** The conversation's channel: the pane picks its composer and read event by it. */
  channel: z.string(),
  data: z.array(Message),
  /** Every message of the conversation (MSG-18's first entry). */
  count: z.number(),
  /** More older messages exist. */
  more: z.boolean(),
});
export type HistoryAnswer = z.infer<typeof HistoryAnswer>;

/**
 * MSG-44, MSG-45 (design): `POST /api/ticket/data/check/{ticketId}/{lastMessageId}`: what the client missed
 * in one conversation: messages after `lastMessageId` (oldest first, at most SYNC_LIMIT; `complete` false
 * means reload), and messages deleted after `ts` (unix seconds).
 */
export const CheckParams = z.object({ ticketId, lastMessageId: z.coerce.number().int().min(0) });

/** The last moment a JS Date can hold, in ms: the bound of every client time in ms. */
export const UNIX_MS_MAX = 8_640_000_000_000_000;
/**
 * The same in unix seconds. A client's `ts` is multiplied by 1000 into a bigint column: past this bound it
 * would overflow on Postgres (a 500) while SQLite answered; now both answer 400.
 */
export const UNIX_SECONDS_MAX = UNIX_MS_MAX / 1000;
/** A client's `ts` in unix seconds (fractions allowed), 0 by default, at most UNIX_SECONDS_MAX. */
export const UnixSeconds = z.coerce.number().min(0).max(UNIX_SECONDS_MAX);
export const CheckInput = z.object({ ts: UnixSeconds.default(0), _token: z.string().optional() });
export const CheckAnswer = z.object({
  result: z.literal('success'),
  missing: z.array(Message),
  deleted: z.array(z.number()),
  complete: z.boolean(),
  /** Server time in unix seconds, the `ts` of the next check. */
  ts: z.number(),
});
export type CheckAnswer = z.infer<typeof CheckAnswer>;

/**
 * MSG-42, MSG-43 (design): `GET /ticket/data/sync?ts=`: after a reconnect or a successful auth check, the
 * ids of tickets with activity since `ts` (unix seconds), newest first, at most 200; the client refetches
 * those it shows.
 */
export const SyncQuery = z.object({ ts: UnixSeconds.default(0) });
export const SyncAnswer = z.object({
  result: z.literal('success'),
  tickets: z.array(z.object({ id: z.number(), updated_at: z.number(), last_message_id: z.number() })),
  ts: z.number(),
});

/** RT-40, RT-41, RT-42: `GET /event/{eventId}`: deletions and session merges after that event id. */
export const EventItem = z.object({
  id: z.number(),
  action: z.enum(['delete_message', 'merge_session']),
  /** The deleted message id, or the session merged away. */
  ref_id: z.number(),
  ticket_id: z.number(),
  session_id: z.number().nullable(),
});
export const EventItemsAnswer = z.object({ result: z.literal('success'), data: z.array(EventItem), head: z.number() });

/** MSG-19 (design): notes on a message. */
export const AddNoteInput = z.object({ message_id: messageId, text: z.string().trim().min(1).max(NOTE_MAX) });
export const EditNoteInput = z.object({ id: messageId, text: z.string().trim().min(1).max(NOTE_MAX) });
export const DeleteNoteInput = z.object({ id: messageId });
export const NoteAnswer = z.object({ result: z.literal('success'), data: Note });

/** MSG-19 (design): add (or with `remove`, take back) a reaction; one per user, emoji and message. */
export const ReactionInput = z.object({
  message_id: messageId,
  reaction: z.string().trim().min(1).max(16),
  emoji_text: z.string().max(64).default(''),
  remove: z.boolean().default(false),
});
/** MSG-19, MSG-20 (design): pin or unpin a message. */
export const PinInput = z.object({ message_id: messageId, pinned: z.boolean() });
export const OkAnswer = z.object({ result: z.literal('success') });

/** MSG-35: `POST /api/upload` answer, one entry per file in each list. */
export const UploadAnswer = z.object({
  result: z.literal('success'),
  file: z.array(z.string()),
  fileType: z.array(z.string()),
  fileName: z.array(z.string()),
  thumb: z.array(z.string().nullable()),
  size: z.array(z.number()),
});
export type UploadAnswer = z.infer<typeof UploadAnswer>;

/** MSG-49, MSG-50 (design): translate messages; stored on each message per target language. */
export const TranslateInput = z.object({
  ticketId,
  text: z
    .array(z.object({ id: z.coerce.number().int().min(0), message: z.string().max(MESSAGE_MAX_TEXT) }))
    .min(1)
    .max(50),
  target: z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/),
  source: z.string().max(10).optional(),
});
export const TranslateAnswer = z.union([
  z.object({
    result: z.literal('success'),
    data: z.array(z.object({ id: z.number(), message: z.string(), translated: z.string() })),
    target: z.string(),
  }),
  NotConfiguredAnswer,
]);
export type TranslateAnswer = z.infer<typeof TranslateAnswer>;
/** MSG-51, MSG-52 (design): the language the customer is answered in; stored as the ticket's `language`. */
export const LanguageInput = z.object({ ticketId, lang: z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/) });

// ---- socket payloads (RT-20, RT-38: names and payloads are ours where the spec names none) ----

/** `newMessage` (RT-22): a message was added to a conversation. */
export const NewMessageEvent = Message.omit({ isSender: true, unread: true }).extend({
  /** True when a customer wrote it (visitor, e-mail, social), false for an agent or the server. */
  fromCustomer: z.boolean().optional(),
});
export type NewMessageEvent = z.infer<typeof NewMessageEvent>;
/** `syncDelete` (RT-26). */
export const SyncDeleteEvent = z.object({ ticketId: z.number(), messageId: z.number() });
export type SyncDeleteEvent = z.infer<typeof SyncDeleteEvent>;
/** `receiveNote` (RT-27): a note was added or edited. */
export const ReceiveNoteEvent = Note.extend({ ticketId: z.number() });
export type ReceiveNoteEvent = z.infer<typeof ReceiveNoteEvent>;
/** `deleteNote` (RT-27). */
export const DeleteNoteEvent = z.object({ id: z.number(), message_id: z.number(), ticketId: z.number() });
export type DeleteNoteEvent = z.infer<typeof DeleteNoteEvent>;
/** `addReaction` / `removeReaction` (RT-29). */
export const ReactionEvent = Reaction.extend({ ticketId: z.number() });
export type ReactionEvent = z.infer<typeof ReactionEvent>;
/** `addPin` / `removePin` (RT-28). */
export const PinEvent = z.object({ ticketId: z.number(), messageId: z.number(), username: z.string() });
export type PinEvent = z.infer<typeof PinEvent>;
/** `sendTyping` / `removeTyping` as received (RT-11, RT-39): ephemeral, not kept for catch-up. */
export const TypingEvent = z.object({ ticketId: z.number(), username: z.string(), name: z.string() });
export type TypingEvent = z.infer<typeof TypingEvent>;
/** Who has a ticket open right now (every agent in its room, on any node), sent to the room on each change. */
export const TicketViewersEvent = z.object({
  ticketId: z.number(),
  viewers: z.array(z.object({ username: z.string(), name: z.string() })),
});
export type TicketViewersEvent = z.infer<typeof TicketViewersEvent>;
/** `readMessage` (RT-09) as received: who read a conversation up to which message. */
export const ReadReceiptEvent = z.object({
  ticketId: z.number(),
  username: z.string(),
  messageId: z.number(),
  ts: z.number(),
});
export type ReadReceiptEvent = z.infer<typeof ReadReceiptEvent>;
/** `participantChanged` (RT-30): the members of a conversation changed; a removed user is sent home. */
export const ParticipantChangedEvent = z.object({
  ticketId: z.number(),
  participants: z.array(z.string()),
  removed: z.array(z.string()),
});
export type ParticipantChangedEvent = z.infer<typeof ParticipantChangedEvent>;

/**
 * RT-19, RT-20 (design): the ack of `refreshLiveChatUnreadCount`: how many live chats (LIVECHAT tickets,
 * open-type) have a visitor message this user has not read, capped like every unread count (UNREAD_CAP).
 */
export type LiveChatUnreadAnswer = { ok: true; unread: number } | { ok: false; error: string };

/** What the client sends with `newChatMessage` and gets back in its ack. */
export type SendAck = { ok: true; data: Message } | { ok: false; error: string };

/**
 * PLAN table, MSG-37 (design): storage per account by plan (Starter 1GB, Basic 3GB, Pro 5GB, Enterprise
 * unlimited = null); a trial gets Starter's. Every stored file counts, thumbnails included.
 */
export const storageLimit = (plan: number): number | null => planEntitlements(plan).storageBytes;
/** MSG-37 (design): largest single file. */
export const UPLOAD_MAX_MB = 25;
/** Files per upload call. */
export const UPLOAD_MAX_FILES = 10;
