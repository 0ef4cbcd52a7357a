import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Contacts, one identity across channels (see docs/contacts.md).
 * - `contacts`: the account's people. `merged_into` is set while the contact is merged into another one
 *   (it is hidden then, and comes back when the merge is undone).
 * - `contact_identifiers`: an address a contact owns (kind + value in its canonical form: an e-mail in lower
 *   case, a phone in E.164); one owner per value in an account. `verified` when a channel proved it.
 * - `contact_merges`: what a merge moved (identifier and ticket ids, JSON) and the kept contact's
 *   last_seen_at before it, so undo puts exactly those back.
 * - `tickets.contact_id`: the contact a conversation is with; null for Workspace chats and unknown customers.
 * Tickets that exist already are linked here, by their e-mail address (then their phone written with its
 * country code), one contact per address; a ticket with neither gets no contact.
 */
export const m0034_contacts: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('contacts').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('name_lower', c.text, (x) => x.notNull())
      .addColumn('salutation', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('id_type', c.text, (x) => x.notNull().defaultTo('None'))
      .addColumn('id_number', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('notes', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('merged_into', c.big)
      .addColumn('last_seen_at', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('contacts_list_idx')
      .ifNotExists()
      .on('contacts')
      .columns(['account_id', 'last_seen_at', 'id'])
      .execute();
    await db.schema
      .createIndex('contacts_name_idx')
      .ifNotExists()
      .on('contacts')
      .columns(['account_id', 'name_lower'])
      .execute();
    await c
      .id(db.schema.createTable('contact_identifiers').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('contact_id', c.big, (x) => x.notNull().references('contacts.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('value', c.text, (x) => x.notNull())
      .addColumn('verified', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('contact_identifiers_value_uq')
      .ifNotExists()
      .unique()
      .on('contact_identifiers')
      .columns(['account_id', 'kind', 'value'])
      .execute();
    await db.schema
      .createIndex('contact_identifiers_contact_idx')
      .ifNotExists()
      .on('contact_identifiers')
      .columns(['contact_id'])
      .execute();
    await c
      .id(db.schema.createTable('contact_merges').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('kept_id', c.big, (x) => x.notNull())
      .addColumn('merged_id', c.big, (x) => x.notNull())
      .addColumn('identifier_ids', c.text, (x) => x.notNull())
      .addColumn('ticket_ids', c.text, (x) => x.notNull())
      .addColumn('kept_last_seen_at', c.big, (x) => x.notNull())
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('undone_at', c.big)
      .execute();
    await db.schema
      .createIndex('contact_merges_kept_idx')
      .ifNotExists()
      .on('contact_merges')
      .columns(['account_id', 'kept_id'])
      .execute();
    await db.schema.alterTable('tickets').addColumn('contact_id', c.big).execute();
    await db.schema
      .createIndex('tickets_contact_idx')
      .ifNotExists()
      .on('tickets')
      .columns(['account_id', 'contact_id', 'id'])
      .execute();
    await linkExisting(db as Kysely<Existing>);
  },
};

interface Existing {
  tickets: {
    id: number;
    account_id: number;
    channel: string;
    name: string;
    email: string;
    phone: string;
    created_at: number;
    updated_at: number;
    contact_id: number | null;
  };
  contacts: {
    id?: number;
    account_id: number;
    name: string;
    name_lower: string;
    last_seen_at: number;
    created_at: number;
    updated_at: number;
  };
  contact_identifiers: {
    account_id: number;
    contact_id: number;
    kind: string;
    value: string;
    verified: number;
    created_at: number;
  };
}

/** An address in the form the contacts module keeps (it checks far more when an address comes in). */
function canonical(email: string, phone: string): { kind: string; value: string } | null {
  const e = email.trim().toLowerCase();
  if (/^[^\s@]+@[^\s@]+$/.test(e)) return { kind: 'email', value: e };
  const p = phone.trim();
  const digits = p.replace(/[\s().-]/g, '');
  if (/^\+[1-9][0-9]{6,14}$/.test(digits)) return { kind: 'phone', value: digits };
  return null;
}

async function linkExisting(db: Kysely<Existing>): Promise<void> {
  const owners = new Map<string, number>();
  let after = 0;
  for (;;) {
    const batch = await db
      .selectFrom('tickets')
      .select(['id', 'account_id', 'channel', 'name', 'email', 'phone', 'created_at', 'updated_at'])
      .where('id', '>', after)
      .where('channel', '<>', 'chat')
      .orderBy('id')
      .limit(500)
      .execute();
    if (batch.length === 0) return;
    for (const t of batch) {
      after = Number(t.id);
      const address = canonical(t.email, t.phone);
      if (!address) continue;
      const key = `${t.account_id}\u0000${address.kind}\u0000${address.value}`;
      let contactId = owners.get(key);
      if (contactId === undefined) {
        const name = t.name.trim() || address.value;
        const row = await db
          .insertInto('contacts')
          .values({
            account_id: t.account_id,
            name,
            name_lower: name.toLowerCase(),
            last_seen_at: Number(t.updated_at),
            created_at: Number(t.created_at),
            updated_at: Number(t.created_at),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        contactId = Number(row.id);
        owners.set(key, contactId);
        await db
          .insertInto('contact_identifiers')
          .values({
            account_id: t.account_id,
            contact_id: contactId,
            kind: address.kind,
            value: address.value,
            verified: t.channel === 'EMAIL' || t.channel === 'GRAPH_EMAIL' ? 1 : 0,
            created_at: Number(t.created_at),
          })
          .execute();
      } else {
        await db
          .updateTable('contacts')
          .set({
            last_seen_at: sql`case when last_seen_at < ${Number(t.updated_at)} then ${Number(t.updated_at)} else last_seen_at end`,
          })
          .where('id', '=', contactId)
          .execute();
      }
      await db.updateTable('tickets').set({ contact_id: contactId }).where('id', '=', t.id).execute();
    }
  }
}
