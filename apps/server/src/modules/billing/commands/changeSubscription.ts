import { randomBytes } from 'node:crypto';
import {
  PAY_ERRORS,
  PLANS,
  parseQuantity,
  paymentTotal,
  SUBSCRIPTION_STRINGS,
  type SubscriptionInfo,
} from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { lockAccount } from '../../../platform/db/locks.js';
import { AppError, badRequest, conflict } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import type { PaymentProvider } from '../providers.js';
import { cents } from '../stripe.js';

type Who = { accountId: number; userId: number; actor: string; ip: string };

/**
 * The account's running subscription: a paid plan (1-3) whose period has not ended, and the newest paid or
 * changed row of it (plan, users, price, tax and currency it runs at; a Stripe one names its subscription,
 * '' once it was replaced or ended). Null when there is none.
 */
export async function runningSubscription(db: DB, accountId: number, now = Date.now()) {
  const account = await db
    .selectFrom('accounts')
    .select(['plan', 'seats', 'subscription_ends_at', 'subscription_cancel_at'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return null;
  const plan = Number(account.plan);
  if (plan < PLANS.starter || plan > PLANS.pro) return null;
  const endsAt = account.subscription_ends_at === null ? null : Number(account.subscription_ends_at);
  if (endsAt === null || endsAt <= now) return null;
  const row = await db
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', 'in', ['SUCCESS', 'CHANGED'])
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!row) return null;
  if (row.provider === 'stripe' && row.provider_subscription === '') return null;
  const cancelAt = account.subscription_cancel_at === null ? null : Number(account.subscription_cancel_at);
  return { account: { plan, seats: Number(account.seats), endsAt, cancelAt }, row };
}

/** What `GET /api/payment/subscription` answers. */
export async function subscriptionInfo(db: DB, accountId: number): Promise<SubscriptionInfo | null> {
  const s = await runningSubscription(db, accountId);
  if (!s) return null;
  const seats = s.account.seats || Number(s.row.quantity);
  return {
    plan: s.account.plan,
    seats,
    provider: s.row.provider,
    currency: s.row.currency,
    price: s.row.price,
    tax: s.row.tax,
    total: paymentTotal(seats, s.row.price, s.row.tax),
    ends_at: s.account.endsAt,
    cancel_at: s.account.cancelAt,
  };
}

const providerWords = (err: unknown) =>
  err instanceof Error ? err.message : 'The payment provider could not be reached.';

/**
 * Design: the admin changes the number of users of the running subscription. The provider changes the
 * subscription's quantity and prorates the difference (Stripe: on the next invoice, at the price and tax
 * the subscription runs at); here a CHANGED row joins the payment history with the new monthly total (the
 * next renewal copies it), the account's seats change, and it is audited. Fewer users than the account has
 * active is refused; so is a cancelled subscription (keep it first).
 */
export async function changeSeats(db: DB, provider: PaymentProvider | null, who: Who, input: { quantity: unknown }) {
  const quantity = parseQuantity(input.quantity);
  if (quantity === null) throw badRequest(PAY_ERRORS.quantity);
  const s = await runningSubscription(db, who.accountId);
  if (!s) throw conflict(SUBSCRIPTION_STRINGS.none);
  if (s.account.cancelAt !== null) throw conflict(SUBSCRIPTION_STRINGS.cancelled);
  const from = s.account.seats || Number(s.row.quantity);
  if (quantity === from) throw conflict(SUBSCRIPTION_STRINGS.sameSeats(from));
  const users = Number(
    (
      await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', who.accountId)
        .where('active', '=', 1)
        .executeTakeFirstOrThrow()
    ).n,
  );
  if (quantity < users) throw conflict(SUBSCRIPTION_STRINGS.tooFewSeats(users));
  const { row } = s;
  const total = paymentTotal(quantity, row.price, row.tax);
  const sub = row.provider_subscription;
  if (row.provider !== provider?.name) throw conflict(SUBSCRIPTION_STRINGS.none);
  if (provider.changeSeats && sub) {
    try {
      await provider.changeSeats(sub, {
        quantity,
        currency: row.currency,
        taxCents: cents(total) - cents(paymentTotal(quantity, row.price, '0')),
      });
    } catch (err) {
      throw new AppError(502, 'PAYMENT_PROVIDER', providerWords(err));
    }
  }
  const now = Date.now();
  const ref = randomBytes(16).toString('base64url');
  await runCommand(db, async (trx) => {
    await lockAccount(trx, who.accountId);
    await trx
      .insertInto('payments')
      .values({
        account_id: who.accountId,
        user_id: who.userId,
        ref,
        provider: row.provider,
        provider_ref: '',
        provider_subscription: sub,
        provider_customer: row.provider_customer,
        plan: Number(row.plan),
        quantity,
        country: row.country,
        currency: row.currency,
        price: row.price,
        tax: row.tax,
        total,
        status: 'CHANGED',
        payment_desc: SUBSCRIPTION_STRINGS.seatsChanged(from, quantity),
        created_at: now,
        settled_at: now,
      })
      .execute();
    await trx
      .updateTable('accounts')
      .set({ seats: quantity, updated_at: now })
      .where('id', '=', who.accountId)
      .execute();
    await recordAudit(trx, {
      accountId: who.accountId,
      userId: who.userId,
      actor: who.actor,
      action: 'payment.seats_changed',
      detail: { ref, subscription: sub, from, to: quantity, currency: row.currency, total },
      ip: who.ip,
    });
  });
  return subscriptionInfo(db, who.accountId);
}

/**
 * Design: the admin cancels the subscription at the end of its paid period (`cancel`), or keeps it again
 * before then. The plan stays until then; the provider does not renew it (Stripe: cancel_at_period_end, and
 * `customer.subscription.deleted` ends it). Audited.
 */
export async function setCancelAtPeriodEnd(db: DB, provider: PaymentProvider | null, who: Who, cancel: boolean) {
  const s = await runningSubscription(db, who.accountId);
  if (!s) throw conflict(SUBSCRIPTION_STRINGS.none);
  if (cancel && s.account.cancelAt !== null) throw conflict(SUBSCRIPTION_STRINGS.alreadyCancelled);
  if (!cancel && s.account.cancelAt === null) throw conflict(SUBSCRIPTION_STRINGS.notCancelled);
  const sub = s.row.provider_subscription;
  if (s.row.provider !== provider?.name) throw conflict(SUBSCRIPTION_STRINGS.none);
  let cancelAt: number | null = cancel ? s.account.endsAt : null;
  if (provider.setCancelAtPeriodEnd && sub) {
    try {
      const r = await provider.setCancelAtPeriodEnd(sub, cancel);
      if (cancel && r.cancelAt !== null) cancelAt = r.cancelAt;
    } catch (err) {
      throw new AppError(502, 'PAYMENT_PROVIDER', providerWords(err));
    }
  }
  await runCommand(db, async (trx) => {
    await trx
      .updateTable('accounts')
      .set({ subscription_cancel_at: cancelAt, updated_at: Date.now() })
      .where('id', '=', who.accountId)
      .execute();
    await recordAudit(trx, {
      accountId: who.accountId,
      userId: who.userId,
      actor: who.actor,
      action: cancel ? 'payment.cancel_scheduled' : 'payment.cancel_withdrawn',
      detail: { subscription: sub, provider: s.row.provider, ...(cancel ? { endsAt: cancelAt } : {}) },
      ip: who.ip,
    });
  });
  return subscriptionInfo(db, who.accountId);
}
