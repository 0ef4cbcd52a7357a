import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Chat transcripts (docs/livechat.md): `livechats.transcript_sent_at`, when the visitor had the chat's
 * transcript e-mailed to itself (once per chat; null while not sent).
 */
export const m0064_chat_transcripts: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema.alterTable('livechats').addColumn('transcript_sent_at', c.big).execute();
  },
};
