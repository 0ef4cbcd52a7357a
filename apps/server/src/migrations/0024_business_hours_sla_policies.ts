import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Business hours (per account, department 0, or per department, which overrides the account's), holidays
 * (dates per account or department) and SLA policies (matched in `position` order). Also brings
 * `tickets.has_responded` in line with its new meaning, "the team answered the customer's last message":
 * a ticket whose customer wrote after the last agent reply waits for the team again.
 */
export const m0024_business_hours_sla_policies: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('business_hours').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull())
      .addColumn('department_id', c.big, (x) => x.notNull().defaultTo(0))
      .addColumn('timezone', c.text, (x) => x.notNull())
      .addColumn('days', c.text, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('business_hours_scope_idx')
      .ifNotExists()
      .unique()
      .on('business_hours')
      .columns(['account_id', 'department_id'])
      .execute();
    await c
      .id(db.schema.createTable('holidays').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull())
      .addColumn('department_id', c.big, (x) => x.notNull().defaultTo(0))
      .addColumn('date', c.text, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createIndex('holidays_scope_idx')
      .ifNotExists()
      .unique()
      .on('holidays')
      .columns(['account_id', 'department_id', 'date'])
      .execute();
    await c
      .id(db.schema.createTable('sla_policies').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull())
      .addColumn('position', c.int, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('priority', c.text)
      .addColumn('channel', c.text)
      .addColumn('label_id', c.big)
      .addColumn('department_id', c.big)
      .addColumn('first_response', c.int)
      .addColumn('next_response', c.int)
      .addColumn('resolution', c.int)
      .addColumn('calendar', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('sla_policies_account_idx')
      .ifNotExists()
      .on('sla_policies')
      .columns(['account_id', 'position'])
      .execute();
    // A customer message after the last agent reply: the team has not answered (see postMessages).
    await sql`
      update tickets set has_responded = 0
      where has_responded = 1 and last_message_at > coalesce((
        select max(m.created_at) from messages m
        where m.account_id = tickets.account_id and m.ticket_id = tickets.id and m.type <> 'system'
          and m.sender in (select u.username from users u where u.account_id = tickets.account_id)
      ), 0)`.execute(db);
  },
};
