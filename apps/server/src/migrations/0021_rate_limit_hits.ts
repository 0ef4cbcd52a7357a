import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Hits counted against public calls that anyone can make (sign-up, password-reset requests), per key such
 * as `signup:ip:203.0.113.9` or `reset:address:ann@example.com`. In the database, not in a node's memory,
 * so the limits hold across nodes. Rows older than the longest window are pruned.
 */
export const m0021_rate_limit_hits: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('rate_limit_hits').ifNotExists())
      .addColumn('key', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('rate_limit_hits_key_idx')
      .ifNotExists()
      .on('rate_limit_hits')
      .columns(['key', 'created_at'])
      .execute();
    await db.schema
      .createIndex('rate_limit_hits_created_idx')
      .ifNotExists()
      .on('rate_limit_hits')
      .column('created_at')
      .execute();
  },
};
