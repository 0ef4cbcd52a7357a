import { rooms, type TicketUpdated } from '@parley/contracts';

/** `updateTicket` goes to everyone in the account, and only there; read state is added by each client. */
export const ticketAudience = (accountId: number, _e: TicketUpdated) => ({
  name: 'updateTicket',
  rooms: [rooms.account(accountId)],
});
