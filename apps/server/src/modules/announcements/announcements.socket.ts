import type pino from 'pino';
import { type Clock, systemClock } from '../../platform/clock.js';
import type { DB } from '../../platform/db/db.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import { currentAnnouncement } from './announcements.queries.js';

/** SHELL-37 `getAnnouncement`: answers what shows now in the socket's own account. */
export function announcementSocket(db: DB, log: pino.Logger, clock: Clock = systemClock) {
  return (socket: AppSocket) => {
    socket.on('getAnnouncement', async (ack) => {
      if (typeof ack !== 'function') return;
      try {
        ack({ announcement: await currentAnnouncement(db, socket.data.auth.accountId, clock()) });
      } catch (err) {
        log.error({ err }, 'getAnnouncement failed');
        ack({ announcement: null });
      }
    });
  };
}
