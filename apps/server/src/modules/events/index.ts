/** Events: catch-up over HTTP for clients that were away (`GET /api/events?after=N`). */

/** HTTP routes of the module. */
export { eventsRoutes } from './events.routes.js';
