import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * AI-02: what the offline engine made of a customer's message, kept on the message so history shows it:
 * `recommendation` (the next best action in words, '' for none), `aiqon_results` and `scam_results` (JSON
 * lists of findings, [] for none).
 */
export const m0052_message_ai: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('messages')
      .addColumn('recommendation', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('messages')
      .addColumn('aiqon_results', c.text, (x) => x.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .alterTable('messages')
      .addColumn('scam_results', c.text, (x) => x.notNull().defaultTo('[]'))
      .execute();
  },
};
