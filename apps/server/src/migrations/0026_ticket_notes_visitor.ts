import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Notes on a ticket as a whole (staff only, never a message, so never sent to the customer), and what a live
 * chat's visitor came with: the page the chat was started from and the browser (its User-Agent), shown in the
 * agent's visitor details. Both columns are '' for chats stored before.
 */
export const m0026_ticket_notes_visitor: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('ticket_notes').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('sender', c.text, (x) => x.notNull())
      .addColumn('text', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('ticket_notes_ticket_idx')
      .ifNotExists()
      .on('ticket_notes')
      .columns(['account_id', 'ticket_id'])
      .execute();
    for (const name of ['page', 'browser'])
      await db.schema
        .alterTable('livechats')
        .addColumn(name, c.text, (x) => x.notNull().defaultTo(''))
        .execute();
  },
};
