import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

export const m0001_init: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const nn = (x: import('kysely').ColumnDefinitionBuilder) => x.notNull();

    await c
      .id(db.schema.createTable('accounts').ifNotExists())
      .addColumn('name', c.text, nn)
      .addColumn('account_type', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('plan', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('features', c.text, (x) => x.notNull().defaultTo('[]'))
      .addColumn('created_at', c.big, nn)
      .addColumn('updated_at', c.big, nn)
      .execute();

    await c
      .id(db.schema.createTable('users').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('username', c.text, nn)
      .addColumn('name', c.text, nn)
      .addColumn('email', c.text, nn)
      .addColumn('password_hash', c.text, nn)
      .addColumn('type', c.text, nn)
      .addColumn('rank', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('permission', c.text, (x) => x.notNull().defaultTo('[]'))
      .addColumn('active', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('status', c.text, (x) => x.notNull().defaultTo('ONLINE'))
      .addColumn('status_reason', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('status_since', c.big, (x) => x.notNull().defaultTo(0))
      .addColumn('created_at', c.big, nn)
      .addColumn('updated_at', c.big, nn)
      .execute();
    // Sign-in sends only a username (AUTH-02), so usernames are unique across accounts, case-insensitively.
    await db.schema.createIndex('users_username_uq').ifNotExists().on('users').column('username').unique().execute();
    await db.schema.createIndex('users_account_idx').ifNotExists().on('users').column('account_id').execute();

    await c
      .id(db.schema.createTable('sessions').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('token_hash', c.text, nn)
      .addColumn('refresh_hash', c.text, nn)
      .addColumn('user_agent', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('ip', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, nn)
      .addColumn('last_seen_at', c.big, nn)
      .addColumn('expires_at', c.big, nn)
      .addColumn('revoked_at', c.big)
      .execute();
    await db.schema
      .createIndex('sessions_token_uq')
      .ifNotExists()
      .on('sessions')
      .column('token_hash')
      .unique()
      .execute();
    await db.schema
      .createIndex('sessions_refresh_uq')
      .ifNotExists()
      .on('sessions')
      .column('refresh_hash')
      .unique()
      .execute();
    await db.schema
      .createIndex('sessions_user_idx')
      .ifNotExists()
      .on('sessions')
      .columns(['account_id', 'user_id'])
      .execute();

    await db.schema
      .createTable('account_seq')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.primaryKey())
      .addColumn('last_seq', c.big, nn)
      .execute();

    await c
      .id(db.schema.createTable('events').ifNotExists())
      .addColumn('account_id', c.big, nn)
      .addColumn('seq', c.big, nn)
      .addColumn('type', c.text, nn)
      .addColumn('payload', c.text, nn)
      .addColumn('socket_event', c.text)
      .addColumn('rooms', c.text, (x) => x.notNull().defaultTo('[]'))
      .addColumn('created_at', c.big, nn)
      .addColumn('available_at', c.big, nn)
      .addColumn('lease_owner', c.text)
      .addColumn('lease_until', c.big)
      .addColumn('attempts', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('delivered_at', c.big)
      .addColumn('last_error', c.text)
      .execute();
    await db.schema
      .createIndex('events_account_seq_uq')
      .ifNotExists()
      .on('events')
      .columns(['account_id', 'seq'])
      .unique()
      .execute();
    // The relay only ever looks at undelivered rows; a partial index keeps that scan small forever.
    await db.schema
      .createIndex('events_pending_idx')
      .ifNotExists()
      .on('events')
      .columns(['account_id', 'id'])
      .where(sql.ref('delivered_at'), 'is', null)
      .execute();
    await db.schema.createIndex('events_created_idx').ifNotExists().on('events').column('created_at').execute();

    await db.schema
      .createTable('event_receipts')
      .ifNotExists()
      .addColumn('account_id', c.big, nn)
      .addColumn('listener', c.text, nn)
      .addColumn('event_id', c.big, nn)
      .addColumn('processed_at', c.big, nn)
      .addPrimaryKeyConstraint('event_receipts_pk', ['listener', 'event_id'])
      .execute();

    await db.schema
      .createTable('task_leases')
      .ifNotExists()
      .addColumn('name', c.text, (x) => x.primaryKey())
      .addColumn('owner', c.text, nn)
      .addColumn('lease_until', c.big, nn)
      .addColumn('last_run_at', c.big)
      .execute();

    await c
      .id(db.schema.createTable('status_periods').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('status', c.text, nn)
      .addColumn('reason', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('started_at', c.big, nn)
      .addColumn('ended_at', c.big)
      .execute();
    await db.schema
      .createIndex('status_periods_user_idx')
      .ifNotExists()
      .on('status_periods')
      .columns(['account_id', 'user_id', 'started_at'])
      .execute();

    await c
      .id(db.schema.createTable('departments').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, nn)
      .addColumn('created_at', c.big, nn)
      .execute();

    await c
      .id(db.schema.createTable('labels').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, nn)
      .addColumn('color', c.text, nn)
      .addColumn('color_dark', c.text, nn)
      .addColumn('level', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('sla', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('removed', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('created_at', c.big, nn)
      .execute();

    await c
      .id(db.schema.createTable('tickets').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_number', c.big, nn)
      .addColumn('title', c.text, nn)
      .addColumn('channel', c.text, nn)
      .addColumn('closed', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('priority', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('label', c.text, (x) => x.notNull().defaultTo('[]'))
      .addColumn('department_id', c.big)
      .addColumn('assignee', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('name', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('email', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('phone', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, nn)
      .addColumn('updated_at', c.big, nn)
      .execute();
    await db.schema
      .createIndex('tickets_account_number_uq')
      .ifNotExists()
      .on('tickets')
      .columns(['account_id', 'ticket_number'])
      .unique()
      .execute();
    await db.schema
      .createIndex('tickets_account_updated_idx')
      .ifNotExists()
      .on('tickets')
      .columns(['account_id', 'updated_at'])
      .execute();

    await c
      .id(db.schema.createTable('messages').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('type', c.text, nn)
      .addColumn('message', c.text, nn)
      .addColumn('sender', c.text, nn)
      .addColumn('client_id', c.text)
      .addColumn('created_at', c.big, nn)
      .execute();
    await db.schema
      .createIndex('messages_ticket_idx')
      .ifNotExists()
      .on('messages')
      .columns(['account_id', 'ticket_id', 'id'])
      .execute();
  },
};
