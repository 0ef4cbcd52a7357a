import { rooms } from '@parley/contracts';
import { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import type { DB } from '../../platform/db/db.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import { markTicketRead } from './commands/readState.js';
import { typingBoardOf } from './typing.js';
import { unreadCounts } from './unreadCounts.js';

const TicketId = z.number().int().positive();

/**
 * The ticket room: a socket joins the room of a ticket it opened, to receive that ticket's typing and
 * message events. Only a ticket of the socket's own account can be joined. `clock` times the typing list.
 */
export function ticketRoomSocket(db: DB, clock?: Clock) {
  const typing = typingBoardOf(db, clock);
  return (socket: AppSocket) => {
    // TICKET-66: who is typing, for the ticket's `typing` list (typing.ts).
    typing.follow(socket);
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
    // RT-17, TICKET-41: the client read the ticket (open and focused); unreadCount2 follows to the user.
    socket.on('receivedTicket', async (ticketId, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      const id = TicketId.safeParse(ticketId);
      if (!id.success) return reply({ ok: false, error: 'Invalid ticket id.' });
      const { accountId, userId } = socket.data.auth;
      try {
        reply({ ok: true, unread: await markTicketRead(db, { accountId, userId }, id.data) });
      } catch {
        reply({ ok: false, error: 'Not found.' });
      }
    });
    // RT-19: the client asks for its unread ticket counts again.
    socket.on('refreshTicketUnreadCount', async (ack) => {
      if (typeof ack !== 'function') return;
      const { accountId, userId } = socket.data.auth;
      try {
        ack({ ok: true, unread: await unreadCounts(db, { accountId, userId }) });
      } catch {
        ack({ ok: false, error: 'Unavailable.' });
      }
    });
    socket.on('leaveRoom', (ticketId) => {
      const id = TicketId.safeParse(ticketId);
      if (id.success) void socket.leave(rooms.ticket(id.data));
    });
  };
}
