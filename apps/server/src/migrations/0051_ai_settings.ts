import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * An account's AI settings (docs/ai.md, "Providers and translation"): which engine gives guidance (`offline`
 * or `openai`), the OpenAI-compatible API's base URL and model, its key sealed with SECRETS_KEY (`key_sealed`,
 * '' when none; `key_last4` is all an answer shows of it) and who translates. No row: the built-in engine and
 * the installation's translator.
 */
export const m0051_ai_settings: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('ai_settings')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('provider', c.text, (x) => x.notNull().defaultTo('offline'))
      .addColumn('base_url', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('model', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('key_sealed', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('key_last4', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('translator', c.text, (x) => x.notNull().defaultTo('installation'))
      .addColumn('updated_by', c.big)
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
  },
};
