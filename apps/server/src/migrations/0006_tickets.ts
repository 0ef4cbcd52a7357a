import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Tickets (TICKET-14, TICKET-15): the list fields the first version lacked, campaigns (TICKET-64), per-user
 * read state (TICKET-21 `reader`, TICKET-41) and the indexes behind the list queries.
 */
export const m0006_tickets: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('campaigns').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('campaigns_account_idx')
      .ifNotExists()
      .on('campaigns')
      .columns(['account_id', 'id'])
      .execute();

    const add: [string, 'text' | 'integer' | 'bigint', string | number][] = [
      ['case_type', c.text, ''],
      ['has_responded', c.int, 0],
      ['last_message_at', c.big, 0],
      ['other', c.text, '{}'],
    ];
    for (const [name, type, value] of add)
      await db.schema
        .alterTable('tickets')
        .addColumn(name, type, (x) => x.notNull().defaultTo(value))
        .execute();
    await db.schema.alterTable('tickets').addColumn('campaign_id', c.big).execute();

    await db.schema
      .createTable('ticket_reads')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('read_at', c.big, (x) => x.notNull())
      .addPrimaryKeyConstraint('ticket_reads_pk', ['ticket_id', 'user_id'])
      .execute();
    await db.schema
      .createIndex('ticket_reads_account_user_idx')
      .ifNotExists()
      .on('ticket_reads')
      .columns(['account_id', 'user_id', 'ticket_id'])
      .execute();

    // The list pages: by status, department and campaign, each newest first; and by received time.
    const indexes: [string, string[]][] = [
      ['tickets_account_closed_updated_idx', ['account_id', 'closed', 'updated_at']],
      ['tickets_account_department_updated_idx', ['account_id', 'department_id', 'updated_at']],
      ['tickets_account_campaign_updated_idx', ['account_id', 'campaign_id', 'updated_at']],
      ['tickets_account_channel_updated_idx', ['account_id', 'channel', 'updated_at']],
      ['tickets_account_created_idx', ['account_id', 'created_at']],
    ];
    for (const [name, cols] of indexes)
      await db.schema.createIndex(name).ifNotExists().on('tickets').columns(cols).execute();
  },
};
