import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/** Sign-in, accounts and sessions, complete: plans and trial, 2FA, token rotation, audit, throttling, resets. */
export const m0002_accounts_security: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const add = (table: string, col: string, type: 'text' | 'integer' | 'bigint', def?: string | number | null) =>
      db.schema
        .alterTable(table)
        .addColumn(col, type === 'bigint' ? c.big : type, (x) =>
          def === undefined || def === null ? x : x.notNull().defaultTo(def),
        )
        .execute();

    await add('accounts', 'trial_ends_at', 'bigint', null);
    await add('accounts', 'subscription_ends_at', 'bigint', null);
    await add('accounts', 'require_2fa', 'integer', 0);
    await add('accounts', 'product_functions', 'text', '{}');

    await add('users', 'totp_secret', 'text', null);
    await add('users', 'totp_enabled', 'integer', 0);
    await add('users', 'backup_codes', 'text', '[]');
    await add('users', 'departments', 'text', '[]');
    await add('users', 'password_changed_at', 'bigint', 0);

    // The access token lives a day; the refresh token rotates on use and keeps the session for a year.
    await add('sessions', 'token_expires_at', 'bigint', 0);
    await add('sessions', 'previous_refresh_hash', 'text', null);
    await add('sessions', 'rotated_at', 'bigint', 0);
    await sql`update sessions set token_expires_at = expires_at`.execute(db);

    await c
      .id(db.schema.createTable('audit_log').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull())
      .addColumn('user_id', c.big)
      .addColumn('actor', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('action', c.text, (x) => x.notNull())
      .addColumn('detail', c.text, (x) => x.notNull().defaultTo('{}'))
      .addColumn('ip', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('audit_log_account_idx')
      .ifNotExists()
      .on('audit_log')
      .columns(['account_id', 'created_at'])
      .execute();

    // Sign-in attempts, also for unknown usernames (account_id null), for throttling.
    await c
      .id(db.schema.createTable('login_attempts').ifNotExists())
      .addColumn('account_id', c.big)
      .addColumn('username', c.text, (x) => x.notNull())
      .addColumn('ip', c.text, (x) => x.notNull())
      .addColumn('success', c.int, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('login_attempts_user_idx')
      .ifNotExists()
      .on('login_attempts')
      .columns(['username', 'created_at'])
      .execute();
    await db.schema
      .createIndex('login_attempts_ip_idx')
      .ifNotExists()
      .on('login_attempts')
      .columns(['ip', 'created_at'])
      .execute();

    // Password-reset links and device hand-off tokens: single use, short-lived, stored hashed.
    await c
      .id(db.schema.createTable('one_time_tokens').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('purpose', c.text, (x) => x.notNull())
      .addColumn('token_hash', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('expires_at', c.big, (x) => x.notNull())
      .addColumn('used_at', c.big)
      .execute();
    await db.schema
      .createIndex('one_time_tokens_token_uq')
      .ifNotExists()
      .on('one_time_tokens')
      .column('token_hash')
      .unique()
      .execute();
  },
};
