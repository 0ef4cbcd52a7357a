/** Agent status and presence: the status menu, the online list, custom statuses. */

/** The one place a user's status changes (periods, last seen, `statusUpdated`). */
export { applyStatus, type StatusChange, type Who } from './commands/applyStatus.js';
/** The agent chooses a status. */
export { updateStatus } from './commands/updateStatus.js';
/** Presence across nodes: socket rows, heartbeats, the grace period and the stale-node sweep. */
export { Presence, type PresenceOptions } from './presence.js';
/** Read side: the online list and the custom statuses. */
export { listCustomStatuses, onlineList } from './status.queries.js';
/** `statusUpdated` goes to the whole account; each socket drives presence. */
export { statusUpdatedAudience } from './status.realtime.js';
/** HTTP routes of the module. */
export { statusRoutes } from './status.routes.js';
export { presenceSocket } from './status.socket.js';
