/** Time tracking: time entries per ticket per agent, a running timer per person, the team's time (docs/timer.md). */

/** The time tracked per agent over a range of days: the one query of these totals, for reports to reuse. */
export { type TimeRange, timeTotals } from './timer.queries.js';
/** HTTP routes of the module. */
export { timerRoutes } from './timer.routes.js';
