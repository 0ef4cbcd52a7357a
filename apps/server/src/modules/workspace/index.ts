/** Workspace: internal chats between team members and their meetings (issue 7: CHAT). */
import { WORKSPACE_CHANNEL } from '@parley/contracts';
import { registerAccess, registerAudience } from '../messages/index.js';
import { isMember, memberRooms } from './workspace.queries.js';

/** Starting a chat; renaming, adding and removing members; marking a chat read. */
export { createChat } from './commands/createChat.js';
export { memberChat, readChat } from './commands/readChat.js';
export { updateChat } from './commands/updateChat.js';
/** Read side: the caller's chats with unread counts and last messages. */
export { chatItem, listChats } from './workspace.queries.js';
/** HTTP routes of the module. */
export { workspaceRoutes } from './workspace.routes.js';
/** Socket events: joinChat, getMeetingCount, joinMeeting, leaveMeeting; the chat room guard. */
export { workspaceSocket } from './workspace.socket.js';

/** A Workspace chat's events reach its members' own rooms only, and only members may read or write it. */
registerAudience(WORKSPACE_CHANNEL, (trx, ticket) => memberRooms(trx, ticket.accountId, ticket.id));
registerAccess(WORKSPACE_CHANNEL, (db, ticket, userId) => isMember(db, ticket.accountId, ticket.id, userId));
