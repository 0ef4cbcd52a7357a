import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * For `npm run bench -- tickets`: two tables derived from `tickets`, kept by triggers in the writing
 * transaction, so no write path (commands, imports, the demo, a bulk `INSERT ... SELECT`) can forget them.
 *
 * - `ticket_counts`: how many tickets an account has per status, channel and department (0 = none). The
 *   `count` of a list page whose only conditions are status, list type, channel and department is a sum
 *   over a few of these rows instead of a count over every matching ticket.
 * - `ticket_labels`: one row per label of a ticket (parsed from the JSON list in `tickets.label`, which
 *   stays, the API returns it), with copies of the columns the list filters on, so a label filter reads an
 *   index instead of a LIKE over every candidate ticket's text.
 *
 * Postgres uses statement-level triggers over transition tables (one grouped upsert per statement, counter
 * rows locked in key order so two status changes never deadlock on them); SQLite row-level triggers (it has
 * one writer). On delete a counter is only decremented, never inserted: an account's cascade delete removes
 * its counters in the same statement.
 */
export const m0016_ticket_counts: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('ticket_counts')
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('closed', c.int, (x) => x.notNull())
      .addColumn('channel', c.text, (x) => x.notNull())
      .addColumn('department_id', c.big, (x) => x.notNull())
      .addColumn('n', c.big, (x) => x.notNull())
      .addPrimaryKeyConstraint('ticket_counts_pk', ['account_id', 'closed', 'channel', 'department_id'])
      .execute();
    await db.schema
      .createTable('ticket_labels')
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('label_id', c.big, (x) => x.notNull())
      .addColumn('closed', c.int, (x) => x.notNull())
      .addColumn('channel', c.text, (x) => x.notNull())
      .addColumn('department_id', c.big)
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .addPrimaryKeyConstraint('ticket_labels_pk', ['ticket_id', 'label_id'])
      .execute();
    // The label filter and the Label tab: by label, status and channel (the list type), then the received
    // time range; the rest makes it covering, so the ids are found without reading the table.
    await db.schema
      .createIndex('ticket_labels_list_idx')
      .on('ticket_labels')
      .columns([
        'account_id',
        'label_id',
        'closed',
        'channel',
        'created_at',
        'updated_at',
        'department_id',
        'ticket_id',
      ])
      .execute();

    if (dialect === 'postgres') await postgresTriggers(db);
    else await sqliteTriggers(db);

    // Backfill after the triggers exist: on Postgres creating them locked `tickets` against writes until
    // this migration commits, so no row is missed or counted twice.
    await sql`insert into ticket_counts (account_id, closed, channel, department_id, n)
      select account_id, closed, channel, coalesce(department_id, 0), count(*) from tickets
      group by account_id, closed, channel, coalesce(department_id, 0)`.execute(db);
    if (dialect === 'postgres')
      await sql`insert into ticket_labels (account_id, ticket_id, label_id, closed, channel, department_id, created_at, updated_at)
        select t.account_id, t.id, l.id, t.closed, t.channel, t.department_id, t.created_at, t.updated_at
        from tickets t cross join lateral parley_label_ids(t.label) as l(id)`.execute(db);
    else
      await sql`insert or ignore into ticket_labels (account_id, ticket_id, label_id, closed, channel, department_id, created_at, updated_at)
        select t.account_id, t.id, j.value, t.closed, t.channel, t.department_id, t.created_at, t.updated_at
        from tickets t, json_each(${sql.raw(sqliteLabelList('t.label'))}) j
        where j.type = 'integer' and j.value > 0`.execute(db);
  },
};

/** The label JSON as an array json_each can read; '[]' when it is not valid JSON or not an array. */
const sqliteLabelList = (col: string) =>
  `case when json_valid(${col}) then case when json_type(${col}) = 'array' then ${col} else '[]' end else '[]' end`;

