import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import type { ParleyMigration } from './helpers.js';

/**
 * Indexes for the contacts list at a million contacts (bench/README.md, `contacts`):
 * - `contacts_visible_idx`: the list order of the contacts not merged away, so the count and a deep page
 *   read the index alone instead of every row.
 * - an address prefix: SQLite reads it as a range of `contact_identifiers_value_uq`; Postgres needs
 *   `text_pattern_ops` for a byte-wise range whatever the database's collation.
 * - a prefix of a word of the name (`like 'k%'` or `like '% k%'`, which no b-tree serves):
 *   - SQLite: `contacts_fts`, an external-content FTS5 table over `name_lower` kept by triggers (as the
 *     search's `messages_fts`); the list takes its word-prefix matches as candidates and checks them with
 *     the same LIKE as before, so the answer does not change.
 *   - Postgres: a trigram GIN index over `name_lower` (pg_trgm), which serves those LIKEs as written. The
 *     extension ships with Postgres (contrib) and is trusted (a database owner may create it); where it
 *     cannot be created the index is left out and the same query scans, slower but with the same answer.
 * - `tickets_open_contact_idx`: the contacts with an open conversation (the list's `open` filter).
 */
export const m0036_contacts_indexes: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    await sql`create index if not exists contacts_visible_idx on contacts (account_id, last_seen_at, id)
      where merged_into is null`.execute(db);
    await sql`create index if not exists tickets_open_contact_idx on tickets (account_id, contact_id)
      where contact_id is not null and closed not in (2, 3)`.execute(db);
    if (dialect === 'postgres') {
      await sql`create index if not exists contact_identifiers_prefix_idx
        on contact_identifiers (account_id, value text_pattern_ops)`.execute(db);
      // Kysely runs Postgres migrations in a transaction: a savepoint keeps a refused extension from
      // aborting it.
      await sql`savepoint contacts_trgm`.execute(db);
      try {
        await sql`create extension if not exists pg_trgm`.execute(db);
        await sql`create index if not exists contacts_name_trgm_idx on contacts
          using gin (name_lower gin_trgm_ops)`.execute(db);
        await sql`release savepoint contacts_trgm`.execute(db);
      } catch {
        await sql`rollback to savepoint contacts_trgm`.execute(db);
      }
      return;
    }
    await sql`create virtual table contacts_fts using fts5(name_lower, content='contacts', content_rowid='id',
      tokenize='unicode61 remove_diacritics 2')`.execute(db);
    await sql`create trigger contacts_fts_ai after insert on contacts begin
      insert into contacts_fts(rowid, name_lower) values (new.id, new.name_lower);
    end`.execute(db);
    await sql`create trigger contacts_fts_ad after delete on contacts begin
      insert into contacts_fts(contacts_fts, rowid, name_lower) values ('delete', old.id, old.name_lower);
    end`.execute(db);
    await sql`create trigger contacts_fts_au after update of name_lower on contacts begin
      insert into contacts_fts(contacts_fts, rowid, name_lower) values ('delete', old.id, old.name_lower);
      insert into contacts_fts(rowid, name_lower) values (new.id, new.name_lower);
    end`.execute(db);
    await sql`insert into contacts_fts(contacts_fts) values ('rebuild')`.execute(db);
  },
};
