/** SLA alerts: timers as rows, a leased check, alerts through notifications, breach facts. */

/** Recipients and the plan's monthly quota. */
export { SLA_BREACHED, SLA_WARNED, slaRecipients, takeAlert } from './alerts.js';
/** The engine (a Scheduler task) and the relay listeners that keep the timers in line with tickets and settings. */
export { type CheckResult, SlaEngine, slaLabelsListener, slaTicketListener } from './engine.js';
/** The business hours a ticket of a department counts in (null: none set). */
export { type BusinessSchedule, scheduleFor } from './policies.js';
/** Business hours, holidays, policies and a ticket's SLA over HTTP. */
export { slaRoutes } from './sla.routes.js';
/** A ticket's timer row, brought in line with the ticket. */
export { syncSlaTimer } from './timers.js';
