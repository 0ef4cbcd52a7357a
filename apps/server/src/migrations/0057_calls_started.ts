import type { Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/** The call report reads an account's calls by the time they started: an index on (account, start, id). */
export const m0057_calls_started: ParleyMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('calls_account_started_idx')
      .ifNotExists()
      .on('calls')
      .columns(['account_id', 'started_at', 'id'])
      .execute();
  },
};
