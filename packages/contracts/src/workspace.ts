import { z } from 'zod';

/**
 * Workspace: the internal chat between team members (CHAT-01..CHAT-11). A chat is a ticket of
 * channel `chat` with members, so the messages module's one write path, idempotent sends and
 * catch-up apply unchanged; only members receive its events and may read or write it. A meeting is, for
 * now, a presence room per chat: who is "in the meeting" of that chat (CHAT-08, CHAT-09).
 */

/** The Workspace channel code. */
export const WORKSPACE_CHANNEL = 'chat';
/** Chats a page of the list shows; Show More asks for the next page (CHAT-02). */
export const CHAT_PAGE = 30;
/** Most members a chat may have, the creator included. */
export const CHAT_MAX_MEMBERS = 50;
export const CHAT_TITLE_MAX = 100;

/** The spec's words (CHAT-02, CHAT-03, SHELL-34) and the designed ones (CHAT-07), in one place. */
export const WORKSPACE_STRINGS = {
  tab: 'Workspace',
  title: 'Chats',
  showMore: 'Show More',
  empty: "It's empty.",
  emptyBody: 'Your messages will appear here after selecting a conversation.',
  cannotRead: 'You cannot read this conversation.',
  /** Design (CHAT-07). */
  newChat: 'New chat',
  members: 'Members',
  chatTitle: 'Title',
  titleHint: 'Optional for a chat with one person',
  create: 'Create',
  cancel: 'Cancel',
  noChats: 'No chats yet. Start one with New chat.',
  pickMembers: 'Pick at least one team member.',
  unknownMember: 'Every member must be an active user of your workspace.',
  chatNotFound: 'Chat not found.',
  notMember: 'You are not a member of this chat.',
  directNoChange: 'A chat with one person has no title or member changes; start a group instead.',
  lastMember: 'A group needs at least two members.',
  joinMeeting: 'Join meeting',
  leaveMeeting: 'Leave meeting',
  onMeeting: 'You are on a meeting',
  inMeeting: (n: number) => (n === 1 ? '1 in meeting' : `${n} in meeting`),
  you: 'You',
} as const;

const Id = z.number().int().positive();
const Title = z.string().trim().max(CHAT_TITLE_MAX);

/** `POST /api/chat/create`: the other members by user id; one member and no title is a 1:1 chat. */
export const CreateChatInput = z.object({
  members: z
    .array(Id)
    .min(1, WORKSPACE_STRINGS.pickMembers)
    .max(CHAT_MAX_MEMBERS - 1),
  title: Title.optional(),
});
export type CreateChatInput = z.infer<typeof CreateChatInput>;

/** `POST /api/chat/update` (CHAT-07): a group's title, members added and removed. */
export const UpdateChatInput = z.object({
  id: Id,
  title: Title.optional(),
  add: z.array(Id).max(CHAT_MAX_MEMBERS).optional(),
  remove: z.array(Id).max(CHAT_MAX_MEMBERS).optional(),
});
export type UpdateChatInput = z.infer<typeof UpdateChatInput>;

/** `POST /api/chat/read`: the caller read the chat up to now. */
export const ChatIdInput = z.object({ id: Id });
export const ChatIdParams = z.object({ id: z.coerce.number().int().positive() });
export const ChatListQuery = z.object({ offset: z.coerce.number().int().min(0).max(1_000_000).default(0) });

export const ChatMember = z.object({ user_id: z.number(), username: z.string(), name: z.string() });
export type ChatMember = z.infer<typeof ChatMember>;

/** CHAT-04: a chat item (id, title, ts, encryption) plus what the list shows; meeting counts come by socket. */
export const ChatItem = z.object({
  id: z.number(),
  title: z.string(),
  /** Unix seconds of the last activity. */
  ts: z.number(),
  encryption: z.boolean(),
  kind: z.enum(['direct', 'group']),
  members: z.array(ChatMember),
  /** Messages of others after the caller last read the chat. */
  unread: z.number(),
  last_message: z
    .object({ id: z.number(), message: z.string(), sender: z.string(), sender_name: z.string(), ts: z.number() })
    .nullable(),
});
export type ChatItem = z.infer<typeof ChatItem>;

export const ChatAnswer = z.object({ result: z.literal('success'), data: ChatItem });
export type ChatAnswer = z.infer<typeof ChatAnswer>;
/** `GET /api/chat/list`: the caller's chats, newest activity first; `unread` counts chats with unread (CHAT-05). */
export const ChatListAnswer = z.object({
  result: z.literal('success'),
  data: z.array(ChatItem),
  count: z.number(),
  unread: z.number(),
});
export type ChatListAnswer = z.infer<typeof ChatListAnswer>;

/** The meeting room of a chat (ephemeral presence, never stored). */
export const meetingRoom = (ticketId: number) => `meeting:${ticketId}`;
