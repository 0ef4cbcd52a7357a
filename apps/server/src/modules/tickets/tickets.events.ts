/**
 * `ticket.assigned`: users were newly assigned to a ticket (a person's change or the automatic assignment),
 * recorded in `ticket_assignments` at `at` in the same transaction. No socket event (`ticket.updated` carries
 * the new assignee list to screens); listeners such as "assigned to you" act on it.
 */
export const TICKET_ASSIGNED = 'ticket.assigned';
export interface TicketAssigned {
  /** The ticket's id. */
  id: number;
  /** `ticket_assignments.assigned_at` of the rows this change wrote. */
  at: number;
  usernames: string[];
}

/**
 * `ticket.rated`: the customer rated a conversation (its satisfaction survey, or the rating at the end of a live
 * chat), in the transaction that stored the rating. No socket event; the reports' facts keep it as the CSAT.
 */
export const TICKET_RATED = 'ticket.rated';
export interface TicketRated {
  /** The ticket's id. */
  id: number;
  /** 1 to 5. */
  rating: number;
}

/**
 * `ticket.status_changed`: a ticket's status changed (by hand, a macro, a rule, a bulk change), appended with
 * its `ticket.updated`. No socket event; automation rules listen to it.
 */
export const TICKET_STATUS_CHANGED = 'ticket.status_changed';
export interface TicketStatusChanged {
  /** The ticket's id. */
  id: number;
  from: number;
  to: number;
}
