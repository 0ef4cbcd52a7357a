import type { DB } from '../../platform/db/db.js';
import type { Task } from '../../platform/scheduler.js';

const DAY = 24 * 3600 * 1000;

/**
 * The loop guard's memory (`automation_chains`: which rules caused an event) is needed only until that event
 * has been handled; it is kept as long as delivered events are, then removed with them.
 */
export const pruneAutomationChains = (db: DB, days: number): Task => ({
  name: 'pruneAutomationChains',
  everyMs: 3600_000,
  async run() {
    await db
      .deleteFrom('automation_chains')
      .where('created_at', '<', Date.now() - days * DAY)
      .execute();
  },
});
