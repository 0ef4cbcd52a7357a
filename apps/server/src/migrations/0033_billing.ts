import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Plans, pricing and payment (see docs/billing.md).
 * - `pricing`: the installation's prices, one row per country (ISO code, '*' the default) and plan: currency,
 *   price per user per month (decimal text, 2 decimals) and tax (a fraction as decimal text, e.g. 0.06). Not
 *   an account's data: the operator edits it with the CLI (`pricing:set`).
 * - `payments`: one row per payment an account started: its public `ref`, the provider and the provider's
 *   own id, what was bought (plan, quantity) at which price, tax and total (decimal text), the status
 *   (PENDING, FAILED, SUCCESS) with the provider's description, and when it was settled;
 *   `provider_subscription` is the provider's subscription a paid checkout started (Stripe renewals find the
 *   account by it).
 * - `accounts.seats`: the number of users the subscription is paid for (0 none).
 */
export const m0033_billing: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .createTable('pricing')
      .ifNotExists()
      .addColumn('country', c.text, (x) => x.notNull())
      .addColumn('plan', c.int, (x) => x.notNull())
      .addColumn('currency', c.text, (x) => x.notNull())
      .addColumn('price', c.text, (x) => x.notNull())
      .addColumn('tax', c.text, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .addPrimaryKeyConstraint('pricing_pk', ['country', 'plan'])
      .execute();
    const now = Date.now();
    const rows: [string, number, string, string, string][] = [
      ['*', 1, 'USD', '10.00', '0'],
      ['*', 2, 'USD', '20.00', '0'],
      ['*', 3, 'USD', '30.00', '0'],
      ['MY', 1, 'MYR', '45.00', '0.08'],
      ['MY', 2, 'MYR', '90.00', '0.08'],
      ['MY', 3, 'MYR', '135.00', '0.08'],
    ];
    for (const [country, plan, currency, price, tax] of rows)
      await sql`insert into pricing (country, plan, currency, price, tax, updated_at)
        values (${country}, ${plan}, ${currency}, ${price}, ${tax}, ${now})`.execute(db);

    await c
      .id(db.schema.createTable('payments').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.references('users.id').onDelete('set null'))
      .addColumn('ref', c.text, (x) => x.notNull().unique())
      .addColumn('provider', c.text, (x) => x.notNull())
      .addColumn('provider_ref', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('provider_subscription', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('plan', c.int, (x) => x.notNull())
      .addColumn('quantity', c.int, (x) => x.notNull())
      .addColumn('country', c.text, (x) => x.notNull())
      .addColumn('currency', c.text, (x) => x.notNull())
      .addColumn('price', c.text, (x) => x.notNull())
      .addColumn('tax', c.text, (x) => x.notNull())
      .addColumn('total', c.text, (x) => x.notNull())
      .addColumn('status', c.text, (x) => x.notNull().defaultTo('PENDING'))
      .addColumn('payment_desc', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('settled_at', c.big)
      .execute();
    await db.schema
      .createIndex('payments_account_idx')
      .ifNotExists()
      .on('payments')
      .columns(['account_id', 'created_at'])
      .execute();
    await db.schema
      .alterTable('accounts')
      .addColumn('seats', c.int, (x) => x.notNull().defaultTo(0))
      .execute();
  },
};
