import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Conversations (MSG): the message fields the first version lacked, notes, reactions, uploaded
 * files, and the ticket's reply language. `client_id` (the `queue-` id) is unique per account: the
 * idempotency key of a send.
 */
export const m0010_messages: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const add: [string, 'text' | 'integer' | 'bigint', string | number][] = [
      ['sender_name', c.text, ''],
      ['pinned', c.int, 0],
      ['files', c.text, '[]'],
      ['translated_text', c.text, '{}'],
      ['emotion_2', c.text, '{}'],
      ['context', c.text, ''],
    ];
    for (const [name, type, value] of add)
      await db.schema
        .alterTable('messages')
        .addColumn(name, type, (x) => x.notNull().defaultTo(value))
        .execute();
    for (const [name, type] of [
      ['reply_id', c.big],
      ['deleted_at', c.big],
      ['deleted_by', c.text],
      ['email_meta', c.text],
    ] as const)
      await db.schema.alterTable('messages').addColumn(name, type).execute();
    await db.schema
      .createIndex('messages_account_client_uq')
      .ifNotExists()
      .unique()
      .on('messages')
      .columns(['account_id', 'client_id'])
      .execute();
    await db.schema
      .createIndex('messages_account_deleted_idx')
      .ifNotExists()
      .on('messages')
      .columns(['account_id', 'ticket_id', 'deleted_at'])
      .execute();

    for (const [name, value] of [
      ['language', ''],
      ['source_lang', ''],
    ] as const)
      await db.schema
        .alterTable('tickets')
        .addColumn(name, c.text, (x) => x.notNull().defaultTo(value))
        .execute();

    await c
      .id(db.schema.createTable('message_notes').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('message_id', c.big, (x) => x.notNull().references('messages.id').onDelete('cascade'))
      .addColumn('sender', c.text, (x) => x.notNull())
      .addColumn('text', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('message_notes_message_idx')
      .ifNotExists()
      .on('message_notes')
      .columns(['account_id', 'message_id'])
      .execute();

    await c
      .id(db.schema.createTable('message_reactions').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('message_id', c.big, (x) => x.notNull().references('messages.id').onDelete('cascade'))
      .addColumn('username', c.text, (x) => x.notNull())
      .addColumn('reaction', c.text, (x) => x.notNull())
      .addColumn('emoji_text', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('message_reactions_uq')
      .ifNotExists()
      .unique()
      .on('message_reactions')
      .columns(['message_id', 'username', 'reaction'])
      .execute();
    await db.schema
      .createIndex('message_reactions_account_idx')
      .ifNotExists()
      .on('message_reactions')
      .columns(['account_id', 'message_id'])
      .execute();

    await c
      .id(db.schema.createTable('uploads').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big)
      .addColumn('user_id', c.big)
      .addColumn('key', c.text, (x) => x.notNull().unique())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('mime', c.text, (x) => x.notNull())
      .addColumn('size', c.big, (x) => x.notNull())
      .addColumn('thumb_key', c.text)
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('uploads_account_idx')
      .ifNotExists()
      .on('uploads')
      .columns(['account_id', 'id'])
      .execute();
  },
};
