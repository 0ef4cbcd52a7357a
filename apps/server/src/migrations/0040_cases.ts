import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Case management (see docs/cases.md).
 * - `cases`: a customer matter: title, type, stage, owner (a user), contact, due date.
 * - `case_tickets`: the tickets a case groups (a ticket may be in several cases).
 * - `case_events`: its timeline: made, stage or owner changed, ticket added or removed, a note.
 */
export const m0040_cases: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('cases').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('title', c.text, (x) => x.notNull())
      .addColumn('case_type', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('stage', c.text, (x) => x.notNull())
      .addColumn('owner_id', c.big)
      .addColumn('contact_id', c.big)
      .addColumn('due_at', c.big)
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('cases_list_idx')
      .ifNotExists()
      .on('cases')
      .columns(['account_id', 'updated_at'])
      .execute();
    await c
      .id(db.schema.createTable('case_tickets').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('case_id', c.big, (x) => x.notNull().references('cases.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('case_tickets_uq')
      .ifNotExists()
      .unique()
      .on('case_tickets')
      .columns(['case_id', 'ticket_id'])
      .execute();
    await c
      .id(db.schema.createTable('case_events').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('case_id', c.big, (x) => x.notNull().references('cases.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('text', c.text, (x) => x.notNull())
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('case_events_case_idx')
      .ifNotExists()
      .on('case_events')
      .columns(['case_id', 'id'])
      .execute();
  },
};
