/** Interactions: every interaction of the team in one timeline (read side only; docs/interactions.md). */

/** Read side: one page of an account's interactions as a user may see them. */
export { listInteractions } from './interactions.queries.js';
/** HTTP route of the module. */
export { interactionRoutes } from './interactions.routes.js';
