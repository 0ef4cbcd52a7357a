import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * E-mail in (see docs/email.md).
 * - `mailboxes`: an account's connected addresses with their IMAP and SMTP servers. Passwords are sealed with
 *   SECRETS_KEY (`*_secret`, '' none). The fetcher's state lives on the row: the lease (`lease_owner`,
 *   `lease_until`) that lets one node at a time fetch it, the UIDVALIDITY and the last UID stored, and its
 *   last error. `address_lower` is unique per account.
 * - `email_message_ids`: every Message-ID the account has seen (inbound, and later outbound) and the ticket it
 *   belongs to: threading looks replies up here, and a mail whose Message-ID is here is never stored twice.
 */
export const m0028_mailboxes: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('mailboxes').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('address', c.text, (x) => x.notNull())
      .addColumn('address_lower', c.text, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('department_id', c.big, (x) => x.references('departments.id').onDelete('set null'))
      .addColumn('active', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('imap_host', c.text, (x) => x.notNull())
      .addColumn('imap_port', c.int, (x) => x.notNull())
      .addColumn('imap_tls', c.int, (x) => x.notNull())
      .addColumn('imap_user', c.text, (x) => x.notNull())
      .addColumn('imap_secret', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('smtp_host', c.text, (x) => x.notNull())
      .addColumn('smtp_port', c.int, (x) => x.notNull())
      .addColumn('smtp_tls', c.int, (x) => x.notNull())
      .addColumn('smtp_user', c.text, (x) => x.notNull())
      .addColumn('smtp_secret', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('uid_validity', c.text)
      .addColumn('last_uid', c.big, (x) => x.notNull().defaultTo(0))
      .addColumn('lease_owner', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('lease_until', c.big, (x) => x.notNull().defaultTo(0))
      .addColumn('last_error', c.text)
      .addColumn('last_error_at', c.big)
      .addColumn('last_fetch_at', c.big)
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('mailboxes_address_uq')
      .ifNotExists()
      .unique()
      .on('mailboxes')
      .columns(['account_id', 'address_lower'])
      .execute();
    await c
      .id(db.schema.createTable('email_message_ids').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('message_id', c.text, (x) => x.notNull())
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('mailbox_id', c.big, (x) => x.references('mailboxes.id').onDelete('set null'))
      .addColumn('message_row_id', c.big)
      .addColumn('direction', c.text, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('email_message_ids_uq')
      .ifNotExists()
      .unique()
      .on('email_message_ids')
      .columns(['account_id', 'message_id'])
      .execute();
  },
};
