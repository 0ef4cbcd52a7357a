import { randomBytes } from 'node:crypto';
import { SUBSCRIPTION_STRINGS } from '@parley/contracts';
import type Stripe from 'stripe';
import type { DB } from '../../../platform/db/db.js';
import { lockAccount } from '../../../platform/db/locks.js';
import { AppError } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { cents } from '../stripe.js';
import { PERIOD_MS, settlePayment } from './settlePayment.js';

/**
 * An account pays for one subscription at a time: once a new one is paid (a payment after an expired one,
 * Pay Now), the older ones are cancelled at Stripe, so nobody is charged twice for the same seats, and
 * their id is cleared here, so a late renewal event of one changes nothing. A cancel Stripe refuses is in
 * the audit log and fails the delivery (Stripe sends it again, and the cancel is tried again).
 */
async function cancelOlderSubscriptions(
  db: DB,
  cancel: (id: string) => Promise<void>,
  accountId: number,
  current: string,
): Promise<void> {
  const older = await db
    .selectFrom('payments')
    .select('provider_subscription')
    .distinct()
    .where('account_id', '=', accountId)
    .where('provider', '=', 'stripe')
    .where('provider_subscription', '!=', '')
    .where('provider_subscription', '!=', current)
    .execute();
  for (const { provider_subscription: id } of older) {
    try {
      await cancel(id);
    } catch (err) {
      const desc = err instanceof Error ? err.message : String(err);
      await recordAudit(db, {
        accountId,
        actor: 'stripe',
        action: 'payment.cancel_failed',
        detail: { subscription: id, replacedBy: current, desc },
      });
      // Any answer but a 2xx makes Stripe deliver the event again (with backoff, for days).
      throw new AppError(502, 'PAYMENT_PROVIDER', desc);
    }
    await runCommand(db, async (trx) => {
      await trx
        .updateTable('payments')
        .set({ provider_subscription: '' })
        .where('account_id', '=', accountId)
        .where('provider', '=', 'stripe')
        .where('provider_subscription', '=', id)
        .execute();
      await recordAudit(trx, {
        accountId,
        actor: 'stripe',
        action: 'payment.subscription_cancelled',
        detail: { subscription: id, replacedBy: current },
      });
    });
  }
}

/** The words a renewal's row carries (the payment history shows them). */
export const RENEWAL_PAID = 'Renewed.';
export const RENEWAL_FAILED = 'The renewal payment failed.';

/**
 * A renewal invoice of a subscription, paid or failed: a row in the payment history (the plan, users and
 * amounts of the payment that started the subscription, which is what Stripe charges again), the
 * subscription's end moved (paid: another period from now; failed: now, so the expired notice shows), and
 * the audit log. Once per invoice and outcome: a redelivered event, or Stripe's next retry failing again,
 * changes nothing; a failure arriving after the invoice was paid is late and changes nothing either.
 */
async function recordRenewal(
  db: DB,
  r: { invoiceId: string; subscription: string; paid: boolean },
  now: number,
): Promise<void> {
  await runCommand(db, async (trx) => {
    const pay = await trx
      .selectFrom('payments')
      .selectAll()
      .where('provider', '=', 'stripe')
      .where('provider_subscription', '=', r.subscription)
      // The newest paid or changed row: a change of users is what Stripe charges from then on.
      .where('status', 'in', ['SUCCESS', 'CHANGED'])
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (!pay) return;
    const accountId = Number(pay.account_id);
    // Deliveries of the same invoice take turns on the account's row.
    await lockAccount(trx, accountId);
    const outcome = r.paid ? 'SUCCESS' : 'FAILED';
    const seen = await trx
      .selectFrom('payments')
      .select('status')
      .where('account_id', '=', accountId)
      .where('provider', '=', 'stripe')
      .where('provider_ref', '=', r.invoiceId)
      .execute();
    if (seen.some((x) => x.status === 'SUCCESS' || x.status === outcome)) return;
    const ref = randomBytes(16).toString('base64url');
    const desc = r.paid ? RENEWAL_PAID : RENEWAL_FAILED;
    await trx
      .insertInto('payments')
      .values({
        account_id: accountId,
        user_id: null,
        ref,
        provider: 'stripe',
        provider_ref: r.invoiceId,
        provider_subscription: r.subscription,
        plan: Number(pay.plan),
        quantity: Number(pay.quantity),
        country: pay.country,
        currency: pay.currency,
        price: pay.price,
        tax: pay.tax,
        total: pay.total,
        status: outcome,
        payment_desc: desc,
        created_at: now,
        settled_at: now,
      })
      .execute();
    await trx
      .updateTable('accounts')
      .set({ subscription_ends_at: r.paid ? now + PERIOD_MS : now, updated_at: now })
      .where('id', '=', accountId)
      .execute();
    await recordAudit(trx, {
      accountId,
      actor: 'stripe',
      action: r.paid ? 'payment.succeeded' : 'payment.failed',
      detail: {
        ref,
        renewal: true,
        invoice: r.invoiceId,
        plan: Number(pay.plan),
        quantity: Number(pay.quantity),
        currency: pay.currency,
        total: pay.total,
        desc,
      },
    });
  });
}

