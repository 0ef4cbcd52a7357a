import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The workspace shell: presence (ONLINE/OFFLINE from live connections, the chosen status apart as
 * second_status), the connections of every node, custom statuses and announcements.
 */
export const m0004_presence_announcements: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('users')
      .addColumn('second_status', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema.alterTable('users').addColumn('last_seen_at', c.big).execute();
    // Until now `status` held the chosen status; it becomes presence, the choice moves to second_status.
    await sql`update users set second_status = status where status not in ('ONLINE', 'OFFLINE')`.execute(db);
    await sql`update users set status = 'OFFLINE'`.execute(db);

    // One row per open socket; a node's rows go when the node says goodbye or stops heartbeating.
    await db.schema
      .createTable('user_connections')
      .ifNotExists()
      .addColumn('socket_id', c.text, (x) => x.primaryKey())
      .addColumn('account_id', c.big, (x) => x.notNull())
      .addColumn('user_id', c.big, (x) => x.notNull())
      .addColumn('node_id', c.text, (x) => x.notNull())
      .addColumn('connected_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('user_connections_user_idx')
      .ifNotExists()
      .on('user_connections')
      .columns(['account_id', 'user_id'])
      .execute();
    await db.schema
      .createIndex('user_connections_node_idx')
      .ifNotExists()
      .on('user_connections')
      .column('node_id')
      .execute();
    await db.schema
      .createTable('nodes')
      .ifNotExists()
      .addColumn('node_id', c.text, (x) => x.primaryKey())
      .addColumn('seen_at', c.big, (x) => x.notNull())
      .execute();

    await c
      .id(db.schema.createTable('custom_statuses').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('needs_reason', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    // "Lunch" and "lunch" are one status of an account.
    await sql`create unique index if not exists custom_statuses_name_uq on custom_statuses (account_id, lower(name))`.execute(
      db,
    );

    await c
      .id(db.schema.createTable('announcements').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull())
      .addColumn('message', c.text, (x) => x.notNull())
      .addColumn('level', c.text, (x) => x.notNull().defaultTo('info'))
      .addColumn('created_by', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('expires_at', c.big)
      .addColumn('removed_at', c.big)
      .execute();
    await db.schema
      .createIndex('announcements_account_idx')
      .ifNotExists()
      .on('announcements')
      .columns(['account_id', 'created_at'])
      .execute();
  },
};
