/** Notifications, Web Push (NOTIF-01..38, issue 8). SLA alerts live in modules/sla and use notifyUsers. */

/**
 * Raise notifications from any module, inside its own transaction: `notifyUsers(trx, {accountId, userIds,
 * category: 'system', type: 'others', title, body, ticketId, ticketNumber, source})`.
 */
export { NOTIFICATION_CREATED, type NotifyInput, notifyUsers } from './commands/notifyUsers.js';
/** "Assigned to you": a relay listener on `ticket.updated`. */
export { assignedListener } from './listeners.js';
/** Read side. */
export { checkUnread, listNotifications, toNotification } from './notifications.queries.js';
/** HTTP routes of the module. */
export { notificationRoutes } from './notifications.routes.js';
/** Web Push: subscriptions, the focus reports of tabs, the sender listener. */
export { focusSocket, type PushOptions, pushListener, pushToUser, userHasFocus } from './push.js';
/** The server's VAPID key pair. */
export { loadVapidKeys, type VapidKeys } from './vapid.js';
