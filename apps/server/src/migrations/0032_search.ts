import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import type { ParleyMigration } from './helpers.js';

/**
 * Full-text index of messages and tickets for the global search (see docs/search.md).
 *
 * The index is kept by the database itself, inside the transaction of every write, whichever module writes:
 * - SQLite: two external-content FTS5 tables (`messages_fts` over messages.message, `tickets_fts` over the
 *   ticket's title, name, email and phone), unicode61 with diacritics folded, kept by triggers on insert,
 *   update of the indexed columns and delete. The backfill is FTS5's `rebuild`.
 * - Postgres: GIN expression indexes over `to_tsvector('simple', ...)` of the same columns (and one of the
 *   customer columns alone, for `contact:`). The index is
 *   kept by Postgres on every write and built over the existing rows here (the backfill); no column is
 *   added, so no query or answer that reads whole rows sees anything new.
 * 'simple' (no stemming, no stop words) on both sides: an account writes in many languages, and a prefix
 * of what was typed must find the same rows on both databases.
 */
const TICKET_TEXT = sql.raw(
  `coalesce(title, '') || ' ' || coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '')`,
);
/** The customer part alone, for `contact:` and the Contact group. */
const CONTACT_TEXT = sql.raw(`coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '')`);

export const m0032_search: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    if (dialect === 'postgres') {
      await sql`create index if not exists messages_search_idx on messages
        using gin (to_tsvector('simple', message))`.execute(db);
      await sql`create index if not exists tickets_search_idx on tickets
        using gin (to_tsvector('simple', ${TICKET_TEXT}))`.execute(db);
      await sql`create index if not exists tickets_contact_search_idx on tickets
        using gin (to_tsvector('simple', ${CONTACT_TEXT}))`.execute(db);
      return;
    }
    await sql`create virtual table messages_fts using fts5(message, content='messages', content_rowid='id',
      tokenize='unicode61 remove_diacritics 2')`.execute(db);
    await sql`create trigger messages_fts_ai after insert on messages begin
      insert into messages_fts(rowid, message) values (new.id, new.message);
    end`.execute(db);
    await sql`create trigger messages_fts_ad after delete on messages begin
      insert into messages_fts(messages_fts, rowid, message) values ('delete', old.id, old.message);
    end`.execute(db);
    await sql`create trigger messages_fts_au after update of message on messages begin
      insert into messages_fts(messages_fts, rowid, message) values ('delete', old.id, old.message);
      insert into messages_fts(rowid, message) values (new.id, new.message);
    end`.execute(db);
    await sql`insert into messages_fts(messages_fts) values ('rebuild')`.execute(db);

    await sql`create virtual table tickets_fts using fts5(title, name, email, phone, content='tickets',
      content_rowid='id', tokenize='unicode61 remove_diacritics 2')`.execute(db);
    await sql`create trigger tickets_fts_ai after insert on tickets begin
      insert into tickets_fts(rowid, title, name, email, phone) values (new.id, new.title, new.name, new.email, new.phone);
    end`.execute(db);
    await sql`create trigger tickets_fts_ad after delete on tickets begin
      insert into tickets_fts(tickets_fts, rowid, title, name, email, phone)
        values ('delete', old.id, old.title, old.name, old.email, old.phone);
    end`.execute(db);
    await sql`create trigger tickets_fts_au after update of title, name, email, phone on tickets begin
      insert into tickets_fts(tickets_fts, rowid, title, name, email, phone)
        values ('delete', old.id, old.title, old.name, old.email, old.phone);
      insert into tickets_fts(rowid, title, name, email, phone) values (new.id, new.title, new.name, new.email, new.phone);
    end`.execute(db);
    await sql`insert into tickets_fts(tickets_fts) values ('rebuild')`.execute(db);
  },
};
