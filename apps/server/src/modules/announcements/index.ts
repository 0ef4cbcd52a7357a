/** Announcements: one banner per account that admins publish and everyone sees (SHELL-37, SHELL-38). */

/** Read side: the announcement showing now. */
export { currentAnnouncement } from './announcements.queries.js';
/** The `getAnnouncement` socket request; `announcementMessage` goes to the account room. */
export { announcementAudience } from './announcements.realtime.js';
/** HTTP routes of the module. */
export { announcementRoutes } from './announcements.routes.js';
export { announcementSocket } from './announcements.socket.js';
/** Publishes an announcement, replacing the one showing. */
export { publishAnnouncement } from './commands/publishAnnouncement.js';
/** Takes the announcement down. */
export { removeAnnouncement } from './commands/removeAnnouncement.js';
