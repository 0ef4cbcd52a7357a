import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * `contact_days`: how many contacts of an account (not merged away) had their last contact on each day
 * (`day` = `last_seen_at` in ms divided by 86,400,000), kept by triggers in the writing transaction like
 * `contact_counts` of 0036. The contacts list reaches a deep page by key with it: the days after the one
 * holding the page's first row are summed from this table, the page is then read from the start of that day
 * in the list index, so the OFFSET walks at most one day's contacts instead of every contact before the page
 * (docs/contacts.md, "At a million contacts").
 *
 * Postgres: statement-level triggers over transition tables (one upsert per statement, days in key order so
 * two writers take the row locks in the same order); an update only writes when a contact moved to another
 * day or was merged away or back. SQLite: row-level triggers. On delete the days are only decremented: an
 * account's cascade delete removes its rows in the same statement. Rows that fall to 0 are kept (harmless:
 * the list skips them).
 */
export const m0058_contact_days: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('contact_days')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('day', c.big, (x) => x.notNull())
      .addColumn('n', c.big, (x) => x.notNull())
      .addPrimaryKeyConstraint('contact_days_pk', ['account_id', 'day'])
      .execute();
    await (dialect === 'postgres' ? triggersPostgres(db) : triggersSqlite(db));
    await sql`insert into contact_days (account_id, day, n)
      select account_id, ${dayOf(dialect, 'last_seen_at')}, count(*) from contacts where merged_into is null
      group by 1, 2`.execute(db);
  },
};

/** The day of a `last_seen_at` (ms) in SQL: the same integer division the list reads the days back with. */
function dayOf(dialect: Dialect, col: string) {
  return sql.raw(dialect === 'postgres' ? `(${col} / 86400000)` : `cast(${col} / 86400000 as integer)`);
}

async function triggersSqlite(db: Kysely<unknown>): Promise<void> {
  const day = (row: string) => dayOf('sqlite', `${row}.last_seen_at`);
  await sql`create trigger contact_day_insert after insert on contacts when new.merged_into is null begin
    insert into contact_days (account_id, day, n) values (new.account_id, ${day('new')}, 1)
      on conflict (account_id, day) do update set n = n + 1;
  end`.execute(db);
  await sql`create trigger contact_day_update after update of last_seen_at, merged_into on contacts
    when (old.merged_into is null) <> (new.merged_into is null)
      or (new.merged_into is null and ${day('old')} <> ${day('new')}) begin
    update contact_days set n = n - 1
      where old.merged_into is null and account_id = old.account_id and day = ${day('old')};
    insert into contact_days (account_id, day, n) select new.account_id, ${day('new')}, 1
      where new.merged_into is null
      on conflict (account_id, day) do update set n = n + 1;
  end`.execute(db);
  await sql`create trigger contact_day_delete after delete on contacts when old.merged_into is null begin
    update contact_days set n = n - 1 where account_id = old.account_id and day = ${day('old')};
  end`.execute(db);
}

async function triggersPostgres(db: Kysely<unknown>): Promise<void> {
  const upsert = sql.raw('on conflict (account_id, day) do update set n = c.n + excluded.n');
  await sql`create or replace function parley_contact_day() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into contact_days as c (account_id, day, n)
      select account_id, last_seen_at / 86400000, count(*) from new_rows where merged_into is null
      group by 1, 2 order by 1, 2
      ${upsert};
  elsif tg_op = 'UPDATE' then
    insert into contact_days as c (account_id, day, n)
      select account_id, day, sum(k) from (
        select account_id, last_seen_at / 86400000 as day, 1 as k from new_rows where merged_into is null
        union all
        select account_id, last_seen_at / 86400000, -1 from old_rows where merged_into is null
      ) d
      group by 1, 2 having sum(k) <> 0 order by 1, 2
      ${upsert};
  else
    update contact_days c set n = c.n - d.n
      from (select account_id, last_seen_at / 86400000 as day, count(*) as n from old_rows
        where merged_into is null group by 1, 2) d
      where c.account_id = d.account_id and c.day = d.day;
  end if;
  return null;
end $$`.execute(db);
  await sql`create trigger contact_day_insert after insert on contacts referencing new table as new_rows
    for each statement execute function parley_contact_day()`.execute(db);
  await sql`create trigger contact_day_update after update on contacts
    referencing old table as old_rows new table as new_rows
    for each statement execute function parley_contact_day()`.execute(db);
  await sql`create trigger contact_day_delete after delete on contacts referencing old table as old_rows
    for each statement execute function parley_contact_day()`.execute(db);
}
