import { type Kysely, sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/**
 * The outbound replies that failed, read by the failed-deliveries list: a partial index holds only them, so
 * the list costs nothing however many messages an account has. And `scheduled_messages.email_meta`: a scheduled e-mail reply's recipients and subject as the agent wrote them
 * (JSON `{to, cc, subject}`), sent with it; null for other channels and for replies scheduled without them
 * (they go to the ticket's customer with "Re: <title>").
 */
export const m0045_scheduled_email: ParleyMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('scheduled_messages').addColumn('email_meta', 'text').execute();
    await sql`create index if not exists messages_failed_idx on messages (account_id, id)
      where delivery_state = 'failed' or email_state = 'failed'`.execute(db);
  },
};
