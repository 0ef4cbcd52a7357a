/** SLA alerts (issue 8): timers as rows, a leased check, alerts through notifications, breach facts. */

/** Recipients and the plan's monthly quota. */
export { slaRecipients, takeAlert } from './alerts.js';
/** The engine (a Scheduler task) and the relay listeners that keep the timers in line with tickets and labels. */
export { type CheckResult, SlaEngine, slaLabelsListener, slaTicketListener } from './engine.js';
/** A ticket's timer row, brought in line with the ticket. */
export { syncSlaTimer } from './timers.js';
