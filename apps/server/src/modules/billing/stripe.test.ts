import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { signStripe, stripeStandIn } from '../../testing/stripeStandIn.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const SECRET_KEY = 'sk_test_parley_standin';
const WEBHOOK_SECRET = 'whsec_parley_test_secret';
const MY_IP = '60.48.0.1';

const signed = (payload: string, secret = WEBHOOK_SECRET) => signStripe(payload, secret);

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

  const audits = async (id: number) =>
    (
      await db()
        .selectFrom('audit_log')
        .select(['action', 'detail'])
        .where('account_id', '=', id)
        .where('action', 'like', 'payment.%')
        .orderBy('id')
        .execute()
    ).map((a) => ({ action: a.action, ...JSON.parse(a.detail) }) as { action: string } & Record<string, unknown>);
  const history = async (token: string) =>
    (await call('GET', '/api/payment/history', { token })).body.data as {
      status: string;
      payment_desc: string;
      total: string;
      provider: string;
    }[];
  const invoiceEvent = (type: string, eventId: string, invoiceId: string, sub: string) =>
    JSON.stringify({
      id: eventId,
      object: 'event',
      type,
      data: {
        object: {
          id: invoiceId,
          object: 'invoice',
          billing_reason: 'subscription_cycle',
          parent: { type: 'subscription_details', subscription_details: { subscription: sub } },
        },
      },
    });

  it('PLAN-13 PLAN-15 renewals come from the webhooks: a failed one ends the subscription (expired) once per invoice, in the history and the audit log; a paid one runs it again; a late failure changes nothing', async () => {
    const a = await signUpVia(call);
    const c = await startPayment(a.token, 3, '1');
    const payload = completed(c.payment_ref, 'sub_renew');
    expect((await deliver(payload, signed(payload))).status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body).toMatchObject({ plan: 3, expired: null });
    const failed = invoiceEvent('invoice.payment_failed', 'evt_invoice_failed', 'in_1', 'sub_renew');
    // Delivered twice, and Stripe's next retry of the same invoice failing again: one row, one audit entry.
    const retried = invoiceEvent('invoice.payment_failed', 'evt_invoice_failed_2', 'in_1', 'sub_renew');
    for (const body of [failed, failed, retried]) expect((await deliver(body, signed(body))).status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body).toMatchObject({
      plan: 3,
      expired: 'subscription',
    });
    expect((await history(a.token)).map((p) => [p.status, p.payment_desc, p.total])).toEqual([
      ['FAILED', 'The renewal payment failed.', '145.80'],
      ['SUCCESS', 'Paid.', '145.80'],
    ]);
    // A paid renewal runs it again; redelivered, it changes nothing more.
    const paid = invoiceEvent('invoice.paid', 'evt_paid', 'in_1', 'sub_renew');
    expect((await deliver(paid, signed(paid))).status).toBe(200);
    const ends = (await accountOf(a.accountId)).subscription_ends_at;
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.expired).toBeNull();
    expect((await deliver(paid, signed(paid))).status).toBe(200);
    // A failure of that invoice arriving late (after it was paid) is ignored.
    expect((await deliver(retried, signed(retried))).status).toBe(200);
    expect((await accountOf(a.accountId)).subscription_ends_at).toBe(ends);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.expired).toBeNull();
    expect((await history(a.token)).map((p) => p.status)).toEqual(['SUCCESS', 'FAILED', 'SUCCESS']);
    expect(
      (await audits(a.accountId)).map((x) => [x.action, x.renewal ?? false, x.invoice ?? null, x.total ?? null]),
    ).toEqual([
      ['payment.created', false, null, '145.80'],
      ['payment.succeeded', false, null, '145.80'],
      ['payment.failed', true, 'in_1', '145.80'],
      ['payment.succeeded', true, 'in_1', '145.80'],
    ]);
    // A renewal of a subscription nobody here has is acknowledged and changes nothing.
    const stranger = invoiceEvent('invoice.payment_failed', 'evt_x', 'in_x', 'sub_unknown');
    expect((await deliver(stranger, signed(stranger))).status).toBe(200);
    expect(await history(a.token)).toHaveLength(3);
  });

  it('PAY-22 PAY-28 a provider that refuses to start: 502 with its words, the payment FAILED and audited, the plan unchanged', async () => {
    const a = await signUpVia(call);
    const r = await call('POST', '/api/payment/create', {
      token: a.token,
      body: { plan: 2, quantity: '13' },
      headers: { 'x-forwarded-for': MY_IP },
    });
    expect(r.status).toBe(502);
    expect(r.body.description).toBe('Your account cannot currently make live charges.');
    expect((await history(a.token)).map((p) => [p.status, p.payment_desc])).toEqual([
      ['FAILED', 'Your account cannot currently make live charges.'],
    ]);
    expect((await audits(a.accountId)).map((x) => [x.action, x.desc ?? null])).toEqual([
      ['payment.created', null],
      ['payment.failed', 'Your account cannot currently make live charges.'],
    ]);
    expect(await accountOf(a.accountId)).toMatchObject({ plan: 0, account_type: 0 });
  });

  it('PAY-22 an expired Checkout fails its payment (audited); a completed delivered after it, a replay of the ref, changes nothing', async () => {
    const a = await signUpVia(call);
    const c = await startPayment(a.token, 2, '2');
    const expired = JSON.stringify({
      id: `evt_exp_${c.payment_ref}`,
      object: 'event',
      type: 'checkout.session.expired',
      data: {
        object: { id: 'cs_x', object: 'checkout.session', client_reference_id: c.payment_ref, status: 'expired' },
      },
    });
    expect((await deliver(expired, signed(expired))).status).toBe(200);
    expect((await call('GET', `/api/payment/status?ref=${c.payment_ref}`, { token: a.token })).body).toEqual({
      result: 'success',
      status: 'FAILED',
      payment_desc: 'The payment page expired.',
    });
    const late = completed(c.payment_ref, 'sub_late');
    expect((await deliver(late, signed(late))).status).toBe(200);
    expect(await accountOf(a.accountId)).toMatchObject({ plan: 0, seats: 0, account_type: 0 });
    expect((await audits(a.accountId)).map((x) => x.action)).toEqual(['payment.created', 'payment.failed']);
  });

  it('PAY-25 bad input never reaches Stripe: "1e3", "-1", "0", "", 10^9, a forged plan: 400, no Checkout session, nothing written', async () => {
    const a = await signUpVia(call);
    const sessions = standIn.seen.length;
    for (const [plan, quantity] of [
      [2, '1e3'],
      [2, '-1'],
      [2, '0'],
      [2, ''],
      [2, 10 ** 9],
      [7, '3'],
      [4, '3'],
    ] as const) {
      const r = await call('POST', '/api/payment/create', { token: a.token, body: { plan, quantity } });
      expect(r.status, `${plan} ${quantity}`).toBe(400);
    }
    expect(standIn.seen.length).toBe(sessions);
    expect(await history(a.token)).toEqual([]);
    expect(await audits(a.accountId)).toEqual([]);
  });

  it('PAY a new subscription paid after an expired one (Pay Now) cancels the older one at Stripe, once; a refused cancel is audited and the delivery fails, so Stripe sends it again', async () => {
    const a = await signUpVia(call);
    const first = await startPayment(a.token, 2, '3');
    const p1 = completed(first.payment_ref, 'sub_old');
    expect((await deliver(p1, signed(p1))).status).toBe(200);
    expect(standIn.cancelled).not.toContain('sub_old');
    const lapsed = invoiceEvent('invoice.payment_failed', 'evt_lapsed', 'in_old', 'sub_old');
    expect((await deliver(lapsed, signed(lapsed))).status).toBe(200);
    // Pay Now: the account's own plan, a new Checkout session.
    const again = await call('POST', '/api/payment/create', {
      token: a.token,
      body: { quantity: '3' },
      headers: { 'x-forwarded-for': MY_IP },
    });
    expect(again.status, again.text).toBe(200);
    standIn.refuseCancel.add('sub_old');
    const p2 = completed(again.body.payment_ref, 'sub_new');
    const refused = await deliver(p2, signed(p2));
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as { description: string }).description).toBe('The subscription is locked.');
    expect((await audits(a.accountId)).at(-1)).toMatchObject({
      action: 'payment.cancel_failed',
      subscription: 'sub_old',
      replacedBy: 'sub_new',
    });
    // The payment itself is settled: the account runs again while the old subscription is still to cancel.
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.expired).toBeNull();
    standIn.refuseCancel.delete('sub_old');
    expect((await deliver(p2, signed(p2))).status).toBe(200);
    expect(standIn.cancelled.filter((x) => x === 'sub_old')).toHaveLength(1);
    expect((await deliver(p2, signed(p2))).status).toBe(200);
    expect(standIn.cancelled.filter((x) => x === 'sub_old')).toHaveLength(1);
    expect((await audits(a.accountId)).filter((x) => x.action === 'payment.subscription_cancelled')).toEqual([
      { action: 'payment.subscription_cancelled', subscription: 'sub_old', replacedBy: 'sub_new' },
    ]);
    expect(await succeeded(a.accountId)).toBe(2);
    // A late renewal event of the cancelled subscription changes nothing.
    const late = invoiceEvent('invoice.payment_failed', 'evt_late', 'in_old_2', 'sub_old');
    expect((await deliver(late, signed(late))).status).toBe(200);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.expired).toBeNull();
  });
});
