import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Time tracking (docs/timer.md): `time_entries`, time per ticket per agent, from a timer (`ended_at` null
 * while it runs, `seconds` set when it stops) or entered by hand, counted for `work_day` (YYYY-MM-DD).
 * The partial unique index holds the rule of one running timer per person.
 */
export const m0067_time_entries: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('time_entries').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull())
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('work_day', c.text, (x) => x.notNull())
      .addColumn('started_at', c.big, (x) => x.notNull())
      .addColumn('ended_at', c.big)
      .addColumn('seconds', c.big, (x) => x.notNull().defaultTo(0))
      .addColumn('note', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('source', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('time_entries_day_idx')
      .ifNotExists()
      .on('time_entries')
      .columns(['account_id', 'work_day'])
      .execute();
    await db.schema
      .createIndex('time_entries_user_day_idx')
      .ifNotExists()
      .on('time_entries')
      .columns(['account_id', 'user_id', 'work_day'])
      .execute();
    await db.schema
      .createIndex('time_entries_ticket_idx')
      .ifNotExists()
      .on('time_entries')
      .columns(['account_id', 'ticket_id'])
      .execute();
    await db.schema
      .createIndex('time_entries_running_uq')
      .ifNotExists()
      .unique()
      .on('time_entries')
      .columns(['account_id', 'user_id'])
      .where(sql.ref('ended_at'), 'is', null)
      .execute();
  },
};
