/** Tickets: the lists and their filters, one ticket, priority, campaigns (TICKET-01..67). */

/** Sets a ticket's priority and tells the account. */
export { setTicketPriority } from './commands/setTicketPriority.js';
/** Read side: list pages, one ticket, campaigns. */
export { listCampaigns, loadTickets, ticketInfo, ticketItem } from './tickets.queries.js';
/** The ticket room join/leave, and `updateTicket` to the account room. */
export { ticketAudience, ticketRoomSocket } from './tickets.realtime.js';
/** HTTP routes of the module. */
export { ticketRoutes } from './tickets.routes.js';
