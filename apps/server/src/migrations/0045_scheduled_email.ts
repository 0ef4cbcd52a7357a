import type { Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/**
 * `scheduled_messages.email_meta`: a scheduled e-mail reply's recipients and subject as the agent wrote them
 * (JSON `{to, cc, subject}`), sent with it; null for other channels and for replies scheduled without them
 * (they go to the ticket's customer with "Re: <title>").
 */
export const m0045_scheduled_email: ParleyMigration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('scheduled_messages').addColumn('email_meta', 'text').execute();
  },
};
