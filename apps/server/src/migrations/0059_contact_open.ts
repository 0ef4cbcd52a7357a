import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The contacts list's `open` filter (contacts with an open conversation) without reading every open ticket:
 * - `contacts.open_tickets`: how many of the contact's tickets are open (`closed` not 2 or 3, the statuses of
 *   DONE_TICKET_STATUSES), kept by triggers on `tickets` in the writing transaction (a ticket made, closed,
 *   reopened, moved to another contact by a merge or its undo, unlinked or deleted);
 * - `contact_counts.open_n`: how many contacts of the account are not merged away and have one, kept by
 *   triggers on `contacts`: the filter's total without a keyword;
 * - `contacts_open_idx`: the list order of those contacts, so a page of the filter reads the index only.
 *
 * Postgres: statement-level triggers over transition tables (one update per statement, only when a ticket
 * crossed open/done or changed contact); SQLite: row-level triggers limited to the columns that matter. The
 * counter is only updated, never inserted: every account with contacts has its `contact_counts` row (0036),
 * and an account's cascade delete removes it in the same statement.
 */
export const m0059_contact_open: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('contacts')
      .addColumn('open_tickets', c.int, (x) => x.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('contact_counts')
      .addColumn('open_n', c.big, (x) => x.notNull().defaultTo(0))
      .execute();
    await sql`update contacts set open_tickets = (
        select count(*) from tickets t
        where t.account_id = contacts.account_id and t.contact_id = contacts.id and t.closed not in (2, 3))
      where id in (select contact_id from tickets where contact_id is not null and closed not in (2, 3))`.execute(db);
    await sql`update contact_counts set open_n = (
        select count(*) from contacts c
        where c.account_id = contact_counts.account_id and c.merged_into is null and c.open_tickets > 0)`.execute(db);
    await sql`create index if not exists contacts_open_idx on contacts (account_id, last_seen_at, id)
      where merged_into is null and open_tickets > 0`.execute(db);
    await (dialect === 'postgres' ? triggersPostgres(db) : triggersSqlite(db));
  },
};

const OPEN = (row: string) => sql.raw(`(${row}.contact_id is not null and ${row}.closed not in (2, 3))`);
const COUNTED = (row: string) => sql.raw(`(${row}.merged_into is null and ${row}.open_tickets > 0)`);

async function triggersSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger contact_open_ticket_insert after insert on tickets when ${OPEN('new')} begin
    update contacts set open_tickets = open_tickets + 1 where id = new.contact_id;
  end`.execute(db);
  await sql`create trigger contact_open_ticket_update after update of closed, contact_id on tickets
    when (${OPEN('old')} or ${OPEN('new')})
      and (old.contact_id is not new.contact_id or ${OPEN('old')} <> ${OPEN('new')}) begin
    update contacts set open_tickets = open_tickets - 1 where ${OPEN('old')} and id = old.contact_id;
    update contacts set open_tickets = open_tickets + 1 where ${OPEN('new')} and id = new.contact_id;
  end`.execute(db);
  await sql`create trigger contact_open_ticket_delete after delete on tickets when ${OPEN('old')} begin
    update contacts set open_tickets = open_tickets - 1 where id = old.contact_id;
  end`.execute(db);
  await sql`create trigger contact_open_count_insert after insert on contacts when ${COUNTED('new')} begin
    update contact_counts set open_n = open_n + 1 where account_id = new.account_id;
  end`.execute(db);
  await sql`create trigger contact_open_count_update after update of open_tickets, merged_into on contacts
    when ${COUNTED('old')} <> ${COUNTED('new')} begin
    update contact_counts set open_n = open_n + case when ${COUNTED('new')} then 1 else -1 end
      where account_id = new.account_id;
  end`.execute(db);
  await sql`create trigger contact_open_count_delete after delete on contacts when ${COUNTED('old')} begin
    update contact_counts set open_n = open_n - 1 where account_id = old.account_id;
  end`.execute(db);
}

async function triggersPostgres(db: Kysely<unknown>): Promise<void> {
  // The change of each contact's open tickets in one statement, from the rows before (-1) and after (+1).
  const ticketDelta = (parts: string[]) =>
    sql.raw(`update contacts c set open_tickets = c.open_tickets + d.k
      from (select contact_id, sum(k) as k from (${parts.join(' union all ')}) x
        group by 1 having sum(k) <> 0 order by 1) d
      where c.id = d.contact_id;`);
  const plus = 'select contact_id, 1 as k from new_rows where contact_id is not null and closed not in (2, 3)';
  const minus = 'select contact_id, -1 as k from old_rows where contact_id is not null and closed not in (2, 3)';
  await sql`create or replace function parley_contact_open_tickets() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${ticketDelta([plus])}
  elsif tg_op = 'UPDATE' then
    ${ticketDelta([plus, minus])}
  else
    ${ticketDelta([minus])}
  end if;
  return null;
end $$`.execute(db);
  await sql`create trigger contact_open_ticket_insert after insert on tickets referencing new table as new_rows
    for each statement execute function parley_contact_open_tickets()`.execute(db);
  await sql`create trigger contact_open_ticket_update after update on tickets
    referencing old table as old_rows new table as new_rows
    for each statement execute function parley_contact_open_tickets()`.execute(db);
  await sql`create trigger contact_open_ticket_delete after delete on tickets referencing old table as old_rows
    for each statement execute function parley_contact_open_tickets()`.execute(db);

  const countDelta = (parts: string[]) =>
    sql.raw(`update contact_counts c set open_n = c.open_n + d.k
      from (select account_id, sum(k) as k from (${parts.join(' union all ')}) x
        group by 1 having sum(k) <> 0) d
      where c.account_id = d.account_id;`);
  const counted = 'merged_into is null and open_tickets > 0';
  const cPlus = `select account_id, 1 as k from new_rows where ${counted}`;
  const cMinus = `select account_id, -1 as k from old_rows where ${counted}`;
  await sql`create or replace function parley_contact_open_count() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${countDelta([cPlus])}
  elsif tg_op = 'UPDATE' then
    ${countDelta([cPlus, cMinus])}
  else
    ${countDelta([cMinus])}
  end if;
  return null;
end $$`.execute(db);
  await sql`create trigger contact_open_count_insert after insert on contacts referencing new table as new_rows
    for each statement execute function parley_contact_open_count()`.execute(db);
  await sql`create trigger contact_open_count_update after update on contacts
    referencing old table as old_rows new table as new_rows
    for each statement execute function parley_contact_open_count()`.execute(db);
  await sql`create trigger contact_open_count_delete after delete on contacts referencing old table as old_rows
    for each statement execute function parley_contact_open_count()`.execute(db);
}
