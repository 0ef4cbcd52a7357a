import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Canned replies and macros (see docs/replies.md).
 * - `canned_replies`: `owner_id` 0 is a shared reply (the account's), otherwise the user whose personal reply
 *   it is. A shortcut is unique, case-insensitively, within its scope (the shared ones, or one user's own).
 * - `macros`: the account's, a JSON list of actions; names unique per account.
 * - `macro_runs`: what one run changed, ticket by ticket (`changes`, JSON), so the user's last run can be
 *   undone; `undone_at` once it was.
 */
export const m0023_replies: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('canned_replies').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('owner_id', c.big, (x) => x.notNull())
      .addColumn('title', c.text, (x) => x.notNull())
      .addColumn('shortcut', c.text, (x) => x.notNull())
      .addColumn('shortcut_lower', c.text, (x) => x.notNull())
      .addColumn('body', c.text, (x) => x.notNull())
      .addColumn('channels', c.text, (x) => x.notNull())
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('canned_replies_shortcut_uq')
      .ifNotExists()
      .unique()
      .on('canned_replies')
      .columns(['account_id', 'owner_id', 'shortcut_lower'])
      .execute();
    await c
      .id(db.schema.createTable('macros').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('name_lower', c.text, (x) => x.notNull())
      .addColumn('actions', c.text, (x) => x.notNull())
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('macros_name_uq')
      .ifNotExists()
      .unique()
      .on('macros')
      .columns(['account_id', 'name_lower'])
      .execute();
    await c
      .id(db.schema.createTable('macro_runs').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('macro_id', c.big, (x) => x.notNull())
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('changes', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('undone_at', c.big)
      .execute();
    await db.schema
      .createIndex('macro_runs_user_idx')
      .ifNotExists()
      .on('macro_runs')
      .columns(['account_id', 'user_id', 'id'])
      .execute();
  },
};
