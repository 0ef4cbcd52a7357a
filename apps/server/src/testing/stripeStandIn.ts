import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface StripeSeen {
  method: string;
  path: string;
  auth: string;
  idempotencyKey: string;
  body: URLSearchParams;
}

interface Item {
  id: string;
  quantity: number;
  price: { id: string; currency: string; unit_amount: number; product: { id: string; name: string } };
}
interface Sub {
  id: string;
  customer: string;
  status: 'active' | 'canceled';
  cancel_at_period_end: boolean;
  current_period_end: number;
  items: Item[];
}

const stripeLib = new Stripe('sk_test_unused');
/** A `Stripe-Signature` header for `payload`, made by the package's own test helper. */
export const signStripe = (payload: string, secret: string) =>
  stripeLib.webhooks.generateTestHeaderString({ payload, secret });

const event = (type: string, object: unknown, id = `evt_${Math.random().toString(36).slice(2)}`) =>
  JSON.stringify({ id, object: 'event', api_version: '2025-03-31.basil', type, data: { object } });

/**
 * A loopback stand-in for Stripe's API, answering in Stripe's documented shapes:
 * - `POST /v1/checkout/sessions`: a Checkout Session (the same one again for a repeated idempotency key, as
 *   Stripe does; 13 seats: Stripe's error of an account that may not charge). `complete(sessionId)` pays it
 *   as Checkout would: a customer and a subscription with the session's lines are made, and the
 *   `checkout.session.completed` event is answered for the test to sign and deliver.
 * - `GET /v1/subscriptions/:id` (with `expand[]=items.data.price.product`) and `POST /v1/subscriptions/:id`
 *   (items: quantity, deleted, price_data with a product; cancel_at_period_end; proration_behavior): the
 *   subscription, changed.
 * - `DELETE /v1/subscriptions/:id`: cancelled (or an error for one in `refuseCancel`).
 * Every request is kept in `seen`.
 */
