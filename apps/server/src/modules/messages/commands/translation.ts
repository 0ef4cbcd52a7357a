import type { DB } from '../../../platform/db/db.js';
import { runCommand } from '../../../platform/outbox/index.js';

/**
 * MSG-49..53: stores translations on the ticket's messages, one language per key of each message's
 * `translated_text`; an id of 0 (text not yet sent) or of another ticket is skipped. The provider is asked
 * before this, so the transaction holds no lock while it answers.
 */
export async function storeTranslations(
  db: DB,
  accountId: number,
  ticketId: number,
  target: string,
  items: { id: number; translated: string }[],
): Promise<void> {
  await runCommand(db, async (trx) => {
    for (const t of items) {
      if (t.id === 0) continue;
      const row = await trx
        .selectFrom('messages')
        .select('translated_text')
        .where('account_id', '=', accountId)
        .where('ticket_id', '=', ticketId)
        .where('id', '=', t.id)
        .executeTakeFirst();
      if (!row) continue;
      const map = { ...(JSON.parse(row.translated_text) as Record<string, string>), [target]: t.translated };
      await trx
        .updateTable('messages')
        .set({ translated_text: JSON.stringify(map) })
        .where('account_id', '=', accountId)
        .where('id', '=', t.id)
        .execute();
    }
  });
}

/** The language a ticket's conversation is translated to (the caller may read the ticket). */
export async function setTicketLanguage(db: DB, accountId: number, ticketId: number, lang: string): Promise<void> {
  await runCommand(db, (trx) =>
    trx
      .updateTable('tickets')
      .set({ language: lang })
      .where('account_id', '=', accountId)
      .where('id', '=', ticketId)
      .execute(),
  );
}
