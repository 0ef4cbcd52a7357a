/** Case management: cases grouping tickets of one customer matter, with stage, owner, due date and timeline. */

/** HTTP routes of the module. */
export { caseRoutes } from './cases.routes.js';
