import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * `report_ticket_facts`: one row per customer conversation with what the reports read, kept by a relay listener
 * as events happen (never computed from messages when a report is asked for): the channel, department and first
 * assignee as they are now, when the customer first wrote and the team first answered, when it was resolved
 * (the last time; null while open), how often it was reopened, whether an SLA target was breached, and the
 * customer's satisfaction rating. Times are ms; the `_ms` columns are the durations the percentiles read.
 */
export const m0044_report_facts: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('report_ticket_facts')
      .ifNotExists()
      .addColumn('ticket_id', c.big, (x) => x.primaryKey().references('tickets.id').onDelete('cascade'))
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('channel', c.text, (x) => x.notNull())
      .addColumn('department_id', c.big)
      .addColumn('assignee', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('closed', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('first_customer_at', c.big)
      .addColumn('first_response_at', c.big)
      .addColumn('first_response_ms', c.big)
      .addColumn('resolved_at', c.big)
      .addColumn('resolution_ms', c.big)
      .addColumn('reopen_count', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('sla_breached', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('csat', c.int)
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    // Every report asks for one account's conversations made, first answered or resolved in a range, by
    // channel: each index covers its count so the rows themselves are not read.
    for (const at of ['created_at', 'first_response_at', 'resolved_at'])
      await db.schema
        .createIndex(`report_ticket_facts_${at}`)
        .ifNotExists()
        .on('report_ticket_facts')
        .columns(['account_id', at, 'channel'])
        .execute();
    // A short-lived export link's secret (REPORT-23: the link carries it as a path part), kept as its SHA-256.
    await c
      .id(db.schema.createTable('report_export_tokens').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('token_hash', c.text, (x) => x.notNull().unique())
      .addColumn('expires_at', c.big, (x) => x.notNull())
      .execute();
    // A public, read-only dashboard (SHELL-07, SHELL-08): its link's secret as SHA-256, removed to revoke it.
    await c
      .id(db.schema.createTable('report_dashboards').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('token_hash', c.text, (x) => x.notNull().unique())
      .addColumn('created_by', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
  },
};
