import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Automation rules (docs/automation.md): `automation_rules` per account, run in `position` order;
 * `automation_runs` the run log (one row per rule and event at most: the unique index backs "exactly once");
 * `automation_chains` the rules whose changes caused an event, for the loop guard.
 */
export const m0047_automation: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('automation_rules').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('position', c.int, (x) => x.notNull())
      .addColumn('enabled', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('event', c.text, (x) => x.notNull())
      .addColumn('conditions', c.text, (x) => x.notNull())
      .addColumn('actions', c.text, (x) => x.notNull())
      .addColumn('author_id', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('automation_rules_account')
      .ifNotExists()
      .on('automation_rules')
      .columns(['account_id', 'event', 'position'])
      .execute();
    await c
      .id(db.schema.createTable('automation_runs').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('rule_id', c.big, (x) => x.notNull().references('automation_rules.id').onDelete('cascade'))
      .addColumn('event_id', c.big, (x) => x.notNull())
      .addColumn('event', c.text, (x) => x.notNull())
      .addColumn('ticket_id', c.big, (x) => x.notNull())
      .addColumn('ticket_number', c.big, (x) => x.notNull())
      .addColumn('outcome', c.text, (x) => x.notNull())
      .addColumn('matched', c.text, (x) => x.notNull())
      .addColumn('did', c.text, (x) => x.notNull())
      .addColumn('reason', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('automation_runs_once')
      .ifNotExists()
      .unique()
      .on('automation_runs')
      .columns(['rule_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('automation_runs_account')
      .ifNotExists()
      .on('automation_runs')
      .columns(['account_id', 'id'])
      .execute();
    await db.schema
      .createTable('automation_chains')
      .ifNotExists()
      .addColumn('event_id', c.big, (x) => x.primaryKey())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('chain', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
  },
};
