import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Scheduled messages (docs/messages.md, "Scheduled messages"): an agent's reply kept until `send_at`, then
 * posted once as theirs. `state` pending, sent, cancelled or failed (with `error`); `message_row_id` the
 * message it became. The partial index keeps the due scan off the sent and cancelled ones.
 */
export const m0042_scheduled_messages: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('scheduled_messages').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull())
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('sender', c.text, (x) => x.notNull())
      .addColumn('sender_name', c.text, (x) => x.notNull())
      .addColumn('message', c.text, (x) => x.notNull())
      .addColumn('send_at', c.big, (x) => x.notNull())
      .addColumn('state', c.text, (x) => x.notNull().defaultTo('pending'))
      .addColumn('error', c.text)
      .addColumn('message_row_id', c.big)
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('scheduled_messages_due_idx')
      .ifNotExists()
      .on('scheduled_messages')
      .column('send_at')
      .where(sql.ref('state'), '=', 'pending')
      .execute();
    await db.schema
      .createIndex('scheduled_messages_ticket_idx')
      .ifNotExists()
      .on('scheduled_messages')
      .columns(['account_id', 'ticket_id'])
      .execute();
  },
};