export async function stripeStandIn() {
  const seen: StripeSeen[] = [];
  const byKey = new Map<string, unknown>();
  const sessions = new Map<string, { lines: URLSearchParams; ref: string }>();
  const subs = new Map<string, Sub>();
  /** Product names by id (a product outlives the items of it). */
  const products = new Map<string, string>();
  /** Subscriptions cancelled (DELETE /v1/subscriptions/:id), and those whose cancel is refused. */
  const cancelled: string[] = [];
  const refuseCancel = new Set<string>();
  /** Subscriptions whose updates Stripe refuses (with Stripe's error shape). */
  const refuseUpdate = new Set<string>();
  let n = 0;
  const now = () => Math.floor(Date.now() / 1000);

  const subJson = (s: Sub, expand: boolean) => ({
    id: s.id,
    object: 'subscription',
    status: s.status,
    customer: s.customer,
    cancel_at_period_end: s.cancel_at_period_end,
    cancel_at: s.cancel_at_period_end ? s.current_period_end : null,
    canceled_at: s.status === 'canceled' ? now() : null,
    items: {
      object: 'list',
      has_more: false,
      url: `/v1/subscription_items?subscription=${s.id}`,
      data: s.items.map((i) => ({
        id: i.id,
        object: 'subscription_item',
        quantity: i.quantity,
        subscription: s.id,
        current_period_start: s.current_period_end - 30 * 86400,
        current_period_end: s.current_period_end,
        price: {
          id: i.price.id,
          object: 'price',
          currency: i.price.currency,
          unit_amount: i.price.unit_amount,
          recurring: { interval: 'month', interval_count: 1 },
          product: expand
            ? { id: i.price.product.id, object: 'product', name: i.price.product.name }
            : i.price.product.id,
        },
      })),
    },
  });
  const error = (res: http.ServerResponse, status: number, message: string, code?: string) => {
    res.statusCode = status;
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', message, ...(code ? { code } : {}) } }));
  };

  /** Applies `POST /v1/subscriptions/:id`'s form body as Stripe would. */
  function update(s: Sub, b: URLSearchParams) {
    if (b.has('cancel_at_period_end')) s.cancel_at_period_end = b.get('cancel_at_period_end') === 'true';
    for (let i = 0; b.has(`items[${i}][id]`) || b.has(`items[${i}][price_data][currency]`); i++) {
      const p = (k: string) => b.get(`items[${i}]${k}`);
      const id = p('[id]');
      if (id) {
        const item = s.items.find((x) => x.id === id);
        if (!item) throw new Error(`No such subscription item: '${id}'`);
        if (p('[deleted]') === 'true') s.items = s.items.filter((x) => x !== item);
        else if (p('[quantity]')) item.quantity = Number(p('[quantity]'));
        continue;
      }
      const product = p('[price_data][product]') ?? '';
      if (!products.has(product)) throw new Error(`No such product: '${product}'`);
      s.items.push({
        id: `si_${++n}`,
        quantity: Number(p('[quantity]') ?? '1'),
        price: {
          id: `price_${n}`,
          currency: p('[price_data][currency]') ?? '',
          unit_amount: Number(p('[price_data][unit_amount]')),
          product: { id: product, name: products.get(product) ?? '' },
        },
      });
    }
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const body = new URLSearchParams(raw);
      const key = String(req.headers['idempotency-key'] ?? '');
      seen.push({
        method: req.method ?? '',
        path: url.pathname,
        auth: String(req.headers.authorization ?? ''),
        idempotencyKey: key,
        body,
      });
      res.setHeader('content-type', 'application/json');
      const subPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
      if (subPath) {
        const id = decodeURIComponent(subPath[1]!);
        const s = subs.get(id);
        if (req.method === 'DELETE') {
          if (refuseCancel.has(id)) return error(res, 400, 'The subscription is locked.');
          cancelled.push(id);
          if (s) s.status = 'canceled';
          res.end(JSON.stringify(s ? subJson(s, false) : { id, object: 'subscription', status: 'canceled' }));
          return;
        }
        if (!s) return error(res, 404, `No such subscription: '${id}'`, 'resource_missing');
        if (req.method === 'GET') {
          const expand = url.searchParams.getAll('expand[]').concat(url.searchParams.getAll('expand[0]'));
          res.end(JSON.stringify(subJson(s, expand.includes('items.data.price.product'))));
          return;
        }
        if (req.method === 'POST') {
          if (refuseUpdate.has(id)) return error(res, 400, 'This subscription cannot be changed right now.');
          const cached = key ? byKey.get(key) : undefined;
          if (cached) return void res.end(JSON.stringify(cached));
          try {
            update(s, body);
          } catch (err) {
            return error(res, 400, (err as Error).message);
          }
          const out = subJson(s, false);
          if (key) byKey.set(key, out);
          res.end(JSON.stringify(out));
          return;
        }
      }
      if (req.method !== 'POST' || url.pathname !== '/v1/checkout/sessions')
        return error(res, 404, 'Unrecognized request URL');
      // Stripe's refusal of an account that may not charge: what a misconfigured Stripe account answers.
      if (body.get('line_items[0][quantity]') === '13')
        return error(res, 400, 'Your account cannot currently make live charges.');
      const session = byKey.get(key) ?? {
        id: `cs_test_${++n}`,
        object: 'checkout.session',
        mode: body.get('mode'),
        status: 'open',
        payment_status: 'unpaid',
        client_reference_id: body.get('client_reference_id'),
        metadata: { ref: body.get('metadata[ref]') },
        customer: null,
        subscription: null,
        url: `https://checkout.stripe.test/c/pay/cs_test_${n}`,
      };
      const id = (session as { id: string }).id;
      if (!sessions.has(id)) sessions.set(id, { lines: body, ref: body.get('client_reference_id') ?? '' });
      if (key) byKey.set(key, session);
      res.end(JSON.stringify(session));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    cancelled,
    refuseCancel,
    refuseUpdate,
    subscription: (id: string) => subs.get(id),
    /** The Checkout session of a payment ref. */
    sessionOf: (ref: string) => [...sessions.entries()].find(([, s]) => s.ref === ref)?.[0],
    /**
     * Pays a Checkout session as Stripe does: a customer and a subscription with the session's lines (the
     * seat line, and the tax line when there is one), and the `checkout.session.completed` event.
     */
    complete(sessionId: string): { event: string; subscription: string; customer: string } {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      const subId = `sub_${++n}`;
      const customer = `cus_${n}`;
      const items: Item[] = [];
      for (let i = 0; s.lines.has(`line_items[${i}][quantity]`); i++) {
        const p = (k: string) => s.lines.get(`line_items[${i}]${k}`) ?? '';
        products.set(`prod_${n + 1}`, p('[price_data][product_data][name]'));
        items.push({
          id: `si_${++n}`,
          quantity: Number(p('[quantity]')),
          price: {
            id: `price_${n}`,
            currency: p('[price_data][currency]'),
            unit_amount: Number(p('[price_data][unit_amount]')),
            product: { id: `prod_${n}`, name: p('[price_data][product_data][name]') },
          },
        });
      }
      subs.set(subId, {
        id: subId,
        customer,
        status: 'active',
        cancel_at_period_end: false,
        current_period_end: now() + 30 * 86400,
        items,
      });
      const payload = event('checkout.session.completed', {
        id: sessionId,
        object: 'checkout.session',
        mode: 'subscription',
        client_reference_id: s.ref,
        payment_status: 'paid',
        status: 'complete',
        customer,
        subscription: subId,
      });
      return { event: payload, subscription: subId, customer };
    },
    /** `customer.subscription.updated` / `.deleted` for a subscription as it stands. */
    subscriptionEvent(id: string, type: 'updated' | 'deleted') {
      const s = subs.get(id);
      if (!s) throw new Error(`no subscription ${id}`);
      if (type === 'deleted') s.status = 'canceled';
      return event(`customer.subscription.${type}`, subJson(s, false));
    },
    /** `charge.refunded` of a charge of `amount` with `refunded` refunded so far (minor units). */
    refundEvent(c: { charge: string; customer: string; amount: number; refunded: number; currency: string }) {
      return event('charge.refunded', {
        id: c.charge,
        object: 'charge',
        amount: c.amount,
        amount_captured: c.amount,
        amount_refunded: c.refunded,
        currency: c.currency,
        customer: c.customer,
        paid: true,
        refunded: c.refunded >= c.amount,
        status: 'succeeded',
      });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
export type StripeStandIn = Awaited<ReturnType<typeof stripeStandIn>>;
