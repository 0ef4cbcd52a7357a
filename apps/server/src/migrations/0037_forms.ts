import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Forms (see docs/forms.md).
 * - `forms`: an account's forms; `main` 1 for the one the Main tab shows (made on first use). `token` is the
 *   public link's (`/new_ticket/{token}`), unique across the installation; `fields` a JSON list.
 * - `form_entries`: what was sent (`form_data`, JSON key-to-value) and the ticket it opened.
 */
export const m0037_forms: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('forms').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('main', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('token', c.text, (x) => x.notNull())
      .addColumn('active', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('fields', c.text, (x) => x.notNull())
      .addColumn('start_index', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('data_per_page', c.int, (x) => x.notNull().defaultTo(20))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema.createIndex('forms_token_uq').ifNotExists().unique().on('forms').column('token').execute();
    await db.schema
      .createIndex('forms_account_idx')
      .ifNotExists()
      .on('forms')
      .columns(['account_id', 'main'])
      .execute();
    // One Main form per account, however many requests make it at once.
    await sql`create unique index if not exists forms_main_uq on forms (account_id) where main = 1`.execute(db);
    await c
      .id(db.schema.createTable('form_entries').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('form_id', c.big, (x) => x.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('form_data', c.text, (x) => x.notNull())
      .addColumn('ticket_id', c.big)
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('form_entries_form_idx')
      .ifNotExists()
      .on('form_entries')
      .columns(['account_id', 'form_id', 'id'])
      .execute();
  },
};
