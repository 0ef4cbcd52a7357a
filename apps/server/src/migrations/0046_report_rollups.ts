import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/** Histogram buckets per duration: 1 s, ten steps a decade up to 10^7 s, and longer (reports/rollups.ts). */
const BUCKETS = 71;

/**
 * Report figures added up ahead, kept with the facts they come from (modules/reports/rollups.ts):
 * `report_slots` per 15 minutes and channel (made, first answered, resolved in it) and `report_periods` per hour
 * ('h') and per UTC day ('d') of making, per channel, first assignee or department: counts, ratings and two
 * duration histograms. Facts
 * written before this migration are rolled up by `reports:backfill`.
 */
export const m0046_report_rollups: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('report_slots')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('slot', c.big, (x) => x.notNull())
      .addColumn('channel', c.text, (x) => x.notNull())
      .addColumn('received', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('answered', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('resolved', c.int, (x) => x.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('report_slots_pk', ['account_id', 'slot', 'channel'])
      .execute();
    let periods = db.schema
      .createTable('report_periods')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('period', c.text, (x) => x.notNull())
      .addColumn('at', c.big, (x) => x.notNull())
      .addColumn('dim', c.text, (x) => x.notNull())
      .addColumn('k', c.text, (x) => x.notNull());
    const counts = [
      'n',
      'answered',
      'resolved',
      'reopened',
      'breached',
      'rated',
      'csat_sum',
      'r1',
      'r2',
      'r3',
      'r4',
      'r5',
    ];
    for (let i = 0; i < BUCKETS; i++) counts.push(`fr${i}`);
    for (let i = 0; i < BUCKETS; i++) counts.push(`rs${i}`);
    for (const name of counts) periods = periods.addColumn(name, c.int, (x) => x.notNull().defaultTo(0));
    await periods.addPrimaryKeyConstraint('report_periods_pk', ['account_id', 'period', 'at', 'dim', 'k']).execute();
  },
};
