/** Reports (REPORT-01..12, REPORT-27): the ticket summary. */

/** Public read-only dashboards: their links and their page's data. */
export { dashboardRoutes } from './dashboards.routes.js';
/** The reporting facts kept as events happen, and their backfill for older conversations. */
export { backfillTicketFacts, reportFactsListener } from './facts.js';
/** Read side: one page of the ticket summary, grouped by day. */
export { type Reader, ticketSummary } from './reports.queries.js';
/** HTTP route of the module. */
export { reportRoutes } from './reports.routes.js';
