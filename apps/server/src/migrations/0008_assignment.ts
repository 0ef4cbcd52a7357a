import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Assignment ("every assignment recorded"): one row per user a ticket is assigned to, manual or
 * automatic. Round robin reads the latest row per user (by id, so assignments in the same millisecond
 * still have an order).
 */
export const m0008_assignment: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('ticket_assignments').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('username', c.text, (x) => x.notNull())
      .addColumn('assigned_by', c.text, (x) => x.notNull())
      .addColumn('how', c.text, (x) => x.notNull())
      .addColumn('assigned_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('ticket_assignments_account_user_idx')
      .ifNotExists()
      .on('ticket_assignments')
      .columns(['account_id', 'username', 'id'])
      .execute();
    await db.schema
      .createIndex('ticket_assignments_account_ticket_idx')
      .ifNotExists()
      .on('ticket_assignments')
      .columns(['account_id', 'ticket_id', 'id'])
      .execute();
  },
};
