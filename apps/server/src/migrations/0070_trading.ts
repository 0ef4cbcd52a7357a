import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The trading desk (docs/trading.md): the account's watch list of instruments, and each mention of one in a
 * customer's message with the engine's sentiment (hundredths, -100..100), its channel and its UTC day.
 */
export const m0070_trading: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('trading_instruments').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('symbol', c.text, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('aliases', c.text, (x) => x.notNull().defaultTo('[]'))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('trading_instruments_account_symbol_idx')
      .ifNotExists()
      .unique()
      .on('trading_instruments')
      .columns(['account_id', 'symbol'])
      .execute();
    await c
      .id(db.schema.createTable('trading_mentions').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('instrument_id', c.big, (x) => x.notNull().references('trading_instruments.id').onDelete('cascade'))
      .addColumn('message_id', c.big, (x) => x.notNull().references('messages.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('channel', c.text, (x) => x.notNull())
      .addColumn('sentiment', c.int, (x) => x.notNull())
      .addColumn('at', c.big, (x) => x.notNull())
      .addColumn('day', c.text, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('trading_mentions_instrument_message_idx')
      .ifNotExists()
      .unique()
      .on('trading_mentions')
      .columns(['instrument_id', 'message_id'])
      .execute();
    await db.schema
      .createIndex('trading_mentions_account_day_idx')
      .ifNotExists()
      .on('trading_mentions')
      .columns(['account_id', 'instrument_id', 'day'])
      .execute();
  },
};
