/** Data retention and privacy (docs/retention.md). */

/** HTTP routes: rules, preview, Run now, last runs; a contact's data export and erasure. */
export { type RetentionRouteDeps, retentionRoutes } from './retention.routes.js';
/** The daily scheduled run of every account's rules. */
export { retentionTask } from './rules.js';
