import type Stripe from 'stripe';
import type { DB } from '../../../platform/db/db.js';
import { recordAudit } from '../../audit/index.js';
import { PERIOD_MS, settlePayment } from './settlePayment.js';

/** The subscription an invoice belongs to, where this API version or an older one puts it. */
function subscriptionOf(invoice: Stripe.Invoice): string {
  const parent = (invoice as { parent?: { subscription_details?: { subscription?: unknown } } }).parent;
  const s = parent?.subscription_details?.subscription ?? (invoice as { subscription?: unknown }).subscription;
  return typeof s === 'string' ? s : s && typeof s === 'object' && 'id' in s ? String(s.id) : '';
}

/**
 * What a verified Stripe event changes. A completed checkout settles its payment (once, however often it
 * is delivered) and keeps the subscription's id; a failed renewal ends the subscription now (the expired
 * notice shows); a paid renewal runs it another period. Anything else is acknowledged and ignored.
 */
export async function applyStripeEvent(db: DB, event: Stripe.Event, now = Date.now()): Promise<void> {
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
      if (paid && sub)
        await db
          .updateTable('payments')
          .set({ provider_subscription: sub })
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
      return;
    }
    case 'invoice.payment_failed':
    case 'invoice.paid': {
      const invoice = event.data.object;
      // The first invoice is the checkout's own; only renewals change the subscription here.
      if (invoice.billing_reason !== 'subscription_cycle') return;
      const sub = subscriptionOf(invoice);
      if (!sub) return;
      const pay = await db
        .selectFrom('payments')
        .select(['account_id', 'ref'])
        .where('provider', '=', 'stripe')
        .where('provider_subscription', '=', sub)
        .where('status', '=', 'SUCCESS')
        .orderBy('id', 'desc')
        .executeTakeFirst();
      if (!pay) return;
      const accountId = Number(pay.account_id);
      const renewed = event.type === 'invoice.paid';
      await db
        .updateTable('accounts')
        .set({ subscription_ends_at: renewed ? now + PERIOD_MS : now, updated_at: now })
        .where('id', '=', accountId)
        .execute();
      await recordAudit(db, {
        accountId,
        actor: 'stripe',
        action: renewed ? 'payment.succeeded' : 'payment.failed',
        detail: { ref: pay.ref, renewal: true, invoice: invoice.id },
      });
      return;
    }
    default:
      return;
  }
}