/** The subscription an invoice belongs to, where this API version or an older one puts it. */
function subscriptionOf(invoice: Stripe.Invoice): string {
  const parent = (invoice as { parent?: { subscription_details?: { subscription?: unknown } } }).parent;
  const s = parent?.subscription_details?.subscription ?? (invoice as { subscription?: unknown }).subscription;
  return typeof s === 'string' ? s : s && typeof s === 'object' && 'id' in s ? String(s.id) : '';
}

/**
 * What a verified Stripe event changes. A completed checkout settles its payment (once, however often it
 * is delivered) and keeps the subscription's id; a renewal is recorded once per invoice (recordRenewal): a
 * failed one ends the subscription now (the expired notice shows), a paid one runs it another period.
 * Anything else is acknowledged and ignored.
 */
export async function applyStripeEvent(
  db: DB,
  event: Stripe.Event,
  o: { now?: number; cancelSubscription?: (id: string) => Promise<void> } = {},
): Promise<void> {
  const now = o.now ?? Date.now();
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const s = event.data.object;
      const ref = s.client_reference_id;
      if (!ref) return;
      const paid =
        event.type !== 'checkout.session.expired' &&
        event.type !== 'checkout.session.async_payment_failed' &&
        (s.payment_status === 'paid' || s.payment_status === 'no_payment_required');
      const failed =
        event.type === 'checkout.session.expired' || event.type === 'checkout.session.async_payment_failed';
      if (!paid && !failed) return; // completed but still processing: an async_payment_* event follows
      const sub = typeof s.subscription === 'string' ? s.subscription : (s.subscription?.id ?? '');
      const customer = typeof s.customer === 'string' ? s.customer : (s.customer?.id ?? '');
      if (paid && sub)
        await db
          .updateTable('payments')
          .set({ provider_subscription: sub, provider_customer: customer })
          .where('ref', '=', ref)
          .where('provider', '=', 'stripe')
          .execute();
      await settlePayment(
        db,
        {
          ref,
          outcome: paid ? 'SUCCESS' : 'FAILED',
          desc: paid
            ? 'Paid.'
            : event.type === 'checkout.session.expired'
              ? 'The payment page expired.'
              : 'The payment failed.',
          actor: 'stripe',
        },
        now,
      );
      // On every paid delivery, not only the first: a cancel that failed is tried again when Stripe redelivers.
      if (paid && sub && o.cancelSubscription) {
        const row = await db
          .selectFrom('payments')
          .select(['account_id', 'status'])
          .where('ref', '=', ref)
          .where('provider', '=', 'stripe')
          .executeTakeFirst();
        // Only a payment that is paid replaces the subscription the account had.
        if (row?.status === 'SUCCESS')
          await cancelOlderSubscriptions(db, o.cancelSubscription, Number(row.account_id), sub);
      }
      return;
    }
    case 'invoice.payment_failed':
    case 'invoice.paid': {
      const invoice = event.data.object;
      // The first invoice is the checkout's own; only renewals change the subscription here.
      if (invoice.billing_reason !== 'subscription_cycle' || !invoice.id) return;
      const sub = subscriptionOf(invoice);
      if (!sub) return;
      await recordRenewal(db, { invoiceId: invoice.id, subscription: sub, paid: event.type === 'invoice.paid' }, now);
      return;
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const sub = event.data.object;
      await subscriptionChanged(db, sub, event.type === 'customer.subscription.deleted', now);
      return;
    }
    case 'charge.refunded': {
      await recordRefund(db, event.data.object, now);
      return;
    }
    default:
      return;
  }
}

/** The account whose running Stripe subscription this is (its newest paid or changed row), or null. */
async function accountOfSubscription(db: DB | Trx, sub: string) {
  const row = await db
    .selectFrom('payments')
    .select(['account_id'])
    .where('provider', '=', 'stripe')
    .where('provider_subscription', '=', sub)
    .where('status', 'in', ['SUCCESS', 'CHANGED'])
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row ? Number(row.account_id) : null;
}

/**
 * A subscription changed at Stripe: `deleted` (a cancellation at the period's end came due, or it was
 * cancelled in Stripe's dashboard) ends it now, so the expired notice shows, and forgets its id (a late event
 * changes nothing); an update carries whether it is cancelled at the period's end (set here or in Stripe's
 * dashboard), which the billing screen shows. Each change is audited once: an event that changes nothing
 * (a redelivery) is not.
 */
