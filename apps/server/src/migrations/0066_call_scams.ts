import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Scam Calls (CALL-45, CALL-46): a call whose transcript the offline engine read as a possible scam, one row
 * per call. Only the reading is kept (`kind`, `confidence` in hundredths, when it was flagged): the words that
 * made it are read again from the transcript when the feed is shown, so a transcript removed by a retention
 * rule takes its words with it.
 */
export const m0066_call_scams: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('call_scams').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('confidence', c.int, (x) => x.notNull())
      .addColumn('flagged_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('call_scams_account_ticket_idx')
      .ifNotExists()
      .unique()
      .on('call_scams')
      .columns(['account_id', 'ticket_id'])
      .execute();
    await db.schema
      .createIndex('call_scams_account_flagged_idx')
      .ifNotExists()
      .on('call_scams')
      .columns(['account_id', 'flagged_at'])
      .execute();
  },
};
