/** Conversations: messages, notes, reactions, pins, files, translation (MSG, RT). */

/** Notes, reactions, pins and deletion. */
export { addNote, deleteMessage, deleteNote, editNote, pin, react } from './commands/changeMessage.js';
/** The one write path of a message (any module, inside its transaction), and an agent's idempotent send. */
export { isAgentAnswer, type PostMessage, postMessage, sendMessage } from './commands/postMessage.js';
/** The failed-deliveries list of Settings. */
export { deliveriesRoutes } from './deliveries.routes.js';
/** E-mail replies: the ticket's mailbox they leave from, and the plain-text part of an HTML body. */
export { htmlToText, mailboxOf } from './emailReply.js';
/** Read side: history chunks, hydration with notes/reactions/replies, the caller's flags. */
export { forReader, historyChunk, hydrate } from './messages.queries.js';
/** Who receives a channel's conversation events, and who may read it. */
export {
  type AccessRule,
  type AudienceRule,
  type AudienceTicket,
  type ConversationRule,
  Conversations,
  staffConversation,
  staffConversations,
} from './messages.realtime.js';
/** HTTP routes of the module. */
export { messageRoutes, readableTicket } from './messages.routes.js';
/** Socket events: newChatMessage, typing, read receipts, sendSyncDelete. */
export { messageSocket } from './messages.socket.js';
/** Multipart bodies and stored files: what other modules read of an upload. */
export { type IncomingFile, type MultipartBody, readMultipart, UploadGate } from './multipart.js';
/** A note on a ticket as a whole, inside the caller's transaction. */
export { addTicketNoteIn } from './ticketNotes.js';
/** The translation providers. */
export { httpTranslator, type Translator, type Translators } from './translate.js';
export { discardUploads, keyOf, sniff, sniffFile, storeUploads, uploadPath } from './uploads.js';
/** Answers one stored file of an account (the signed-in download, and the knowledge base's public images). */
export { sendUpload } from './uploads.routes.js';
