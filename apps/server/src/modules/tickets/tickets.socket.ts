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
        void announceViewers(socket, id.data);
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
    socket.on('leaveRoom', async (ticketId) => {
      const id = TicketId.safeParse(ticketId);
      if (!id.success || !socket.rooms.has(rooms.ticket(id.data))) return;
      await socket.leave(rooms.ticket(id.data));
      void announceViewers(socket, id.data);
    });
    // The rooms are known while disconnecting; the others hear once the socket has gone from them.
    let open: number[] = [];
    socket.on('disconnecting', () => {
      open = [...socket.rooms].flatMap((r) => {
        const id = ticketOfRoom(r);
        return id === null ? [] : [id];
      });
    });
    socket.on('disconnect', () => {
      for (const id of open) void announceViewers(socket, id);
    });
  };
}

const ticketRoomPrefix = rooms.ticket(0).slice(0, -1);
function ticketOfRoom(room: string): number | null {
  if (!room.startsWith(ticketRoomPrefix)) return null;
  const id = Number(room.slice(ticketRoomPrefix.length));
  return Number.isInteger(id) && id > 0 ? id : null;
}

/**
 * Who has the ticket open: the people of every socket in its room, on every node (the adapter asks them),
 * each once, told to the room. A node that does not answer in time leaves its viewers out of this one.
 */
async function announceViewers(socket: AppSocket, ticketId: number): Promise<void> {
  const room = rooms.ticket(ticketId);
  try {
    const sockets = await socket.nsp.in(room).fetchSockets();
    const seen = new Map<string, { username: string; name: string }>();
    for (const s of sockets) {
      const a = s.data.auth;
      if (a && !seen.has(a.username)) seen.set(a.username, { username: a.username, name: a.name || a.username });
    }
    socket.nsp.to(room).emit('ticketViewers', { ticketId, viewers: [...seen.values()] });
  } catch {
    // Presence is a courtesy: a failed look-up leaves the last list shown until the next change.
  }
}
