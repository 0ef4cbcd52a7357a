import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

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
 * - `contact_counts`: how many contacts of an account are not merged away, kept by triggers in the writing
 *   transaction (as `ticket_counts` of 0016, so no write path can forget it): the list's total without a
 *   keyword or filter reads it instead of counting a million index entries. Postgres: statement-level
 *   triggers over transition tables, and an update touches the counter only when a contact is merged away
 *   or back (not on the `last_seen_at` of every conversation); SQLite: row-level triggers. On delete it is
 *   only decremented: an account's cascade delete removes its counter in the same statement.
 */
export const m0036_contacts_indexes: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('contact_counts')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('n', c.big, (x) => x.notNull())
      .execute();
    await (dialect === 'postgres' ? countTriggersPostgres(db) : countTriggersSqlite(db));
    await sql`insert into contact_counts (account_id, n)
      select account_id, count(*) from contacts where merged_into is null group by account_id`.execute(db);
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

async function countTriggersSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger contact_count_insert after insert on contacts when new.merged_into is null begin
    insert into contact_counts (account_id, n) values (new.account_id, 1)
      on conflict (account_id) do update set n = n + 1;
  end`.execute(db);
  await sql`create trigger contact_count_merge after update of merged_into on contacts
    when (old.merged_into is null) <> (new.merged_into is null) begin
    insert into contact_counts (account_id, n)
      values (new.account_id, case when new.merged_into is null then 1 else -1 end)
      on conflict (account_id) do update set n = n + excluded.n;
  end`.execute(db);
  await sql`create trigger contact_count_delete after delete on contacts when old.merged_into is null begin
    update contact_counts set n = n - 1 where account_id = old.account_id;
  end`.execute(db);
}

async function countTriggersPostgres(db: Kysely<unknown>): Promise<void> {
  const upsert = sql.raw('on conflict (account_id) do update set n = c.n + excluded.n');
  await sql`create or replace function parley_contact_count() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into contact_counts as c (account_id, n)
      select account_id, count(*) from new_rows where merged_into is null group by 1 order by 1
      ${upsert};
  elsif tg_op = 'UPDATE' then
    insert into contact_counts as c (account_id, n)
      select account_id, sum(k) from (
        select account_id, 1 as k from new_rows where merged_into is null
        union all
        select account_id, -1 from old_rows where merged_into is null
      ) d
      group by 1 having sum(k) <> 0 order by 1
      ${upsert};
  else
    update contact_counts c set n = c.n - d.n
      from (select account_id, count(*) as n from old_rows where merged_into is null group by 1) d
      where c.account_id = d.account_id;
  end if;
  return null;
end $$`.execute(db);
  await sql`create trigger contact_count_insert after insert on contacts referencing new table as new_rows
    for each statement execute function parley_contact_count()`.execute(db);
  await sql`create trigger contact_count_update after update on contacts
    referencing old table as old_rows new table as new_rows
    for each statement execute function parley_contact_count()`.execute(db);
  await sql`create trigger contact_count_delete after delete on contacts referencing old table as old_rows
    for each statement execute function parley_contact_count()`.execute(db);
}
