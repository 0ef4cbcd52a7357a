import { type Kysely, sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/**
 * Sign-in and user creation look a username up by `lower(username)`. This index makes that lookup an
 * index read, and makes "Sam" and "sam" one name even when both are created at the same moment.
 */
export const m0003_username_lower_unique: ParleyMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('users_username_lower_uq')
      .ifNotExists()
      .on('users')
      .expression(sql`lower(username)`)
      .unique()
      .execute();
  },
};
