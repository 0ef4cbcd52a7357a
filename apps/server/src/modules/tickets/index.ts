/** Tickets: the lists and their filters, one ticket, priority, campaigns (TICKET-01..67). */

/** Automatic assignment: the pure choice and the command that applies it. */
export {
  assignCandidates,
  assignTicketAutomatically,
  assignTicketAutomaticallyIn,
  chooseAssignee,
} from './assignment.js';
/** Status, manual assignment, labels and department changes (system message, updateTicket, audit). */
export {
  type Actor,
  actorOf,
  assignTicket,
  assignTicketIn,
  changeTicketIn,
  departmentPlan,
  type Plan as TicketChangePlan,
  setTicketDepartment,
  setTicketLabels,
  setTicketLabelsIn,
  setTicketStatus,
  setTicketStatusIn,
} from './commands/changeTicket.js';
/**
 * Creating a ticket inside the caller's transaction (`runCommand(db, (trx) => createTicket(trx, {...}))`):
 * returns the id; emits createTicket and channelDataUpdated(2); runs the department's automatic assignment.
 */
export { createTicket, departmentStrategy, type NewTicket } from './commands/createTicket.js';
/**
 * Read state: mark read (unreadCount2 to the user) and `touchTicketOnMessage`, which the messages module
 * calls in the transaction that stores a message (updated_at, last_message_at or has_responded,
 * updateTicket, channelDataUpdated for customer messages).
 */
export { markTicketRead, touchTicketOnMessage } from './commands/readState.js';
/** Sets a ticket's campaign (TICKET-64), like the other changes. */
export { setTicketCampaign } from './commands/setTicketCampaign.js';
/** Sets a ticket's priority and tells the account. */
export { setTicketPriority, setTicketPriorityIn } from './commands/setTicketPriority.js';
/** Inserts a ticket row numbered with the account's next ticket_number (the account locked meanwhile). */
export { insertNumberedTicket, type NewTicketRow } from './insertNumberedTicket.js';
/** Read side: list pages, one ticket, campaigns. */
export { ticketInfo } from './ticketInfo.js';
/** Custom ticket statuses. */
export { listTicketStatuses } from './ticketStatuses.js';
/** Domain events other modules listen to. */
export {
  TICKET_ASSIGNED,
  TICKET_RATED,
  TICKET_STATUS_CHANGED,
  type TicketAssigned,
  type TicketRated,
  type TicketStatusChanged,
} from './tickets.events.js';
/** The condition that a ticket is one the viewer may see (a Workspace chat: its members only). */
export {
  checkFilterIds,
  loadTickets,
  parseEmotionCounts,
  ticketItem,
  touchTicketItem,
  visibleTo as ticketVisibleTo,
} from './tickets.queries.js';
/** The ticket room join/leave, and `updateTicket` to the account room. */
export { ticketAudience } from './tickets.realtime.js';
/** HTTP routes of the module. */
export { ticketRoutes } from './tickets.routes.js';
export { ticketRoomSocket } from './tickets.socket.js';
/** The caller's unread tickets per list (RT-43, RT-44). */
export { unreadCounts } from './unreadCounts.js';
