import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The TOTP time step of the last code a user signed in or enrolled with: a code of that step or an older one
 * is refused, so a code seen once (over a shoulder, in a log, by a phishing page) cannot be used again.
 */
export const m0022_totp_last_step: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('users')
      .addColumn('totp_last_step', c.big, (x) => x.notNull().defaultTo(0))
      .execute();
  },
};
