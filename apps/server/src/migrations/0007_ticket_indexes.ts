import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import type { ParleyMigration } from './helpers.js';

/**
 * Indexes for the ticket list counts and filters (`npm run bench -- tickets`). Every list page
 * also counts every matching row; with these the count of a status tab and of a department tab reads the
 * index alone (the list type's channel condition is in it), and a received-time range with a channel
 * filter reads only the rows of those channels in the range.
 */
export const m0007_ticket_indexes: ParleyMigration = {
  async up(db: Kysely<unknown>, _dialect: Dialect) {
    const indexes: [string, string[]][] = [
      ['tickets_account_closed_channel_created_idx', ['account_id', 'closed', 'channel', 'created_at']],
      ['tickets_account_department_closed_channel_idx', ['account_id', 'department_id', 'closed', 'channel']],
    ];
    for (const [name, cols] of indexes)
      await db.schema.createIndex(name).ifNotExists().on('tickets').columns(cols).execute();
  },
};