async function subscriptionChanged(db: DB, sub: Stripe.Subscription, deleted: boolean, now: number) {
  await runCommand(db, async (trx) => {
    const accountId = await accountOfSubscription(trx, sub.id);
    if (accountId === null) return;
    const account = await lockAccount(trx, accountId);
    if (!account) return;
    const current = await trx
      .selectFrom('accounts')
      .select(['subscription_ends_at', 'subscription_cancel_at'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    if (deleted) {
      const ends = current.subscription_ends_at === null ? now : Math.min(Number(current.subscription_ends_at), now);
      await trx
        .updateTable('accounts')
        .set({ subscription_ends_at: ends, subscription_cancel_at: null, updated_at: now })
        .where('id', '=', accountId)
        .execute();
      await trx
        .updateTable('payments')
        .set({ provider_subscription: '' })
        .where('account_id', '=', accountId)
        .where('provider', '=', 'stripe')
        .where('provider_subscription', '=', sub.id)
        .execute();
      await recordAudit(trx, {
        accountId,
        actor: 'stripe',
        action: 'payment.subscription_ended',
        detail: { subscription: sub.id },
      });
      return;
    }
    const periodEnd = current.subscription_ends_at === null ? null : Number(current.subscription_ends_at);
    const cancelAt = sub.cancel_at_period_end ? (sub.cancel_at ? sub.cancel_at * 1000 : periodEnd) : null;
    const was = current.subscription_cancel_at === null ? null : Number(current.subscription_cancel_at);
    if ((was === null) === (cancelAt === null)) return;
    await trx
      .updateTable('accounts')
      .set({ subscription_cancel_at: cancelAt, updated_at: now })
      .where('id', '=', accountId)
      .execute();
    await recordAudit(trx, {
      accountId,
      actor: 'stripe',
      action: cancelAt === null ? 'payment.cancel_withdrawn' : 'payment.cancel_scheduled',
      detail: { subscription: sub.id, ...(cancelAt === null ? {} : { endsAt: cancelAt }) },
    });
  });
}

/** Minor units as decimal text ("2160" -> "21.60"); Stripe's zero-decimal currencies as they are. */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);
function major(amount: number, currency: string): string {
  if (ZERO_DECIMAL.has(currency.toLowerCase())) return String(amount);
  const s = String(amount).padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}
const minor = (v: string, currency: string) => (ZERO_DECIMAL.has(currency.toLowerCase()) ? Number(v) : cents(v));

/**
 * `charge.refunded`: money given back on a charge of an account's customer (refunds are made in Stripe's
 * dashboard). `amount_refunded` is the charge's whole refunded amount so far, so each delivery records only
 * what is new since the rows already kept for that charge: a redelivery changes nothing, a second partial
 * refund adds its own row. A REFUNDED row of the payment history (plan and users of the account's newest
 * payment, the amount refunded as its total) and the audit log. The plan is not changed: ending the
 * subscription is a cancellation of its own.
 */
async function recordRefund(db: DB, charge: Stripe.Charge, now: number) {
  const customer = typeof charge.customer === 'string' ? charge.customer : (charge.customer?.id ?? '');
  if (!customer || !charge.id) return;
  await runCommand(db, async (trx) => {
    const pay = await trx
      .selectFrom('payments')
      .selectAll()
      .where('provider', '=', 'stripe')
      .where('provider_customer', '=', customer)
      .where('status', 'in', ['SUCCESS', 'CHANGED'])
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (!pay) return;
    const accountId = Number(pay.account_id);
    await lockAccount(trx, accountId);
    const currency = charge.currency.toUpperCase();
    const kept = await trx
      .selectFrom('payments')
      .select('total')
      .where('account_id', '=', accountId)
      .where('provider', '=', 'stripe')
      .where('status', '=', 'REFUNDED')
      .where('provider_ref', '=', charge.id)
      .execute();
    const before = kept.reduce((n, r) => n + minor(r.total, currency), 0);
    const added = charge.amount_refunded - before;
    if (added <= 0) return;
    const ref = randomBytes(16).toString('base64url');
    const total = major(added, currency);
    await trx
      .insertInto('payments')
      .values({
        account_id: accountId,
        user_id: null,
        ref,
        provider: 'stripe',
        provider_ref: charge.id,
        provider_subscription: '',
        provider_customer: customer,
        plan: Number(pay.plan),
        quantity: Number(pay.quantity),
        country: pay.country,
        currency,
        price: pay.price,
        tax: pay.tax,
        total,
        status: 'REFUNDED',
        payment_desc: SUBSCRIPTION_STRINGS.refunded,
        created_at: now,
        settled_at: now,
      })
      .execute();
    await recordAudit(trx, {
      accountId,
      actor: 'stripe',
      action: 'payment.refunded',
      detail: {
        ref,
        charge: charge.id,
        currency,
        total,
        refundedSoFar: major(charge.amount_refunded, currency),
        charged: major(charge.amount, currency),
      },
    });
  });
}
