import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Custom ticket statuses, the per-department automatic assignment
 * setting, the tickets' encryption method, and the index that numbers new tickets (the next ticket_number
 * of an account).
 */
export const m0009_ticket_statuses: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('ticket_statuses').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('status_code', c.int, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('alternate', c.text, (x) => x.notNull().defaultTo('0'))
      .addColumn('removed', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('ticket_statuses_account_code_idx')
      .ifNotExists()
      .unique()
      .on('ticket_statuses')
      .columns(['account_id', 'status_code'])
      .execute();

    // '' = off, else an assignment strategy (round_robin, least_loaded) run on every new ticket.
    await db.schema
      .createTable('department_assignment')
      .ifNotExists()
      .addColumn('department_id', c.big, (x) => x.primaryKey().references('departments.id').onDelete('cascade'))
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('strategy', c.text, (x) => x.notNull())
      .execute();

    // TICKET-14, TICKET-60: an end-to-end encrypted conversation ('' none, else rsa or aes).
    await db.schema
      .alterTable('tickets')
      .addColumn('encryption_method', c.text, (x) => x.notNull().defaultTo(''))
      .execute();

    await db.schema
      .createIndex('tickets_account_number_idx')
      .ifNotExists()
      .on('tickets')
      .columns(['account_id', 'ticket_number'])
      .execute();
  },
};
