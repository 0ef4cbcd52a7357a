/** Notifications, Web Push (NOTIF-01..38). SLA alerts live in modules/sla and use notifyUsers. */

/**
 * Raise notifications from any module, inside its own transaction: `notifyUsers(trx, {accountId, userIds,
 * category: 'system', type: 'others', title, body, ticketId, ticketNumber, source})`.
 */
export { NOTIFICATION_CREATED, type NotifyInput, notifyUsers } from './commands/notifyUsers.js';
/** Web Push for new tickets and for customers' messages in my tickets (`ticket.created`, `message.created`). */
export { type ConversationPush, conversationPushListener, newTicketAudience } from './conversationPush.js';
/** "Assigned to you" / "Chat transferred to you" on `ticket.updated`; "mentioned in a note" on `note.*`. */
export { assignedListener, mentionedNames, mentionListener } from './listeners.js';
/** Read side. */
export { checkUnread, listNotifications, toNotification } from './notifications.queries.js';
/** HTTP routes of the module. */
export { notificationRoutes } from './notifications.routes.js';
/** Web Push: subscriptions, the focus reports of tabs, the sender listener. */
export { focusSocket, type PushOptions, pushListener, pushToUser, userHasFocus } from './push.js';
/** The server's VAPID key pair. */
export { loadVapidKeys, type VapidKeys } from './vapid.js';
