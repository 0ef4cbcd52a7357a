import { MESSAGE_STRINGS, rooms, type SendAck, SendMessageInput, UnixSeconds } from '@parley/contracts';
import type pino from 'pino';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import { unreadCounts } from '../tickets/index.js';
import { sendMessage } from './commands/postMessage.js';
import { deletedSince, findTicket } from './messages.queries.js';
import type { Conversations } from './messages.realtime.js';

const TicketId = z.number().int().positive();
const ReadInput = z.object({ ticketId: TicketId, messageId: z.number().int().min(0) });
const SyncDeleteInput = z.object({ ticketId: TicketId, ts: UnixSeconds });
const noop = () => {};

/**
 * The conversation events a signed-in socket sends (RT-09, RT-10, RT-11, RT-18): sending with an ack,
 * typing (ephemeral, to the ticket room but the sender), read receipts, asking for deletions, and the
 * live chat unread count (RT-19).
 */
export function messageSocket(db: DB, conversations: Conversations, log: pino.Logger) {
  return (socket: AppSocket) => {
    const auth = () => socket.data.auth;
    const readable = async (ticketId: number) => {
      const t = await findTicket(db, auth().accountId, ticketId);
      return (
        !!t &&
        (await conversations.canRead(
          db,
          { id: ticketId, accountId: auth().accountId, channel: t.channel },
          auth().userId,
        ))
      );
    };

    socket.on('newChatMessage', async (raw, ack) => {
      const reply: (r: SendAck) => void = typeof ack === 'function' ? ack : noop;
      const input = SendMessageInput.safeParse(raw);
      if (!input.success) return reply({ ok: false, error: input.error.issues[0]?.message ?? 'Invalid message.' });
      try {
        // sendMessage reads the ticket and checks access in its own transaction (one read of the ticket).
        reply({ ok: true, data: await sendMessage(db, conversations, auth(), input.data) });
      } catch (err) {
        // A ticket the user may not read is answered as one that does not exist, as before.
        if (err instanceof AppError)
          return reply({ ok: false, error: err.status === 403 ? MESSAGE_STRINGS.ticketNotFound : err.message });
        log.error({ err }, 'newChatMessage failed');
        reply({ ok: false, error: 'The server could not store the message.' });
      }
    });

    const typing = (event: 'sendTyping' | 'removeTyping') => (ticketId: unknown) => {
      const id = TicketId.safeParse(ticketId);
      if (!id.success || !socket.rooms.has(rooms.ticket(id.data))) return;
      const { username, name } = auth();
      socket.to(rooms.ticket(id.data)).emit(event, { ticketId: id.data, username, name: name || username });
    };
    socket.on('sendTyping', typing('sendTyping'));
    socket.on('removeTyping', typing('removeTyping'));

    // RT-09: `readMessage` for tickets and live chats, `readMessage2` for Workspace chats (what the web sends
    // by channel); each is passed on under its own name to the others in the room, and stored as read.
    const read = (event: 'readMessage' | 'readMessage2') => async (raw: unknown, ack?: unknown) => {
      const done = (ok: boolean) => typeof ack === 'function' && ack({ ok });
      const r = ReadInput.safeParse(raw);
      if (!r.success) return done(false);
      try {
        if (!(await readable(r.data.ticketId))) return done(false);
        const at = Date.now();
        const { accountId, userId, username } = auth();
        await db
          .insertInto('ticket_reads')
          .values({ account_id: accountId, ticket_id: r.data.ticketId, user_id: userId, read_at: at })
          .onConflict((oc) => oc.columns(['ticket_id', 'user_id']).doUpdateSet({ read_at: at }))
          .execute();
        socket.to(rooms.ticket(r.data.ticketId)).emit(event, {
          ticketId: r.data.ticketId,
          username,
          messageId: r.data.messageId,
          ts: Math.floor(at / 1000),
        });
        done(true);
      } catch (err) {
        log.warn({ err }, `${event} failed`);
        done(false);
      }
    };
    socket.on('readMessage', read('readMessage'));
    socket.on('readMessage2', read('readMessage2'));

    // RT-19: how many live chats this user has unread (the Live Chats badge asks again after a reconnect).
    socket.on('refreshLiveChatUnreadCount', async (ack) => {
      if (typeof ack !== 'function') return;
      try {
        const { accountId, userId } = auth();
        const counts = await unreadCounts(db, { accountId, userId });
        ack({ ok: true, unread: counts.find((c) => c.type === 'livechat')?.count ?? 0 });
      } catch (err) {
        log.warn({ err }, 'refreshLiveChatUnreadCount failed');
        ack({ ok: false, error: 'Unavailable.' });
      }
    });

    socket.on('sendSyncDelete', async (raw, ack) => {
      const reply = typeof ack === 'function' ? ack : noop;
      const r = SyncDeleteInput.safeParse(raw);
      if (!r.success) return reply([]);
      try {
        if (!(await readable(r.data.ticketId))) return reply([]);
        reply(await deletedSince(db, auth().accountId, r.data.ticketId, Math.floor(r.data.ts * 1000)));
      } catch {
        reply([]);
      }
    });
  };
}
