import type { DB } from './db/db.js';
import type { Task } from './scheduler.js';

const DAY = 24 * 3600 * 1000;

/** Delivered events are kept for catch-up for a few days, then removed. */
export const pruneDeliveredEvents = (db: DB, days: number): Task => ({
  name: 'pruneDeliveredEvents',
  everyMs: 3600_000,
  async run() {
    const before = Date.now() - days * DAY;
    await db.deleteFrom('event_receipts').where('processed_at', '<', before).execute();
    await db.deleteFrom('events').where('delivered_at', 'is not', null).where('created_at', '<', before).execute();
  },
});

/** Sessions past their expiry or revoked more than a day ago are removed. */
export const pruneExpiredSessions = (db: DB): Task => ({
  name: 'pruneExpiredSessions',
  everyMs: 3600_000,
  async run() {
    const at = Date.now();
    await db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<', at), eb('revoked_at', '<', at - DAY)]))
      .execute();
  },
});
