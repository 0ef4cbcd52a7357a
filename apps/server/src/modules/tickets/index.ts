/** Tickets: the lists and their filters, one ticket, priority, campaigns (TICKET-01..67). */

/** Automatic assignment: the pure choice and the command that applies it. */
export { assignCandidates, assignTicketAutomatically, chooseAssignee } from './assignment.js';
/** Status, manual assignment, labels and department changes (system message, updateTicket, audit). */
export { assignTicket, setTicketDepartment, setTicketLabels, setTicketStatus } from './commands/changeTicket.js';
/** Sets a ticket's priority and tells the account. */
export { setTicketPriority } from './commands/setTicketPriority.js';
/** Read side: list pages, one ticket, campaigns. */
export { listCampaigns, loadTickets, ticketInfo, ticketItem } from './tickets.queries.js';
/** The ticket room join/leave, and `updateTicket` to the account room. */
export { ticketAudience, ticketRoomSocket } from './tickets.realtime.js';
/** HTTP routes of the module. */
export { ticketRoutes } from './tickets.routes.js';
