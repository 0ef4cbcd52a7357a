import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Messaging channels (see docs/channels.md).
 * - `channel_connections`: a provider account an admin connected (WhatsApp Cloud API number, Telegram bot):
 *   its kind, settings that are not secret (JSON), its secrets sealed with SECRETS_KEY (JSON of sealed
 *   values), the random `webhook_key` in its webhook address, WhatsApp's `verify_token`.
 * - `channel_message_ids`: the provider's id of each message in or out, unique per connection, so a webhook
 *   the provider delivers five times makes one message, and a status names the reply it is about.
 * - `tickets.channel_connection_id` and `channel_peer` (the customer's id at the provider: a WhatsApp number,
 *   a Telegram chat): where the ticket's replies go. A removed connection leaves its tickets, unreachable.
 * - `messages.delivery_state` ('sending', 'sent', 'delivered', 'read', 'failed'; null for messages not sent
 *   on a channel), `delivery_error` (the provider's words) and `delivery_attempt_at` (a send under way).
 */
export const m0041_channels: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('channel_connections').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('department_id', c.big)
      .addColumn('active', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('settings', c.text, (x) => x.notNull().defaultTo('{}'))
      .addColumn('secrets', c.text, (x) => x.notNull().defaultTo('{}'))
      .addColumn('webhook_key', c.text, (x) => x.notNull())
      .addColumn('verify_token', c.text, (x) => x.notNull())
      .addColumn('last_error', c.text)
      .addColumn('last_error_at', c.big)
      .addColumn('last_event_at', c.big)
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('channel_connections_key_uq')
      .ifNotExists()
      .unique()
      .on('channel_connections')
      .column('webhook_key')
      .execute();
    await db.schema
      .createIndex('channel_connections_account_idx')
      .ifNotExists()
      .on('channel_connections')
      .columns(['account_id', 'id'])
      .execute();
    await c
      .id(db.schema.createTable('channel_message_ids').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('connection_id', c.big, (x) => x.notNull())
      .addColumn('provider_id', c.text, (x) => x.notNull())
      .addColumn('ticket_id', c.big, (x) => x.notNull())
      .addColumn('message_row_id', c.big)
      .addColumn('direction', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('channel_message_ids_uq')
      .ifNotExists()
      .unique()
      .on('channel_message_ids')
      .columns(['account_id', 'connection_id', 'provider_id'])
      .execute();
    await db.schema
      .alterTable('tickets')
      .addColumn('channel_connection_id', c.big, (x) => x.references('channel_connections.id').onDelete('set null'))
      .execute();
    await db.schema.alterTable('tickets').addColumn('channel_peer', c.text).execute();
    await db.schema
      .createIndex('tickets_channel_peer_idx')
      .ifNotExists()
      .on('tickets')
      .columns(['account_id', 'channel_connection_id', 'channel_peer'])
      .where(sql.ref('channel_connection_id'), 'is not', null)
      .execute();
    await db.schema.alterTable('messages').addColumn('delivery_state', c.text).execute();
    await db.schema.alterTable('messages').addColumn('delivery_error', c.text).execute();
    await db.schema.alterTable('messages').addColumn('delivery_attempt_at', c.big).execute();
    await db.schema
      .createIndex('messages_delivery_attempt_idx')
      .ifNotExists()
      .on('messages')
      .column('delivery_attempt_at')
      .where(sql.ref('delivery_attempt_at'), 'is not', null)
      .execute();
  },
};
