import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Data retention (docs/retention.md): `retention_rules` per account (what, how, after how many days, on
 * which channel), `retention_runs` the log of each run with its counts, and an `anonymised_at` mark on
 * tickets and live chats so an anonymised row is not counted or touched again.
 */
export const m0054_retention: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('retention_rules').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('target', c.text, (x) => x.notNull())
      .addColumn('action', c.text, (x) => x.notNull())
      .addColumn('days', c.int, (x) => x.notNull())
      .addColumn('channel', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('retention_rules_account_idx')
      .ifNotExists()
      .on('retention_rules')
      .column('account_id')
      .execute();
    await c
      .id(db.schema.createTable('retention_runs').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('trigger', c.text, (x) => x.notNull())
      .addColumn('counts', c.text, (x) => x.notNull())
      .addColumn('started_at', c.big, (x) => x.notNull())
      .addColumn('finished_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('retention_runs_account_idx')
      .ifNotExists()
      .on('retention_runs')
      .columns(['account_id', 'id'])
      .execute();
    await db.schema.alterTable('tickets').addColumn('anonymised_at', c.big).execute();
    await db.schema.alterTable('livechats').addColumn('anonymised_at', c.big).execute();
  },
};
