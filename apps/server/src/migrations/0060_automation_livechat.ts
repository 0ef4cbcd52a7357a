import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Automation rules on "Live chat queued" (docs/automation.md): a run about a queued live chat has no ticket
 * (`ticket_id` and `ticket_number` are 0) and names the chat in `livechat_id`; runs about tickets keep null.
 */
export const m0060_automation_livechat: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema.alterTable('automation_runs').addColumn('livechat_id', c.big).execute();
  },
};
