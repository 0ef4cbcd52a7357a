import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * SLA targets kept apart, the resolution timer and pausing while Pending:
 * - `sla_timers.target` (`first_response` or `next_response`: the wait was the first or a next one when the
 *   engine timed it) and `sla_breaches.target` (those two or `resolution`), so a breach names its target from
 *   what was recorded. Rows written before say `next_response` when an agent had answered in the ticket before
 *   the wait began, as the engine decides it.
 * - `paused_at` (the ticket went Pending then; null while counting) and `paused_ms` (the business time spent
 *   Pending so far, which moves the due time) on `sla_timers` and on the new `sla_resolution_timers`: one row per
 *   ticket whose policy has a resolution target, counting from the ticket's creation until Resolved or Closed
 *   (`stopped_at`), with its own warning and violation.
 * - A breach is one per ticket, target and wait: the resolution's begins at creation, as a first wait may.
 */
export const m0027_sla_targets_resolution: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('sla_timers')
      .addColumn('target', c.text, (x) => x.notNull().defaultTo('first_response'))
      .execute();
    await db.schema.alterTable('sla_timers').addColumn('paused_at', c.big).execute();
    await db.schema
      .alterTable('sla_timers')
      .addColumn('paused_ms', c.big, (x) => x.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('sla_breaches')
      .addColumn('target', c.text, (x) => x.notNull().defaultTo('first_response'))
      .execute();
    // An agent's answer (a message whose sender is a username of the account) before the wait: a next response.
    const answeredBefore = (table: 'sla_timers' | 'sla_breaches', at: 'started_at' | 'waited_from') => sql`
      exists (select 1 from messages m
        where m.account_id = ${sql.ref(`${table}.account_id`)} and m.ticket_id = ${sql.ref(`${table}.ticket_id`)}
          and m.type <> 'system' and m.created_at < ${sql.ref(`${table}.${at}`)}
          and m.sender in (select u.username from users u where u.account_id = ${sql.ref(`${table}.account_id`)}))`;
    await sql`update sla_timers set target = 'next_response' where ${answeredBefore('sla_timers', 'started_at')}`.execute(
      db,
    );
    await sql`update sla_breaches set target = 'next_response' where ${answeredBefore('sla_breaches', 'waited_from')}`.execute(
      db,
    );
    await db.schema.dropIndex('sla_breaches_wait_uq').ifExists().execute();
    await db.schema
      .createIndex('sla_breaches_target_uq')
      .ifNotExists()
      .unique()
      .on('sla_breaches')
      .columns(['ticket_id', 'target', 'waited_from'])
      .execute();

    await db.schema
      .createTable('sla_resolution_timers')
      .ifNotExists()
      .addColumn('ticket_id', c.big, (x) => x.primaryKey().references('tickets.id').onDelete('cascade'))
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('sla_minutes', c.int, (x) => x.notNull())
      .addColumn('started_at', c.big, (x) => x.notNull())
      .addColumn('warn_at', c.big, (x) => x.notNull())
      .addColumn('due_at', c.big, (x) => x.notNull())
      .addColumn('warned_at', c.big)
      .addColumn('violated_at', c.big)
      .addColumn('stopped_at', c.big)
      .addColumn('paused_at', c.big)
      .addColumn('paused_ms', c.big, (x) => x.notNull().defaultTo(0))
      // The next time the engine must look at it; null while stopped, paused or alerted in full.
      .addColumn('next_at', c.big)
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('sla_resolution_timers_next_idx')
      .ifNotExists()
      .on('sla_resolution_timers')
      .column('next_at')
      .execute();
  },
};
