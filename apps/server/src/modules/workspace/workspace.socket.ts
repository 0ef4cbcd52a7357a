import { meetingRoom, rooms, WORKSPACE_CHANNEL } from '@parley/contracts';
import type pino from 'pino';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import { isMember, listChats, memberRooms } from './workspace.queries.js';

const TicketId = z.number().int().positive();
const TicketIds = z.array(TicketId).max(200);
type Ack = (r: { ok: boolean; error?: string; count?: number }) => void;
const noop: Ack = () => {};

/**
 * Workspace chats over the socket: `joinChat` (RT-07), and meetings (CHAT-08..CHAT-11): a meeting is a
 * presence room per chat; its count is the number of distinct members in it, across nodes (the adapter's
 * fetchSockets). Joining, leaving and disconnecting tell the chat's members the new count (`meetingCount`).
 * `joinRoom` on a Workspace chat is refused to non-members, so typing and read receipts stay inside it.
 */
export function workspaceSocket(db: DB, log: pino.Logger) {
  // Announcements of one chat's count run one after another on this node, each counting just before it
  // emits: two tabs closing at once must not let the older count (1) arrive after the newer one (0).
  const announcing = new Map<number, Promise<unknown>>();
  return (socket: AppSocket) => {
    const auth = () => socket.data.auth;
    /** 'member' for a chat the user belongs to, 'outsider' for someone else's chat, 'other' for any other ticket. */
    const standing = async (ticketId: number): Promise<'member' | 'outsider' | 'other'> => {
      const t = await db
        .selectFrom('tickets')
        .select('channel')
        .where('account_id', '=', auth().accountId)
        .where('id', '=', ticketId)
        .executeTakeFirst();
      if (!t || t.channel !== WORKSPACE_CHANNEL) return 'other';
      return (await isMember(db, auth().accountId, ticketId, auth().userId)) ? 'member' : 'outsider';
    };
    const count = async (ticketId: number) => {
      const sockets = await socket.nsp.in(meetingRoom(ticketId)).fetchSockets();
      return new Set(sockets.map((s) => s.data.auth?.userId)).size;
    };
    const announce = (ticketId: number): Promise<number> => {
      const accountId = auth().accountId;
      const run = (announcing.get(ticketId) ?? Promise.resolve())
        .catch(() => undefined)
        .then(async () => {
          const to = await memberRooms(db, accountId, ticketId);
          const n = await count(ticketId);
          if (to.length) socket.nsp.to(to).emit('meetingCount', { ticketId, count: n });
          return n;
        });
      announcing.set(ticketId, run);
      void run
        .finally(() => {
          if (announcing.get(ticketId) === run) announcing.delete(ticketId);
        })
        .catch(() => undefined);
      return run;
    };

    // A chat's ticket room is for its members only (the tickets module lets any user of the account in).
    socket.use(([event, raw, ack], next) => {
      if (event !== 'joinRoom') return next();
      const id = TicketId.safeParse(raw);
      if (!id.success) return next();
      standing(id.data)
        .then((s) => {
          if (s !== 'outsider') return next();
          if (typeof ack === 'function') (ack as Ack)({ ok: false, error: 'Not found.' });
        })
        .catch(() => (typeof ack === 'function' ? (ack as Ack)({ ok: false, error: 'Unavailable.' }) : undefined));
    });

    socket.on('joinChat', async (raw, ack) => {
      const reply = typeof ack === 'function' ? ack : noop;
      const id = TicketId.safeParse(raw);
      if (!id.success) return reply({ ok: false, error: 'Invalid ticket id.' });
      try {
        if ((await standing(id.data)) !== 'member') return reply({ ok: false, error: 'Not found.' });
        await socket.join(rooms.ticket(id.data));
        reply({ ok: true });
      } catch {
        reply({ ok: false, error: 'Unavailable.' });
      }
    });

    // RT-19: the caller's chat totals again (chats with unread messages, and all chats).
    (socket as unknown as { on(e: string, f: (ack: unknown) => void): void }).on(
      'refreshChatUnreadCount',
      async (ack) => {
        if (typeof ack !== 'function') return;
        try {
          const { accountId, userId, username } = auth();
          const r = await listChats(db, { accountId, userId, username }, 0);
          ack({ ok: true, unread: r.unread, count: r.count });
        } catch {
          ack({ ok: false, error: 'Unavailable.' });
        }
      },
    );

    socket.on('getMeetingCount', async (raw, ack) => {
      if (typeof ack !== 'function') return;
      const ids = TicketIds.safeParse(raw);
      if (!ids.success) return ack({ ok: false, error: 'Invalid chat ids.' });
      try {
        const counts: Record<string, number> = {};
        for (const id of new Set(ids.data)) if ((await standing(id)) === 'member') counts[id] = await count(id);
        ack({ ok: true, counts });
      } catch {
        ack({ ok: false, error: 'Unavailable.' });
      }
    });

    socket.on('joinMeeting', async (raw, ack) => {
      const reply = typeof ack === 'function' ? ack : noop;
      const id = TicketId.safeParse(raw);
      if (!id.success) return reply({ ok: false, error: 'Invalid chat id.' });
      try {
        if ((await standing(id.data)) !== 'member') return reply({ ok: false, error: 'Not found.' });
        await socket.join(meetingRoom(id.data));
        reply({ ok: true, count: await announce(id.data) });
      } catch (err) {
        log.warn({ err }, 'joinMeeting failed');
        reply({ ok: false, error: 'Unavailable.' });
      }
    });

    socket.on('leaveMeeting', async (raw, ack) => {
      const reply = typeof ack === 'function' ? ack : noop;
      const id = TicketId.safeParse(raw);
      if (!id.success) return reply({ ok: false, error: 'Invalid chat id.' });
      if (!socket.rooms.has(meetingRoom(id.data))) return reply({ ok: false, error: 'Not in this meeting.' });
      try {
        await socket.leave(meetingRoom(id.data));
        reply({ ok: true, count: await announce(id.data) });
      } catch {
        reply({ ok: false, error: 'Unavailable.' });
      }
    });

    // CHAT-11, RT-02: a disconnect ends the socket's meetings; the members learn the new counts.
    let meetings: number[] = [];
    socket.on('disconnecting', () => {
      meetings = [...socket.rooms].filter((r) => r.startsWith('meeting:')).map((r) => Number(r.slice(8)));
    });
    socket.on('disconnect', () => {
      for (const id of meetings) announce(id).catch((err) => log.warn({ err }, 'meeting count after disconnect'));
    });
  };
}
