import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Live chat and Workspace chat: the account's visitor link token and automatic offering
 * settings, visitor sessions (a browser holding a csrf), live chats (the queue entry that becomes a
 * LIVECHAT ticket when accepted, with its CSAT rating), and the members of Workspace chats.
 */
export const m0012_livechat: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const account = (x: any) => x.notNull().references('accounts.id').onDelete('cascade');

    await db.schema
      .createTable('livechat_settings')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('token', c.text, (x) => x.notNull().unique())
      .addColumn('auto_offer', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('department_id', c.big)
      .addColumn('offer_seconds', c.int, (x) => x.notNull().defaultTo(30))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();

    await c
      .id(db.schema.createTable('livechat_visitors').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('csrf_hash', c.text, (x) => x.notNull().unique())
      .addColumn('name', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();

    await c
      .id(db.schema.createTable('livechats').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('visitor_id', c.big, (x) => x.notNull().references('livechat_visitors.id').onDelete('cascade'))
      // The group (LIVECHAT-12): the visitor's session, or the session it was merged into.
      .addColumn('session_id', c.big, (x) => x.notNull())
      .addColumn('state', c.text, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('phone', c.text, (x) => x.notNull())
      .addColumn('email', c.text, (x) => x.notNull())
      .addColumn('ic', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('message', c.text, (x) => x.notNull())
      .addColumn('department_id', c.big)
      .addColumn('ticket_id', c.big)
      .addColumn('agent', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('queued_at', c.big, (x) => x.notNull())
      .addColumn('accepted_at', c.big)
      .addColumn('ended_at', c.big)
      .addColumn('offered_user_id', c.big)
      .addColumn('offered_at', c.big)
      .addColumn('skipped', c.text, (x) => x.notNull().defaultTo('[]'))
      .addColumn('rating', c.int)
      .addColumn('reason', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('rated_at', c.big)
      .execute();
    await db.schema
      .createIndex('livechats_state_idx')
      .ifNotExists()
      .on('livechats')
      .columns(['account_id', 'state', 'id'])
      .execute();
    await db.schema
      .createIndex('livechats_visitor_idx')
      .ifNotExists()
      .on('livechats')
      .columns(['visitor_id'])
      .execute();
    await db.schema
      .createIndex('livechats_ticket_uq')
      .ifNotExists()
      .unique()
      .on('livechats')
      .columns(['ticket_id'])
      .execute();

    await db.schema
      .createTable('chat_members')
      .ifNotExists()
      .addColumn('account_id', c.big, account)
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('username', c.text, (x) => x.notNull())
      .addColumn('joined_at', c.big, (x) => x.notNull())
      .addColumn('read_at', c.big, (x) => x.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('chat_members_pk', ['ticket_id', 'user_id'])
      .execute();
    await db.schema
      .createIndex('chat_members_user_idx')
      .ifNotExists()
      .on('chat_members')
      .columns(['account_id', 'user_id'])
      .execute();
  },
};
