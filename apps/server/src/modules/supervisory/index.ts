/** The supervisory board: a live view of the account's agents, the live-chat queue and SLA risks. */

/** Read side: the board's snapshot of one account at a moment. */
export { supervisorySnapshot } from './supervisory.queries.js';
/** HTTP route of the module. */
export { supervisoryRoutes } from './supervisory.routes.js';
