/** Agent status routes (`POST /api/online_status/update`). */

/** Sets an agent's status and records the period. */
export { updateStatus } from './commands/updateStatus.js';
export { statusRoutes } from './status.routes.js';
