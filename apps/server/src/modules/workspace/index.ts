/** Workspace: internal chats between team members and their meetings (CHAT). */
import { WORKSPACE_CHANNEL } from '@parley/contracts';
import type { ConversationRule } from '../messages/index.js';
import { isMember, memberRooms } from './workspace.queries.js';

/** Starting a chat; renaming, adding and removing members; marking a chat read. */
export { createChat } from './commands/createChat.js';
export { readChat } from './commands/readChat.js';
export { updateChat } from './commands/updateChat.js';
/** Read side: the caller's chats with unread counts and last messages; a chat the caller is a member of. */
export { chatItem, listChats, memberChat } from './workspace.queries.js';
/** HTTP routes of the module. */
export { workspaceRoutes } from './workspace.routes.js';
/** Socket events: joinChat, getMeetingCount, joinMeeting, leaveMeeting; the chat room guard. */
export { workspaceSocket } from './workspace.socket.js';

/** A Workspace chat's events reach its members' own rooms only, and only members may read or write it. */
export const workspaceConversations: Record<string, ConversationRule> = {
  [WORKSPACE_CHANNEL]: {
    audience: (trx, ticket) => memberRooms(trx, ticket.accountId, ticket.id),
    access: (db, ticket, userId) => isMember(db, ticket.accountId, ticket.id, userId),
  },
};
