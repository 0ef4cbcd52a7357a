import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The offline engine's per-account state (docs/ai.md, "Classification and what to say"):
 * - `ai_models`: an account's ticket classifier (naive Bayes word counts as JSON), when it was trained and on
 *   how many labelled tickets, or '' and how many are needed when they were too few; one row an account,
 *   replaced by each training.
 * - `ai_feedback`: uses and dismissals of a suggestion by an agent, one row per message, agent, kind and
 *   source (the latest verdict wins), read back to rank "what to say".
 */
export const m0050_ai_models: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('ai_models')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('model', c.text, (x) => x.notNull())
      .addColumn('labelled', c.int, (x) => x.notNull())
      .addColumn('classes', c.int, (x) => x.notNull())
      /** 0 with a model; else how many labelled tickets "not enough data" says are needed (model ''). */
      .addColumn('needed', c.int, (x) => x.notNull())
      .addColumn('trained_at', c.big, (x) => x.notNull())
      .execute();
    await c
      .id(db.schema.createTable('ai_feedback').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('message_id', c.big, (x) => x.notNull())
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('verdict', c.text, (x) => x.notNull())
      /** '' and 0 when the suggestion has no source (both databases treat nulls as distinct in a unique index). */
      .addColumn('source_kind', c.text, (x) => x.notNull())
      .addColumn('source_id', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('ai_feedback_uq')
      .ifNotExists()
      .unique()
      .on('ai_feedback')
      .columns(['account_id', 'message_id', 'user_id', 'kind', 'source_kind', 'source_id'])
      .execute();
    await db.schema
      .createIndex('ai_feedback_source_idx')
      .ifNotExists()
      .on('ai_feedback')
      .columns(['account_id', 'kind', 'source_kind', 'source_id'])
      .execute();
  },
};