async function sqliteTriggers(db: Kysely<unknown>) {
  const labelRows = `insert or ignore into ticket_labels
      (account_id, ticket_id, label_id, closed, channel, department_id, created_at, updated_at)
    select new.account_id, new.id, j.value, new.closed, new.channel, new.department_id, new.created_at, new.updated_at
    from json_each(${sqliteLabelList('new.label')}) j where j.type = 'integer' and j.value > 0;`;
  const increment = `insert into ticket_counts (account_id, closed, channel, department_id, n)
    values (new.account_id, new.closed, new.channel, coalesce(new.department_id, 0), 1)
    on conflict (account_id, closed, channel, department_id) do update set n = n + 1;`;
  const decrement = `update ticket_counts set n = n - 1 where account_id = old.account_id and closed = old.closed
    and channel = old.channel and department_id = coalesce(old.department_id, 0);`;
  const statements = [
    `create trigger ticket_index_insert after insert on tickets begin ${increment} ${labelRows} end`,
    `create trigger ticket_index_count after update of account_id, closed, channel, department_id on tickets
      when old.account_id is not new.account_id or old.closed is not new.closed or old.channel is not new.channel
        or old.department_id is not new.department_id
      begin ${decrement} ${increment} end`,
    `create trigger ticket_index_label after update of label on tickets when old.label is not new.label
      begin delete from ticket_labels where ticket_id = old.id; ${labelRows} end`,
    `create trigger ticket_index_columns
      after update of account_id, closed, channel, department_id, created_at, updated_at on tickets
      when old.label is new.label and (old.account_id is not new.account_id or old.closed is not new.closed
        or old.channel is not new.channel or old.department_id is not new.department_id
        or old.created_at is not new.created_at or old.updated_at is not new.updated_at)
      begin update ticket_labels set account_id = new.account_id, closed = new.closed, channel = new.channel,
        department_id = new.department_id, created_at = new.created_at, updated_at = new.updated_at
        where ticket_id = new.id; end`,
    `create trigger ticket_index_delete after delete on tickets
      begin ${decrement} delete from ticket_labels where ticket_id = old.id; end`,
  ];
  for (const s of statements) await sql.raw(s).execute(db);
}

async function postgresTriggers(db: Kysely<unknown>) {
  // The ids of a `label` text the way the list's filter has always read it: the comma-separated tokens
  // between the brackets, each a positive whole number. Plain SQL, so the planner inlines it.
  await sql`create or replace function parley_label_ids(label text) returns setof bigint
    language sql immutable as $$
      select distinct btrim(tok)::bigint from regexp_split_to_table(substr(label, 2, length(label) - 2), ',') as tok
      where left(label, 1) = '[' and right(label, 1) = ']' and btrim(tok) ~ '^[1-9][0-9]{0,17}$'
    $$`.execute(db);
  const cols = 'account_id, ticket_id, label_id, closed, channel, department_id, created_at, updated_at';
  const fromNew = 't.account_id, t.id, l.id, t.closed, t.channel, t.department_id, t.created_at, t.updated_at';
  const upsert = `on conflict (account_id, closed, channel, department_id) do update set n = c.n + excluded.n`;
  await sql
    .raw(`create or replace function parley_ticket_index() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into ticket_counts as c (account_id, closed, channel, department_id, n)
      select account_id, closed, channel, coalesce(department_id, 0), count(*) from new_rows
      group by 1, 2, 3, 4 order by 1, 2, 3, 4
      ${upsert};
    insert into ticket_labels (${cols})
      select ${fromNew} from new_rows t cross join lateral parley_label_ids(t.label) as l(id)
      on conflict do nothing;
  elsif tg_op = 'UPDATE' then
    insert into ticket_counts as c (account_id, closed, channel, department_id, n)
      select account_id, closed, channel, department_id, sum(k) from (
        select account_id, closed, channel, coalesce(department_id, 0) as department_id, 1 as k from new_rows
        union all
        select account_id, closed, channel, coalesce(department_id, 0), -1 from old_rows
      ) d
      group by 1, 2, 3, 4 having sum(k) <> 0 order by 1, 2, 3, 4
      ${upsert};
    delete from ticket_labels tl using old_rows o join new_rows t on t.id = o.id
      where tl.ticket_id = o.id and o.label is distinct from t.label;
    insert into ticket_labels (${cols})
      select ${fromNew} from old_rows o join new_rows t on t.id = o.id
      cross join lateral parley_label_ids(t.label) as l(id)
      where o.label is distinct from t.label
      on conflict do nothing;
    update ticket_labels tl set account_id = t.account_id, closed = t.closed, channel = t.channel,
        department_id = t.department_id, created_at = t.created_at, updated_at = t.updated_at
      from old_rows o join new_rows t on t.id = o.id
      where tl.ticket_id = t.id and o.label is not distinct from t.label
        and (o.account_id, o.closed, o.channel, o.department_id, o.created_at, o.updated_at)
          is distinct from (t.account_id, t.closed, t.channel, t.department_id, t.created_at, t.updated_at);
  else
    update ticket_counts c set n = c.n - d.n
      from (
        select account_id, closed, channel, coalesce(department_id, 0) as department_id, count(*) as n from old_rows
        group by 1, 2, 3, 4
      ) d
      where c.account_id = d.account_id and c.closed = d.closed and c.channel = d.channel
        and c.department_id = d.department_id;
  end if;
  return null;
end $$`)
    .execute(db);
  await sql`create trigger ticket_index_insert after insert on tickets referencing new table as new_rows
    for each statement execute function parley_ticket_index()`.execute(db);
  await sql`create trigger ticket_index_update after update on tickets
    referencing old table as old_rows new table as new_rows
    for each statement execute function parley_ticket_index()`.execute(db);
  await sql`create trigger ticket_index_delete after delete on tickets referencing old table as old_rows
    for each statement execute function parley_ticket_index()`.execute(db);
}
