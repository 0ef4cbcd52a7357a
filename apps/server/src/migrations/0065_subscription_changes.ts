import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Changes to a running subscription (docs/billing.md):
 * - `accounts.subscription_cancel_at`: the admin cancelled the subscription; it ends then (the period's
 *   end) and does not renew; null while it renews.
 * - `payments.provider_customer`: the provider's customer a paid checkout made (Stripe refunds find the
 *   account by it).
 */
export const m0065_subscription_changes: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema.alterTable('accounts').addColumn('subscription_cancel_at', c.big).execute();
    await db.schema
      .alterTable('payments')
      .addColumn('provider_customer', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
  },
};
