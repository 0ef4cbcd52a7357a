import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The API for integrations (docs/integrations.md): `api_tokens` (a token's SHA-256, never the token),
 * `webhooks` (an account's subscribed URLs and their signing secrets) and `webhook_deliveries` (the log:
 * each event sent to a webhook, its body as sent and its last attempt).
 */
export const m0049_integrations: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('api_tokens').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('token_hash', c.text, (x) => x.notNull().unique())
      .addColumn('hint', c.text, (x) => x.notNull())
      .addColumn('scopes', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('last_used_at', c.big)
      .addColumn('revoked_at', c.big)
      .execute();
    await db.schema
      .createIndex('api_tokens_account_idx')
      .ifNotExists()
      .on('api_tokens')
      .columns(['account_id', 'user_id'])
      .execute();
    await c
      .id(db.schema.createTable('webhooks').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('url', c.text, (x) => x.notNull())
      .addColumn('events', c.text, (x) => x.notNull())
      .addColumn('secret', c.text, (x) => x.notNull())
      .addColumn('active', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema.createIndex('webhooks_account_idx').ifNotExists().on('webhooks').column('account_id').execute();
    await c
      .id(db.schema.createTable('webhook_deliveries').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('webhook_id', c.big, (x) => x.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('event', c.text, (x) => x.notNull())
      .addColumn('body', c.text, (x) => x.notNull())
      .addColumn('state', c.text, (x) => x.notNull())
      .addColumn('attempts', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('status_code', c.int)
      .addColumn('error', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('last_attempt_at', c.big)
      .addColumn('redelivery_of', c.big)
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_webhook_idx')
      .ifNotExists()
      .on('webhook_deliveries')
      .columns(['account_id', 'webhook_id', 'id'])
      .execute();
  },
};
