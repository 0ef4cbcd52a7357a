import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/** Labels settings: the account's settings (the auto-close duration, LABEL-14) and labels by account. */
export const m0005_labels: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('accounts')
      .addColumn('settings', c.text, (x) => x.notNull().defaultTo('{}'))
      .execute();
    await db.schema
      .createIndex('labels_account_idx')
      .ifNotExists()
      .on('labels')
      .columns(['account_id', 'id'])
      .execute();
  },
};
