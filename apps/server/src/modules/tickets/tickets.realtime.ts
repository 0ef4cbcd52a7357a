import { rooms, type TicketUpdated } from '@parley/contracts';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';

const TicketId = z.number().int().positive();

/**
 * The ticket room: a socket joins the room of a ticket it opened, to receive that ticket's typing and
 * message events. Only a ticket of the socket's own account can be joined.
 */
export function ticketRoomSocket(db: DB) {
  return (socket: AppSocket) => {
    socket.on('joinRoom', async (ticketId, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      const id = TicketId.safeParse(ticketId);
      if (!id.success) return reply({ ok: false, error: 'Invalid ticket id.' });
      try {
        const found = await db
          .selectFrom('tickets')
          .select('id')
          .where('account_id', '=', socket.data.auth.accountId)
          .where('id', '=', id.data)
          .executeTakeFirst();
        if (!found) return reply({ ok: false, error: 'Not found.' });
        await socket.join(rooms.ticket(id.data));
        reply({ ok: true });
      } catch {
        reply({ ok: false, error: 'Unavailable.' });
      }
    });
    socket.on('leaveRoom', (ticketId) => {
      const id = TicketId.safeParse(ticketId);
      if (id.success) void socket.leave(rooms.ticket(id.data));
    });
  };
}

/** `updateTicket` goes to everyone in the account, and only there; read state is added by each client. */
export const ticketAudience = (accountId: number, _e: TicketUpdated) => ({
  name: 'updateTicket',
  rooms: [rooms.account(accountId)],
});
