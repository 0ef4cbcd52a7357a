import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The calendar (see docs/calendar.md).
 * - `calendar_events`: the account's events, optionally with a contact and a ticket.
 * - `calendar_feeds`: a user's private iCalendar feed token (unique across the installation).
 */
export const m0039_calendar: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('calendar_events').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('title', c.text, (x) => x.notNull())
      .addColumn('starts_at', c.big, (x) => x.notNull())
      .addColumn('ends_at', c.big, (x) => x.notNull())
      .addColumn('all_day', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('notes', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('contact_id', c.big)
      .addColumn('ticket_id', c.big)
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('calendar_events_time_idx')
      .ifNotExists()
      .on('calendar_events')
      .columns(['account_id', 'starts_at'])
      .execute();
    await c
      .id(db.schema.createTable('calendar_feeds').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('token', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('calendar_feeds_token_uq')
      .ifNotExists()
      .unique()
      .on('calendar_feeds')
      .column('token')
      .execute();
    await db.schema
      .createIndex('calendar_feeds_user_uq')
      .ifNotExists()
      .unique()
      .on('calendar_feeds')
      .columns(['account_id', 'user_id'])
      .execute();
  },
};
