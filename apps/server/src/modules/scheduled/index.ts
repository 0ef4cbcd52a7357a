/** Scheduled messages: an agent's reply kept until its time, then sent once (see docs/messages.md). */

/** Schedule, list, change and cancel, and the task that sends what is due. */
export { changeScheduled, listScheduled, scheduleMessage, sendScheduledMessages } from './scheduled.js';
/** HTTP routes of the module. */
export { scheduledRoutes } from './scheduled.routes.js';
