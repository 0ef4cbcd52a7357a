import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const SECRET_KEY = 'sk_test_parley_standin';
const WEBHOOK_SECRET = 'whsec_parley_test_secret';
const MY_IP = '60.48.0.1';

interface Seen {
  path: string;
  auth: string;
  idempotencyKey: string;
  body: URLSearchParams;
}

/**
 * A loopback stand-in for Stripe's API: it answers `POST /v1/checkout/sessions` with a Checkout Session in
 * Stripe's documented shape, and, as Stripe does, the same session again for a repeated idempotency key.
 */
async function stripeStandIn() {
  const seen: Seen[] = [];
  const byKey = new Map<string, unknown>();
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const body = new URLSearchParams(raw);
      const key = String(req.headers['idempotency-key'] ?? '');
      seen.push({ path: req.url ?? '', auth: String(req.headers.authorization ?? ''), idempotencyKey: key, body });
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions') {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }));
        return;
      }
      const session = byKey.get(key) ?? {
        id: `cs_test_${++n}`,
        object: 'checkout.session',
        mode: body.get('mode'),
        status: 'open',
        payment_status: 'unpaid',
        client_reference_id: body.get('client_reference_id'),
        metadata: { ref: body.get('metadata[ref]') },
        subscription: null,
        url: `https://checkout.stripe.test/c/pay/cs_test_${n}`,
      };
      if (key) byKey.set(key, session);
      res.end(JSON.stringify(session));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const stripeLib = new Stripe('sk_test_unused');
const signed = (payload: string, secret = WEBHOOK_SECRET) =>
  stripeLib.webhooks.generateTestHeaderString({ payload, secret });

describe.each(dialects)('PAY Stripe adapter against a loopback stand-in (%s)', (dialect) => {
  let s: Server;
  let standIn: Awaited<ReturnType<typeof stripeStandIn>>;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    standIn = await stripeStandIn();
    s = await startTestServer(dialect, {
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: standIn.url,
      PUBLIC_URL: 'https://parley.example.com',
      TRUST_PROXY: 'true',
    });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
    await standIn?.close();
  });

  const deliver = (payload: string, signature: string) =>
    fetch(`${s.url}/api/payment/webhook/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
  const completed = (ref: string, sub: string) =>
    JSON.stringify({
      id: `evt_${ref}`,
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          id: `cs_${ref}`,
          object: 'checkout.session',
          client_reference_id: ref,
          payment_status: 'paid',
          status: 'complete',
          subscription: sub,
        },
      },
    });
  const accountOf = (id: number) =>
    db()
      .selectFrom('accounts')
      .select(['plan', 'seats', 'account_type', 'subscription_ends_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const succeeded = async (id: number) =>
    (
      await db()
        .selectFrom('audit_log')
        .select('id')
        .where('account_id', '=', id)
        .where('action', '=', 'payment.succeeded')
        .execute()
    ).length;

  async function startPayment(token: string, plan: number, quantity: string) {
    const r = await call('POST', '/api/payment/create', {
      token,
      body: { plan, quantity },
      headers: { 'x-forwarded-for': MY_IP },
    });
    expect(r.status, r.text).toBe(200);
    return r.body as { payment_ref: string; url: string };
  }

  it('PAY-25 PAY-31 a payment is a Checkout session: seats, tax line, idempotency key, the secret key', async () => {
    const a = await signUpVia(call);
    const c = await startPayment(a.token, 2, '3');
    const req = standIn.seen.find((x) => x.body.get('client_reference_id') === c.payment_ref)!;
    expect(req.path).toBe('/v1/checkout/sessions');
    expect(req.auth).toBe(`Bearer ${SECRET_KEY}`);
    expect(req.idempotencyKey).toBe(`parley-checkout-${c.payment_ref}`);
    const b = req.body;
    expect(b.get('mode')).toBe('subscription');
    expect(b.get('line_items[0][quantity]')).toBe('3');
    expect(b.get('line_items[0][price_data][currency]')).toBe('myr');
    expect(b.get('line_items[0][price_data][unit_amount]')).toBe('9000');
    expect(b.get('line_items[0][price_data][recurring][interval]')).toBe('month');
    // 3 x 90.00 x 8% = 21.60: Stripe charges the total the dialog showed (291.60).
    expect(b.get('line_items[1][price_data][unit_amount]')).toBe('2160');
    expect(b.get('line_items[1][price_data][product_data][name]')).toBe('Sales and Service Tax');
    expect(b.get('success_url')).toBe('https://parley.example.com/api/payment/done');
    expect(c.url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_\d+$/);
    const row = await db()
      .selectFrom('payments')
      .selectAll()
      .where('ref', '=', c.payment_ref)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ provider: 'stripe', total: '291.60', status: 'PENDING' });
    expect(row.provider_ref).toMatch(/^cs_test_/);
  });

  it('PAY-22 a signed checkout.session.completed delivered 3 times activates the plan once', async () => {
    const a = await signUpVia(call);
    const c = await startPayment(a.token, 2, '3');
    const payload = completed(c.payment_ref, 'sub_three');
    for (let i = 0; i < 3; i++) {
      const r = await deliver(payload, signed(payload));
      expect(r.status).toBe(200);
    }
    expect(await accountOf(a.accountId)).toMatchObject({ plan: 2, seats: 3, account_type: 1 });
    expect(await succeeded(a.accountId)).toBe(1);
    expect((await call('GET', `/api/payment/status?ref=${c.payment_ref}`, { token: a.token })).body).toMatchObject({
      status: 'SUCCESS',
    });
  });

  it('PAY-22 a bad signature is refused and changes nothing', async () => {
    const a = await signUpVia(call);
    const c = await startPayment(a.token, 1, '2');
    const payload = completed(c.payment_ref, 'sub_bad');
    const tries = [
      signed(payload, 'whsec_someone_else'),
      signed(completed(c.payment_ref, 'sub_other')), // signed for another body
      'nonsense',
      '',
    ];
    for (const sig of tries) {
      const r = await deliver(payload, sig);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { description: string }).description).toBe('The signature is not valid.');
    }
    expect(await accountOf(a.accountId)).toMatchObject({ plan: 0, seats: 0, account_type: 0 });
    expect(await succeeded(a.accountId)).toBe(0);
    const row = await db()
      .selectFrom('payments')
      .selectAll()
      .where('ref', '=', c.payment_ref)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'PENDING', provider_subscription: '' });
  });

  it('PLAN-13 PLAN-15 a failed renewal ends the subscription: the auth check reports it expired', async () => {
    const a = await signUpVia(call);
    const c = await startPayment(a.token, 3, '1');
    const payload = completed(c.payment_ref, 'sub_renew');
    expect((await deliver(payload, signed(payload))).status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body).toMatchObject({ plan: 3, expired: null });
    const failed = JSON.stringify({
      id: 'evt_invoice_failed',
      object: 'event',
      type: 'invoice.payment_failed',
      data: {
        object: {
          id: 'in_1',
          object: 'invoice',
          billing_reason: 'subscription_cycle',
          parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_renew' } },
        },
      },
    });
    expect((await deliver(failed, signed(failed))).status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body).toMatchObject({
      plan: 3,
      expired: 'subscription',
    });
    // A paid renewal runs it again.
    const paid = failed.replace('invoice.payment_failed', 'invoice.paid').replace('evt_invoice_failed', 'evt_paid');
    expect((await deliver(paid, signed(paid))).status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.expired).toBeNull();
  });
});
