import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Workspace chats (CHAT-07): one row per internal chat ticket (channel `chat`) saying whether it
 * is a 1:1 chat or a group and who started it. `direct_key` ("<low user id>:<high user id>") is unique per
 * account, so two people never get two 1:1 chats, even when both start one at the same moment. Members
 * are in `chat_members` (0012).
 */
export const m0013_workspace_chat: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('workspace_chats').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().unique().references('tickets.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('direct_key', c.text)
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('workspace_chats_direct_uq')
      .ifNotExists()
      .unique()
      .on('workspace_chats')
      .columns(['account_id', 'direct_key'])
      .execute();
    // The list of one user's chats joins members by user first.
    await db.schema
      .createIndex('chat_members_user_ticket_idx')
      .ifNotExists()
      .on('chat_members')
      .columns(['user_id', 'ticket_id'])
      .execute();
  },
};
