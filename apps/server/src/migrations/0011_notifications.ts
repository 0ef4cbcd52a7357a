import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Notifications, SLA alerts and Web Push: per-user notifications, Web Push subscriptions and the
 * tabs that have focus, the SLA timers (one row per ticket: its current wait), the breach facts for
 * reporting, the monthly alert usage, and small server state (the VAPID keys when there is no shared data dir, the SLA scan watermark).
 */
export const m0011_notifications: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const account = (x: any) => x.notNull().references('accounts.id').onDelete('cascade');

    await c
      .id(db.schema.createTable('notifications').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('category', c.text, (x) => x.notNull())
      .addColumn('type', c.text, (x) => x.notNull())
      .addColumn('channel', c.text, (x) => x.notNull())
      .addColumn('title', c.text, (x) => x.notNull())
      .addColumn('body', c.text, (x) => x.notNull())
      .addColumn('img', c.text)
      .addColumn('ticket_id', c.big)
      .addColumn('ticket_number', c.big)
      .addColumn('seen', c.int, (x) => x.notNull().defaultTo(0))
      // What raised it (`sla:warning:<ticket>:<wait start>`, `assign:<assignment id>`): one per user.
      .addColumn('source', c.text)
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('notifications_user_category_idx')
      .ifNotExists()
      .on('notifications')
      .columns(['account_id', 'user_id', 'category', 'id'])
      .execute();
    await db.schema
      .createIndex('notifications_user_source_uq')
      .ifNotExists()
      .unique()
      .on('notifications')
      .columns(['user_id', 'source'])
      .execute();

    await c
      .id(db.schema.createTable('push_subscriptions').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('endpoint', c.text, (x) => x.notNull().unique())
      .addColumn('p256dh', c.text, (x) => x.notNull())
      .addColumn('auth', c.text, (x) => x.notNull())
      .addColumn('domain', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('push_subscriptions_user_idx')
      .ifNotExists()
      .on('push_subscriptions')
      .columns(['account_id', 'user_id'])
      .execute();

    await db.schema
      .createTable('notification_focus')
      .ifNotExists()
      .addColumn('socket_id', c.text, (x) => x.primaryKey())
      .addColumn('account_id', c.big, account)
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('focused', c.int, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('notification_focus_user_idx')
      .ifNotExists()
      .on('notification_focus')
      .columns(['user_id', 'updated_at'])
      .execute();

    await db.schema
      .createTable('sla_timers')
      .ifNotExists()
      .addColumn('ticket_id', c.big, (x) => x.primaryKey().references('tickets.id').onDelete('cascade'))
      .addColumn('account_id', c.big, account)
      .addColumn('label_id', c.big, (x) => x.notNull())
      .addColumn('sla_minutes', c.int, (x) => x.notNull())
      .addColumn('started_at', c.big, (x) => x.notNull())
      .addColumn('warn_at', c.big, (x) => x.notNull())
      .addColumn('due_at', c.big, (x) => x.notNull())
      .addColumn('warned_at', c.big)
      .addColumn('violated_at', c.big)
      .addColumn('answered_at', c.big)
      // The next time the engine must look at it; null when nothing is left to do for this wait.
      .addColumn('next_at', c.big)
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema.createIndex('sla_timers_next_idx').ifNotExists().on('sla_timers').column('next_at').execute();

    await c
      .id(db.schema.createTable('sla_breaches').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('ticket_id', c.big, (x) => x.notNull())
      .addColumn('ticket_number', c.big, (x) => x.notNull())
      .addColumn('label_id', c.big, (x) => x.notNull())
      .addColumn('sla_minutes', c.int, (x) => x.notNull())
      .addColumn('waited_from', c.big, (x) => x.notNull())
      .addColumn('due_at', c.big, (x) => x.notNull())
      .addColumn('breached_at', c.big, (x) => x.notNull())
      .addColumn('assignee', c.text, (x) => x.notNull())
      .addColumn('department_id', c.big)
      .addColumn('alerted', c.int, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('sla_breaches_wait_uq')
      .ifNotExists()
      .unique()
      .on('sla_breaches')
      .columns(['ticket_id', 'waited_from'])
      .execute();
    await db.schema
      .createIndex('sla_breaches_account_idx')
      .ifNotExists()
      .on('sla_breaches')
      .columns(['account_id', 'breached_at'])
      .execute();

    await db.schema
      .createTable('sla_usage')
      .ifNotExists()
      .addColumn('account_id', c.big, account)
      .addColumn('month', c.text, (x) => x.notNull())
      .addColumn('alerts', c.int, (x) => x.notNull())
      .addColumn('quota_notice_at', c.big)
      .addPrimaryKeyConstraint('sla_usage_pk', ['account_id', 'month'])
      .execute();

    await db.schema
      .createTable('server_state')
      .ifNotExists()
      .addColumn('name', c.text, (x) => x.primaryKey())
      .addColumn('value', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();

    // The SLA scan finds tickets whose last customer message is newer than its watermark.
    await db.schema
      .createIndex('tickets_last_message_idx')
      .ifNotExists()
      .on('tickets')
      .column('last_message_at')
      .execute();
  },
};
