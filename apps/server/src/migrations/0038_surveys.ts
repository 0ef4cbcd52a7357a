import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Satisfaction surveys (see docs/forms.md, "Surveys"): one per ticket, reached by its public `token`
 * (unique across the installation); `rating` 1-5 and `comment` once answered.
 */
export const m0038_surveys: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('ticket_surveys').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('token', c.text, (x) => x.notNull())
      .addColumn('rating', c.int)
      .addColumn('comment', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('answered_at', c.big)
      .execute();
    await db.schema
      .createIndex('ticket_surveys_token_uq')
      .ifNotExists()
      .unique()
      .on('ticket_surveys')
      .column('token')
      .execute();
    await db.schema
      .createIndex('ticket_surveys_ticket_uq')
      .ifNotExists()
      .unique()
      .on('ticket_surveys')
      .columns(['account_id', 'ticket_id'])
      .execute();
  },
};
