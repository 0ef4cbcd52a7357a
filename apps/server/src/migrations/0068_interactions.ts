import type { Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/**
 * Interactions: the timeline reads each source of an account newest first by time and id, and stops after
 * one page. Without these indexes every page sorted all of the account's messages (and notes, live chats).
 * Calls already have theirs (0057).
 */
export const m0068_interactions: ParleyMigration = {
  async up(db: Kysely<unknown>) {
    const index = (name: string, table: string, at: string) =>
      db.schema.createIndex(name).ifNotExists().on(table).columns(['account_id', at, 'id']).execute();
    await index('messages_account_created_idx', 'messages', 'created_at');
    await index('ticket_notes_account_created_idx', 'ticket_notes', 'created_at');
    await index('message_notes_account_created_idx', 'message_notes', 'created_at');
    await index('livechats_account_queued_idx', 'livechats', 'queued_at');
  },
};
