import { type AnnouncementMessage, rooms } from '@parley/contracts';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import { currentAnnouncement } from './announcements.queries.js';

/** SHELL-37: `announcementMessage` goes to everyone in the account, and only there. */
export const announcementAudience = (accountId: number, _e: AnnouncementMessage) => ({
  name: 'announcementMessage',
  rooms: [rooms.account(accountId)],
});

/** SHELL-37 `getAnnouncement`: answers what shows now in the socket's own account. */
export function announcementSocket(db: DB, log: pino.Logger) {
  return (socket: AppSocket) => {
    socket.on('getAnnouncement', async (ack) => {
      if (typeof ack !== 'function') return;
      try {
        ack({ announcement: await currentAnnouncement(db, socket.data.auth.accountId) });
      } catch (err) {
        log.error({ err }, 'getAnnouncement failed');
        ack({ announcement: null });
      }
    });
  };
}
