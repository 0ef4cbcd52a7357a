import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import type { Conversations } from '../messages/index.js';
import { acceptLiveChat } from './commands/agent.js';
import { readQueue } from './queue.js';
import type { LiveChatHub } from './visitor.socket.js';

const AcceptId = z.number().int().positive().nullable();

/** LIVECHAT-04, LIVECHAT-05: the agent asks for the queue and accepts a chat (or Take one with null). */
export function agentLiveChatSocket(db: DB, conversations: Conversations, hub: Pick<LiveChatHub, 'placesChanged'>) {
  return (socket: AppSocket) => {
    socket.on('getLiveChatQueue', async (ack) => {
      if (typeof ack !== 'function') return;
      try {
        ack({ ok: true, ...(await readQueue(db, socket.data.auth.accountId)) });
      } catch {
        ack({ ok: false, error: 'Unavailable.' });
      }
    });
    socket.on('acceptLiveChat', async (raw, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      const id = AcceptId.safeParse(raw ?? null);
      if (!id.success) return reply({ ok: false, error: 'Invalid live chat id.' });
      try {
        const r = await acceptLiveChat(db, conversations, socket.data.auth, id.data);
        if (r.ok) hub.placesChanged(socket.data.auth.accountId);
        reply(r);
      } catch {
        reply({ ok: false, error: 'Unavailable.' });
      }
    });
  };
}
