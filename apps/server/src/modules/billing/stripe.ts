import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { PAY_STRINGS, PLAN_NAMES, paymentTotal } from '@parley/contracts';
import type Stripe from 'stripe';
import type { PaymentProvider } from './providers.js';

/** Whole cents of a decimal string with at most 2 decimals ("20.5" -> 2050). */
export function cents(v: string): number {
  const [whole, frac = ''] = v.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0').slice(0, 2));
}

export interface StripeOptions {
  secretKey: string;
  webhookSecret: string;
  /** The API's address; Stripe's own when unset. Tests point it at a loopback stand-in. */
  apiBase?: string;
  /** Where Checkout sends the popup back to (`/api/payment/done` under it). */
  publicUrl: string;
}

export type StripeProvider = Required<PaymentProvider> & {
  /** The verified event of a webhook delivery; throws when the signature does not match the raw body. */
  verify(rawBody: string, signature: string | undefined): Stripe.Event;
  /** Cancels a subscription now; one Stripe no longer has, or already cancelled, counts as done. */
  cancelSubscription(id: string): Promise<void>;
};

/**
 * The Stripe adapter (official `stripe` package): a payment is a Checkout session in subscription mode, one
 * recurring line of `quantity` seats at the plan's price and, when the country has a tax, one recurring
 * "Sales and Service Tax" line with the difference to the total, so Stripe charges exactly the total shown.
 * The ref is the session's client_reference_id and, prefixed, its idempotency key: a retried start never
 * makes a second session. The outcome comes by webhook (billing.routes.ts).
 */
export function stripeProvider(o: StripeOptions): StripeProvider {
  const base = o.apiBase ? new URL(o.apiBase) : null;
  // Loaded once payments are configured: the SDK adds ~20 MB to a server that takes none.
  const StripeSdk = createRequire(import.meta.url)('stripe') as typeof Stripe;
  const client = new StripeSdk(o.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol.replace(':', '') as 'http' | 'https',
        }
      : {}),
  });
  const back = `${o.publicUrl.replace(/\/$/, '')}/api/payment/done`;
  return {
    name: 'stripe',
    async start(p) {
      const currency = p.currency.toLowerCase();
      const seatCents = cents(p.price);
      const taxCents = cents(p.total) - cents(paymentTotal(p.quantity, p.price, '0'));
      const recurring = { interval: 'month' as const };
      const session = await client.checkout.sessions.create(
        {
          mode: 'subscription',
          client_reference_id: p.ref,
          metadata: { ref: p.ref, account_id: String(p.accountId), plan: String(p.plan) },
          success_url: back,
          cancel_url: back,
          line_items: [
            {
              quantity: p.quantity,
              price_data: {
                currency,
                unit_amount: seatCents,
                recurring,
                product_data: { name: `Parley ${PLAN_NAMES[p.plan] ?? p.plan} (per user)` },
              },
            },
            ...(taxCents > 0
              ? [
                  {
                    quantity: 1,
                    price_data: {
                      currency,
                      unit_amount: taxCents,
                      recurring,
                      product_data: { name: PAY_STRINGS.taxLabel },
                    },
                  },
                ]
              : []),
          ],
        },
        { idempotencyKey: `parley-checkout-${p.ref}` },
      );
      if (!session.url) throw new Error('The payment provider gave no payment page.');
      return { url: session.url, providerRef: session.id };
    },
    verify(rawBody, signature) {
      return client.webhooks.constructEvent(rawBody, signature ?? '', o.webhookSecret);
    },
    async changeSeats(id, c) {
      // The seat line and the tax line, told apart by the tax line's product name (both made at Checkout).
      const sub = await client.subscriptions.retrieve(id, { expand: ['items.data.price.product'] });
      const nameOf = (i: Stripe.SubscriptionItem) =>
        typeof i.price.product === 'object' && i.price.product && 'name' in i.price.product ? i.price.product.name : '';
      const tax = sub.items.data.find((i) => nameOf(i) === PAY_STRINGS.taxLabel);
      const seat = sub.items.data.find((i) => i !== tax);
      if (!seat) throw new Error('The subscription has no seat line.');
      const taxProduct = tax ? (typeof tax.price.product === 'string' ? tax.price.product : tax.price.product.id) : '';
      const items: Stripe.SubscriptionUpdateParams.Item[] = [{ id: seat.id, quantity: c.quantity }];
      // The tax line is a fixed amount: it is replaced by one of the new amount, of the same product.
      if (tax) {
        items.push({ id: tax.id, deleted: true });
        if (c.taxCents > 0)
          items.push({
            quantity: 1,
            price_data: {
              currency: c.currency.toLowerCase(),
              product: taxProduct,
              unit_amount: c.taxCents,
              recurring: { interval: 'month' },
            },
          });
      }
      await client.subscriptions.update(
        id,
        { items, proration_behavior: 'create_prorations' },
        { idempotencyKey: `parley-seats-${id}-${randomUUID()}` },
      );
    },
    async setCancelAtPeriodEnd(id, cancel) {
      const sub = await client.subscriptions.update(
        id,
        { cancel_at_period_end: cancel },
        { idempotencyKey: `parley-cancel-at-end-${id}-${randomUUID()}` },
      );
      return { cancelAt: cancel && sub.cancel_at ? sub.cancel_at * 1000 : null };
    },
    async cancelSubscription(id) {
      try {
        await client.subscriptions.cancel(id, {}, { idempotencyKey: `parley-cancel-${id}` });
      } catch (err) {
        const e = err as { code?: string; message?: string };
        if (e.code === 'resource_missing' || /already (been )?cancel/i.test(e.message ?? '')) return;
        throw err;
      }
    },
  };
}
