import { z } from 'zod';
import type { MessageDeliveryEvent } from './channels.js';
import type { NewContextEvent, NewEmotionEvent, TextEmotionEvent, VoiceEmotionEvent } from './emotion.js';
import type { LabelsUpdated, SettingsChanged } from './labels.js';
import type {
  AcceptAnswer,
  LiveChatEnded,
  LiveChatMerged,
  LiveChatOffer,
  LiveChatQueue,
  RemoveLiveChat,
} from './livechat.js';
import type {
  DeleteNoteEvent,
  LiveChatUnreadAnswer,
  MessageEmailStateEvent,
  NewMessageEvent,
  ParticipantChangedEvent,
  PinEvent,
  ReactionEvent,
  ReadReceiptEvent,
  ReceiveNoteEvent,
  SendAck,
  SendMessageInput,
  SyncDeleteEvent,
  TicketViewersEvent,
  TypingEvent,
} from './messages.js';
import type { NewNotification } from './notifications.js';
import type { AnnouncementMessage } from './shell.js';
import type { StatusUpdated } from './status.js';
import type { ChannelDataUpdated, TicketCreated, UnreadCount, UnreadCount2 } from './ticketLive.js';
import type { TicketNote } from './ticketNotes.js';
import type { TicketStatusesUpdated } from './ticketStatuses.js';
import type { TicketsMerged, TicketUpdated } from './tickets.js';

/**
 * Every server-to-client event is sent as `{ seq, data }`: `seq` is the account's event sequence, so a
 * client can remember the last one it applied and ask for the rest after a reconnect.
 */
export interface Envelope<T> {
  seq: number;
  data: T;
}

/** Events the server sends, by socket event name (the spec's names). */
export interface ServerToClient {
  statusUpdated: (e: Envelope<StatusUpdated>) => void;
  /** SHELL-37: an announcement was published or removed (null). */
  announcementMessage: (e: Envelope<AnnouncementMessage>) => void;
  /** An admin saved the account's labels: the whole list after the save. */
  labelsUpdated: (e: Envelope<LabelsUpdated>) => void;
  /** LABEL-20: an admin changed an account setting. */
  settingsChanged: (e: Envelope<SettingsChanged>) => void;
  /** A ticket changed (priority, ...): the item as everyone sees it. */
  updateTicket: (e: Envelope<TicketUpdated>) => void;
  /** Tickets were merged: open conversations of the primary and the others load again. */
  ticketsMerged: (e: Envelope<TicketsMerged>) => void;
  /** RT-22: a message was added to a conversation (account room, or the members of a Workspace chat). */
  newMessage: (e: Envelope<NewMessageEvent>) => void;
  /** A reply sent through the ticket's mailbox is sending, sent or failed (staff of the conversation). */
  messageEmailState: (e: Envelope<MessageEmailStateEvent>) => void;
  /** A reply on a messaging channel is sending, sent, delivered, read or failed (staff of the conversation). */
  messageDelivery: (e: Envelope<MessageDeliveryEvent>) => void;
  /** RT-26: a message was deleted. */
  syncDelete: (e: Envelope<SyncDeleteEvent>) => void;
  /** RT-27: a note was added or edited; a note was deleted. Never sent to visitors. */
  receiveNote: (e: Envelope<ReceiveNoteEvent>) => void;
  deleteNote: (e: Envelope<DeleteNoteEvent>) => void;
  /** A note on the ticket as a whole was added / deleted (staff only; see ticketNotes.ts). */
  ticketNote: (e: Envelope<TicketNote>) => void;
  ticketNoteDeleted: (e: Envelope<{ id: number; ticketId: number }>) => void;
  /** RT-29, RT-28. */
  addReaction: (e: Envelope<ReactionEvent>) => void;
  removeReaction: (e: Envelope<ReactionEvent>) => void;
  addPin: (e: Envelope<PinEvent>) => void;
  removePin: (e: Envelope<PinEvent>) => void;
  /** RT-25: a customer message was read for emotion (staff of the conversation). */
  textEmotion: (e: Envelope<TextEmotionEvent>) => void;
  /** RT-25: a WAV recording attached to a conversation was heard (staff of the conversation). */
  voiceEmotion: (e: Envelope<VoiceEmotionEvent>) => void;
  /** RT-24: a ticket's emotion counts changed; what a customer message is about. */
  newEmotion: (e: Envelope<NewEmotionEvent>) => void;
  newContext: (e: Envelope<NewContextEvent>) => void;
  /** RT-30: the members of a conversation changed. */
  participantChanged: (e: Envelope<ParticipantChangedEvent>) => void;
  /** RT-11, RT-39: someone is typing in a ticket room (ephemeral: no envelope, no catch-up). */
  sendTyping: (e: TypingEvent) => void;
  removeTyping: (e: TypingEvent) => void;
  /** Who else has the ticket open (ephemeral; sent to the room when someone joins or leaves). */
  ticketViewers: (e: TicketViewersEvent) => void;
  /** RT-09: a read receipt in a ticket room (ephemeral). */
  readMessage: (e: ReadReceiptEvent) => void;
  /** RT-09: the same for a Workspace chat (the reader sent `readMessage2`). */
  readMessage2: (e: ReadReceiptEvent) => void;
  /** NOTIF-16: a notification for this user (its own room). */
  newNotification: (e: Envelope<NewNotification>) => void;
  /** RT-21: a ticket was created (account room). */
  createTicket: (e: Envelope<TicketCreated>) => void;
  /** TICKET-49: a channel's data changed (non-admins' own rooms); ...2 for the conversation screens. */
  channelDataUpdated: (e: Envelope<ChannelDataUpdated>) => void;
  channelDataUpdated2: (e: Envelope<ChannelDataUpdated>) => void;
  /** RT-33: this user's unread counts changed (own room). */
  unreadCount2: (e: Envelope<UnreadCount2>) => void;
  /** An admin changed the custom ticket statuses (account room). */
  ticketStatusesUpdated: (e: Envelope<TicketStatusesUpdated>) => void;
  /** LIVECHAT-04: the account's live chat queue changed (the whole count, the oldest items). */
  liveChatQueue: (e: Envelope<LiveChatQueue>) => void;
  /** LIVECHAT-07: a live chat ended or was converted to a ticket. */
  liveChatEnded: (e: Envelope<LiveChatEnded>) => void;
  /** LIVECHAT-11: this user was removed from a live chat (go home if it is open). */
  removeLiveChat: (e: Envelope<RemoveLiveChat>) => void;
  /** LIVECHAT-09: a visitor session was merged into another. */
  liveChatMerged: (e: Envelope<LiveChatMerged>) => void;
  /** Automatic offering: a queued chat is offered to this user until `expires_at`. */
  liveChatOffer: (e: Envelope<LiveChatOffer>) => void;
  /** CHAT-09: how many people are in a chat's meeting (ephemeral). */
  meetingCount: (e: { ticketId: number; count: number }) => void;
  /** Catch-up after connect: everything after the client's lastSeq that it may see, then the head. */
  catchUp: (e: { events: { name: string; seq: number; data: unknown }[]; head: number; complete: boolean }) => void;
}

