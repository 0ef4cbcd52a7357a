/** Reports (REPORT-01..12, REPORT-27): the ticket summary. */

/** Read side: one page of the ticket summary, grouped by day. */
export { type Reader, ticketSummary } from './reports.queries.js';
/** HTTP route of the module. */
export { reportRoutes } from './reports.routes.js';
