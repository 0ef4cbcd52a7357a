import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * `channel_reply_tokens`: a customer's latest reply token on a connection (LINE gives one with each message;
 * a reply sent with it is free, but it is single-use and lives about a minute), with the time of the message
 * it came with. A send takes it by deleting it, so it is never used twice; one row per connection and peer.
 */
export const m0043_channel_reply_tokens: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('channel_reply_tokens').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('connection_id', c.big, (x) => x.notNull().references('channel_connections.id').onDelete('cascade'))
      .addColumn('peer', c.text, (x) => x.notNull())
      .addColumn('token', c.text, (x) => x.notNull())
      .addColumn('at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('channel_reply_tokens_uq')
      .ifNotExists()
      .unique()
      .on('channel_reply_tokens')
      .columns(['account_id', 'connection_id', 'peer'])
      .execute();
  },
};