/** Events the client sends. */
export interface ClientToServer {
  joinRoom: (ticketId: number, ack?: (r: { ok: boolean; error?: string }) => void) => void;
  leaveRoom: (ticketId: number) => void;
  /** RT-07: join a Workspace chat's room (a member only); same answer as joinRoom. */
  joinChat: (ticketId: number, ack?: (r: { ok: boolean; error?: string }) => void) => void;
  /** RT-10, MSG-10: send a message; the ack carries the stored message or the error. */
  newChatMessage: (input: SendMessageInput, ack: (r: SendAck) => void) => void;
  /** RT-11: typing started / stopped in a ticket the socket has joined. */
  sendTyping: (ticketId: number) => void;
  removeTyping: (ticketId: number) => void;
  /**
   * RT-09: the conversation was read up to a message (readMessage2 is the same for Workspace chats). The
   * optional ack comes once the read is stored (a count asked after it counts it).
   */
  readMessage: (r: { ticketId: number; messageId: number }, ack?: (r: { ok: boolean }) => void) => void;
  readMessage2: (r: { ticketId: number; messageId: number }, ack?: (r: { ok: boolean }) => void) => void;
  /** RT-18: ask for the messages of a ticket deleted after `ts` (unix seconds). */
  sendSyncDelete: (r: { ticketId: number; ts: number }, ack: (ids: number[]) => void) => void;
  /** Whether this tab has focus (no Web Push while a tab of the user has); repeated every minute. */
  notificationFocus: (focused: boolean) => void;
  /** RT-17, TICKET-41: the ticket is open and the page focused: mark it read for this user. */
  receivedTicket: (
    ticketId: number,
    ack?: (r: { ok: boolean; error?: string; unread?: UnreadCount[] }) => void,
  ) => void;
  /** RT-19: ask for this user's unread ticket counts. */
  refreshTicketUnreadCount: (ack: (r: { ok: boolean; error?: string; unread?: UnreadCount[] }) => void) => void;
  /** RT-19: ask how many live chats this user has unread (see `LiveChatUnreadAnswer`). */
  refreshLiveChatUnreadCount: (ack: (r: LiveChatUnreadAnswer) => void) => void;
  /** STATUS-14: the client says it is here; an Offline agent becomes Online. */
  tellOnline: () => void;
  /** SHELL-37: the announcement that shows now, if any. */
  getAnnouncement: (ack: (r: AnnouncementMessage) => void) => void;
  /** LIVECHAT-04: the live chat queue now. */
  getLiveChatQueue: (ack: (r: ({ ok: true } & LiveChatQueue) | { ok: false; error: string }) => void) => void;
  /** LIVECHAT-05: accept a queued chat (an id), or Take one (null). */
  acceptLiveChat: (id: number | null, ack?: (r: AcceptAnswer) => void) => void;
  /** CHAT-09: meeting counts of chats, and joining / leaving a chat's meeting (a presence room). */
  getMeetingCount: (
    ticketIds: number[],
    ack: (r: { ok: boolean; counts?: Record<string, number>; error?: string }) => void,
  ) => void;
  joinMeeting: (ticketId: number, ack?: (r: { ok: boolean; count?: number; error?: string }) => void) => void;
  leaveMeeting: (ticketId: number, ack?: (r: { ok: boolean; count?: number; error?: string }) => void) => void;
}

/** The socket handshake: the session token (or the HttpOnly cookie) and the last sequence applied. */
export const HandshakeAuth = z.object({
  token: z.string().max(200).optional(),
  lastSeq: z.number().int().min(0).optional(),
});

/** Room names, decided here once for server and tests. */
export const rooms = {
  account: (id: number) => `account:${id}`,
  user: (id: number) => `user:${id}`,
  ticket: (id: number) => `ticket:${id}`,
  visitor: (token: string) => `visitor:${token}`,
};

/** `GET /api/events?after=N`: the same catch-up over HTTP. */
export const EventsQuery = z.object({ after: z.coerce.number().int().min(0).default(0) });
