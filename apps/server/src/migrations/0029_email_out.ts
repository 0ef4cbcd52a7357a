import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * E-mail out through the ticket's mailbox (see docs/email.md, "Out").
 * - `tickets.mailbox_id`: the mailbox an EMAIL ticket came in through, so its replies leave from it. Tickets
 *   made before are matched by their `receiver_email` (the mailbox's address then). A removed mailbox sets it
 *   null: the ticket's replies go the installation's way again.
 * - `messages.email_state` ('sending', 'sent', 'failed'; null for messages not sent through a mailbox),
 *   `email_error` (the SMTP server's words of the last failure) and `email_attempt_at` (set while one send is
 *   under way, from before the connection to the recorded outcome: a row left with it is a send a crash cut
 *   short). The partial index keeps the sweep for such rows off the whole table.
 * - `email_message_ids.refs`: the References of an inbound mail (oldest first, as sent), so a reply carries
 *   the chain on.
 */
export const m0029_email_out: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('tickets')
      .addColumn('mailbox_id', c.big, (x) => x.references('mailboxes.id').onDelete('set null'))
      .execute();
    await sql`
      update tickets set mailbox_id = (
        select m.id from mailboxes m
        where m.account_id = tickets.account_id and m.address_lower = lower(tickets.receiver_email))
      where channel = 'EMAIL' and receiver_email <> ''`.execute(db);
    await db.schema.alterTable('messages').addColumn('email_state', c.text).execute();
    await db.schema.alterTable('messages').addColumn('email_error', c.text).execute();
    await db.schema.alterTable('messages').addColumn('email_attempt_at', c.big).execute();
    await db.schema
      .createIndex('messages_email_attempt_idx')
      .ifNotExists()
      .on('messages')
      .column('email_attempt_at')
      .where(sql.ref('email_attempt_at'), 'is not', null)
      .execute();
    await db.schema.alterTable('email_message_ids').addColumn('refs', c.text).execute();
  },
};
