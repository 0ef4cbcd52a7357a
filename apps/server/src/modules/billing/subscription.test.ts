import { SUBSCRIPTION_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { signStripe, stripeStandIn } from '../../testing/stripeStandIn.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const WEBHOOK_SECRET = 'whsec_parley_subscription_test';
const MY_IP = '60.48.0.1';

describe.each(dialects)('PAY Stripe subscription changes: users, cancellation, refunds (%s)', (dialect) => {
  let s: Server;
  let standIn: Awaited<ReturnType<typeof stripeStandIn>>;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    standIn = await stripeStandIn();
    s = await startTestServer(dialect, {
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_parley_subscriptions',
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

  const deliver = async (payload: string) => {
    const r = await fetch(`${s.url}/api/payment/webhook/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signStripe(payload, WEBHOOK_SECRET) },
      body: payload,
    });
    expect(r.status, await r.clone().text()).toBe(200);
  };
  /** A new admin with a paid Basic subscription of 3 users in Malaysia (MYR 90.00, 8% tax: 291.60 a month). */
  async function subscribed() {
    const a = await signUpVia(call);
    const c = await call('POST', '/api/payment/create', {
      token: a.token,
      body: { plan: 2, quantity: '3' },
      headers: { 'x-forwarded-for': MY_IP },
    });
    expect(c.status, c.text).toBe(200);
    const done = standIn.complete(standIn.sessionOf(c.body.payment_ref)!);
    await deliver(done.event);
    return { ...a, ...done, ref: c.body.payment_ref as string };
  }
  const post = (token: string, path: string, body: unknown = {}) =>
    call('POST', path, { token, body, headers: { 'x-forwarded-for': MY_IP } });
  const info = async (token: string) => (await call('GET', '/api/payment/subscription', { token })).body.data;
  const history = async (token: string) =>
    (await call('GET', '/api/payment/history', { token })).body.data as {
      status: string;
      quantity: number;
      total: string;
      currency: string;
      payment_desc: string;
    }[];
  const audits = async (id: number, prefix = 'payment.') =>
    (
      await db()
        .selectFrom('audit_log')
        .select(['action', 'detail'])
        .where('account_id', '=', id)
        .where('action', 'like', `${prefix}%`)
        .orderBy('id')
        .execute()
    ).map((x) => ({ action: x.action, ...JSON.parse(x.detail) }) as { action: string } & Record<string, unknown>);
  const account = (id: number) =>
    db()
      .selectFrom('accounts')
      .select(['plan', 'seats', 'subscription_ends_at', 'subscription_cancel_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const updatesOf = (sub: string) =>
    standIn.seen.filter((x) => x.method === 'POST' && x.path === `/v1/subscriptions/${sub}`);

  it('PAY-20 PAY-31 adding users changes the Stripe subscription quantity with proration; the tax line follows; history, audit, and the next renewal charge the new seats', async () => {
    const a = await subscribed();
    expect(await info(a.token)).toMatchObject({ plan: 2, seats: 3, currency: 'MYR', total: '291.60', cancel_at: null });
    const r = await post(a.token, '/api/payment/seats', { quantity: '5' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ seats: 5, total: '486.00' });
    // What Stripe was asked: the seat line to 5, the old tax line replaced by 5 x 90.00 x 8% = 36.00, prorated.
    const [u] = updatesOf(a.subscription);
    const sub = standIn.subscription(a.subscription)!;
    const seatItem = sub.items.find((i) => i.price.unit_amount === 9000)!;
    expect(u!.body.get('items[0][id]')).toBe(seatItem.id);
    expect(u!.body.get('items[0][quantity]')).toBe('5');
    expect(u!.body.get('items[1][deleted]')).toBe('true');
    expect(u!.body.get('items[2][price_data][unit_amount]')).toBe('3600');
    expect(u!.body.get('items[2][price_data][currency]')).toBe('myr');
    expect(u!.body.get('proration_behavior')).toBe('create_prorations');
    expect(u!.idempotencyKey).toMatch(/^parley-seats-/);
    expect(sub.items.map((i) => [i.quantity, i.price.unit_amount, i.price.product.name])).toEqual([
      [5, 9000, 'Parley Basic (per user)'],
      [1, 3600, 'Sales and Service Tax'],
    ]);
    expect(await account(a.accountId)).toMatchObject({ plan: 2, seats: 5 });
    expect((await history(a.token)).map((p) => [p.status, p.quantity, p.total, p.payment_desc])).toEqual([
      ['CHANGED', 5, '486.00', SUBSCRIPTION_STRINGS.seatsChanged(3, 5)],
      ['SUCCESS', 3, '291.60', 'Paid.'],
    ]);
    expect((await audits(a.accountId)).at(-1)).toMatchObject({
      action: 'payment.seats_changed',
      subscription: a.subscription,
      from: 3,
      to: 5,
      total: '486.00',
    });
    // The next renewal is of 5 users.
    const renewal = JSON.stringify({
      id: `evt_renew_${uniq()}`,
      object: 'event',
      type: 'invoice.paid',
      data: {
        object: {
          id: `in_${uniq()}`,
          object: 'invoice',
          billing_reason: 'subscription_cycle',
          parent: { type: 'subscription_details', subscription_details: { subscription: a.subscription } },
        },
      },
    });
    await deliver(renewal);
    expect((await history(a.token))[0]).toMatchObject({ status: 'SUCCESS', quantity: 5, total: '486.00' });
  });

  it('PAY-25 bad seat changes: clear 4xx, Stripe not asked, nothing changed', async () => {
    const a = await subscribed();
    await addUserVia(call, a.token, { username: `u1-${uniq()}`, type: 'agent' });
    await addUserVia(call, a.token, { username: `u2-${uniq()}`, type: 'agent' });
    const before = { acc: await account(a.accountId), hist: await history(a.token) };
    for (const quantity of ['1e3', '-1', '0', '', '1.5', 10 ** 9, 'abc']) {
      const r = await post(a.token, '/api/payment/seats', { quantity });
      expect(r.status, String(quantity)).toBe(400);
    }
    expect((await post(a.token, '/api/payment/seats', {})).status).toBe(400);
    const same = await post(a.token, '/api/payment/seats', { quantity: '3' });
    expect([same.status, same.body.description]).toEqual([409, SUBSCRIPTION_STRINGS.sameSeats(3)]);
    // The admin and two agents are active: 2 users is too few.
    const few = await post(a.token, '/api/payment/seats', { quantity: '2' });
    expect([few.status, few.body.description]).toEqual([409, SUBSCRIPTION_STRINGS.tooFewSeats(3)]);
    expect(updatesOf(a.subscription)).toEqual([]);
    // Stripe refuses: 502 with its words, nothing changed here.
    standIn.refuseUpdate.add(a.subscription);
    const refused = await post(a.token, '/api/payment/seats', { quantity: '4' });
    expect([refused.status, refused.body.description]).toEqual([502, 'This subscription cannot be changed right now.']);
    standIn.refuseUpdate.delete(a.subscription);
    expect({ acc: await account(a.accountId), hist: await history(a.token) }).toEqual(before);
    // An agent may not; a trial has nothing to change.
    const agent = await addUserVia(call, a.token, { username: `u3-${uniq()}`, type: 'agent' });
    expect((await post(agent.token, '/api/payment/seats', { quantity: '6' })).status).toBe(403);
    const trial = await signUpVia(call);
    for (const path of ['/api/payment/seats', '/api/payment/cancel', '/api/payment/resume']) {
      const r = await post(trial.token, path, { quantity: '4' });
      expect([r.status, r.body.description], path).toEqual([409, SUBSCRIPTION_STRINGS.none]);
    }
    expect(await info(trial.token)).toBeNull();
  });

  it('PLAN-15 the admin cancels at the period end (shown, reversible until then); Stripe ending it shows the expired notice, once', async () => {
    const a = await subscribed();
    const ends = Number((await account(a.accountId)).subscription_ends_at);
    const c = await post(a.token, '/api/payment/cancel');
    expect(c.status, c.text).toBe(200);
    const sub = standIn.subscription(a.subscription)!;
    expect(sub.cancel_at_period_end).toBe(true);
    // The end Stripe names (its period end) is what is shown.
    expect(c.body.data.cancel_at).toBe(sub.current_period_end * 1000);
    expect((await post(a.token, '/api/payment/cancel')).body.description).toBe(SUBSCRIPTION_STRINGS.alreadyCancelled);
    const seats = await post(a.token, '/api/payment/seats', { quantity: '4' });
    expect([seats.status, seats.body.description]).toEqual([409, SUBSCRIPTION_STRINGS.cancelled]);
    // Still running until then.
    expect((await call('POST', '/api/auth/check', { token: a.token })).body).toMatchObject({ plan: 2, expired: null });
    // Kept again.
    const k = await post(a.token, '/api/payment/resume');
    expect(k.status, k.text).toBe(200);
    expect(k.body.data.cancel_at).toBeNull();
    expect(sub.cancel_at_period_end).toBe(false);
    expect((await post(a.token, '/api/payment/resume')).body.description).toBe(SUBSCRIPTION_STRINGS.notCancelled);
    // Cancelled in Stripe's dashboard: the update event says so, once.
    sub.cancel_at_period_end = true;
    const updated = standIn.subscriptionEvent(a.subscription, 'updated');
    await deliver(updated);
    await deliver(updated);
    expect((await account(a.accountId)).subscription_cancel_at).toBe(sub.current_period_end * 1000);
    // The period ends: Stripe deletes the subscription.
    const deleted = standIn.subscriptionEvent(a.subscription, 'deleted');
    await deliver(deleted);
    await deliver(deleted);
    expect((await call('POST', '/api/auth/check', { token: a.token })).body).toMatchObject({
      expired: 'subscription',
    });
    expect(Number((await account(a.accountId)).subscription_ends_at)).toBeLessThanOrEqual(ends);
    expect(await info(a.token)).toBeNull();
    expect((await audits(a.accountId)).map((x) => [x.action, x.subscription ?? null])).toEqual([
      ['payment.created', null],
      ['payment.succeeded', null],
      ['payment.cancel_scheduled', a.subscription],
      ['payment.cancel_withdrawn', a.subscription],
      ['payment.cancel_scheduled', a.subscription],
      ['payment.subscription_ended', a.subscription],
    ]);
    // Pay Now starts a new one, which renews (no cancellation left over).
    const again = await post(a.token, '/api/payment/create', { quantity: '3' });
    expect(again.status, again.text).toBe(200);
    await deliver(standIn.complete(standIn.sessionOf(again.body.payment_ref)!).event);
    expect(await info(a.token)).toMatchObject({ seats: 3, cancel_at: null });
  });

  it('PAY a charge.refunded webhook adds a payment history row and an audit entry per new amount refunded; redeliveries and strangers change nothing', async () => {
    const a = await subscribed();
    const charge = `ch_${uniq()}`;
    const partial = standIn.refundEvent({
      charge,
      customer: a.customer,
      amount: 29160,
      refunded: 1000,
      currency: 'myr',
    });
    await deliver(partial);
    await deliver(partial);
    const rest = standIn.refundEvent({ charge, customer: a.customer, amount: 29160, refunded: 29160, currency: 'myr' });
    await deliver(rest);
    await deliver(rest);
    expect((await history(a.token)).map((p) => [p.status, p.currency, p.total, p.payment_desc])).toEqual([
      ['REFUNDED', 'MYR', '281.60', 'Refunded.'],
      ['REFUNDED', 'MYR', '10.00', 'Refunded.'],
      ['SUCCESS', 'MYR', '291.60', 'Paid.'],
    ]);
    expect(
      (await audits(a.accountId)).filter((x) => x.action === 'payment.refunded').map((x) => [x.total, x.refundedSoFar]),
    ).toEqual([
      ['10.00', '10.00'],
      ['281.60', '291.60'],
    ]);
    // The plan stays: ending it is a cancellation of its own.
    expect(await account(a.accountId)).toMatchObject({ plan: 2, seats: 3 });
    // A refund of a customer nobody here has changes nothing.
    await deliver(
      standIn.refundEvent({ charge: 'ch_x', customer: 'cus_nobody', amount: 100, refunded: 100, currency: 'usd' }),
    );
    expect(await history(a.token)).toHaveLength(3);
    // A refund's row is no payment a dialog waits on.
    const row = await db()
      .selectFrom('payments')
      .select('ref')
      .where('account_id', '=', a.accountId)
      .where('status', '=', 'REFUNDED')
      .executeTakeFirstOrThrow();
    expect((await call('GET', `/api/payment/status?ref=${row.ref}`, { token: a.token })).status).toBe(404);
  });
});

describe.each(dialects)('PAY sandbox subscription changes (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  beforeAll(async () => {
    s = await startTestServer(dialect, { PAYMENT_PROVIDER: 'sandbox' });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('PAY a sandbox subscription changes users and is cancelled and kept with no provider: history and audit', async () => {
    const a = await signUpVia(call);
    const c = await call('POST', '/api/payment/create', { token: a.token, body: { plan: 1, quantity: '2' } });
    const paid = await fetch(`${s.url}/api/payment/sandbox/${c.body.payment_ref}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=pay',
    });
    expect(paid.status).toBe(200);
    const r = await call('POST', '/api/payment/seats', { token: a.token, body: { quantity: 4 } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ plan: 1, seats: 4, total: '40.00', provider: 'sandbox' });
    const ends = r.body.data.ends_at as number;
    const x = await call('POST', '/api/payment/cancel', { token: a.token, body: {} });
    expect(x.body.data.cancel_at).toBe(ends);
    const k = await call('POST', '/api/payment/resume', { token: a.token, body: {} });
    expect(k.body.data.cancel_at).toBeNull();
    const h = (await call('GET', '/api/payment/history', { token: a.token })).body.data;
    expect(h.map((p: { status: string }) => p.status)).toEqual(['CHANGED', 'SUCCESS']);
  });
});
