import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { memberChat } from '../workspace.queries.js';

/**
 * The caller read the chat up to now: its unread count is 0 (the same read state the pane's receipts
 * write). Both read marks commit together.
 */
export async function readChat(db: DB, auth: AuthContext, ticketId: number): Promise<void> {
  await runCommand(db, async (trx) => {
    await memberChat(trx, auth, ticketId);
    const at = Date.now();
    await trx
      .insertInto('ticket_reads')
      .values({ account_id: auth.accountId, ticket_id: ticketId, user_id: auth.userId, read_at: at })
      .onConflict((oc) => oc.columns(['ticket_id', 'user_id']).doUpdateSet({ read_at: at }))
      .execute();
    await trx
      .updateTable('chat_members')
      .set({ read_at: at })
      .where('account_id', '=', auth.accountId)
      .where('ticket_id', '=', ticketId)
      .where('user_id', '=', auth.userId)
      .execute();
  });
}
