/** SLA alerts (issue 8): timers as rows, a leased check, alerts through notifications, breach facts. */

/** Recipients and the plan's monthly quota. */
export { slaRecipients, takeAlert } from './alerts.js';
/** The engine (a Scheduler task), the messages hook and the relay listeners. */
export {
  type CheckResult,
  SlaEngine,
  slaLabelsListener,
  slaOnMessage,
  slaTicketListener,
} from './engine.js';
/** A ticket's timer row, brought in line with the ticket. */
export { syncSlaTimer } from './timers.js';
