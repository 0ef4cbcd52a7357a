import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PAY_ERRORS, PAY_STRINGS, paymentTotal, taxPercent } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/db.js';
import { addUserVia, apiClient, type Call, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer, tempDir } from '../../testing/support.js';
import { createPayment, PERIOD_MS, priceRowProblem, SANDBOX_DECLINED, SANDBOX_PAID, setPrice } from './index.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
/** An address GeoLite2 places in Malaysia, which has price rows of its own. */
const MY_IP = '60.48.0.1';
/** An address in Great Britain, which has none: the default rows apply. */
const GB_IP = '81.2.69.142';

describe('PAY-20 total = quantity x price x (1 + tax), 2 decimals, exact', () => {
  it.each([
    // quantity, price, tax, total
    [1, '10.00', '0', '10.00'],
    [3, '20.00', '0', '60.00'],
    [3, '0.10', '0', '0.30'], // 3 x 0.1 is 0.30000000000000004 in floats
    [1, '0.10', '0.2', '0.12'],
    [1, '0.30', '0', '0.30'],
    [3, '45.00', '0.08', '145.80'],
    [7, '19.99', '0.06', '148.33'], // 139.93 x 1.06 = 148.3258
    [1, '0.01', '0.5', '0.02'], // 0.015 rounds half up
    [1, '1.15', '0.1', '1.27'], // 1.265 rounds half up (floats give 1.26)
    [10000, '999999999.99', '0.9999', '19998999999800.01'],
  ])('%i x %s x (1 + %s) = %s', (q, price, tax, total) => {
    expect(paymentTotal(q, price, tax)).toBe(total);
  });
  it('PAY-20 0.1 + 0.2 cases: where floats drift, the decimal total does not', () => {
    expect(3 * 0.1).not.toBe(0.3);
    expect(paymentTotal(3, '0.10', '0')).toBe('0.30');
    expect((1.15 * 1.1).toFixed(2)).toBe('1.26'); // floats round 1.265 down
    expect(paymentTotal(1, '1.15', '0.1')).toBe('1.27');
    expect((1.005).toFixed(2)).toBe('1.00');
    expect(paymentTotal(1, '1.005'.slice(0, 4), '0')).toBe('1.00');
    expect(paymentTotal(201, '0.10', '0.005')).toBe('20.20'); // 20.1 x 1.005 = 20.2005
  });
  it('PAY-04 tax is shown as a percent', () => {
    expect(taxPercent('0.06')).toBe('6');
    expect(taxPercent('0.065')).toBe('6.5');
    expect(taxPercent('0')).toBe('0');
    expect(taxPercent('0.0825')).toBe('8.25');
  });
  it('PAY-21 a price row is checked before it is stored', () => {
    const ok = { country: 'SG', plan: 2, currency: 'SGD', price: '25.50', tax: '0.09' };
    expect(priceRowProblem(ok)).toBeNull();
    expect(priceRowProblem({ ...ok, price: '1e3' })).toMatch(/price/);
    expect(priceRowProblem({ ...ok, price: '-1' })).toMatch(/price/);
    expect(priceRowProblem({ ...ok, price: '0.105' })).toMatch(/price/);
    expect(priceRowProblem({ ...ok, tax: '6' })).toMatch(/tax/);
    expect(priceRowProblem({ ...ok, plan: 4 })).toMatch(/plan/);
    expect(priceRowProblem({ ...ok, country: 'Singapore' })).toMatch(/country/);
    expect(priceRowProblem({ ...ok, currency: 'dollars' })).toMatch(/currency/);
  });
});

describe.each(dialects)('PAY pricing and payments (%s)', (dialect) => {
  let s: Server;
  let proxied: Server;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    [s, proxied] = await Promise.all([
      startTestServer(dialect, { PAYMENT_PROVIDER: 'sandbox' }),
      startTestServer(dialect, { TRUST_PROXY: 'true' }),
    ]);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await Promise.all([s?.stop(), proxied?.stop()]);
  });

  const counts = async (accountId: number) => ({
    payments: Number(
      (
        await db()
          .selectFrom('payments')
          .select((e) => e.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    ),
    audit: Number(
      (
        await db()
          .selectFrom('audit_log')
          .select((e) => e.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .where('action', 'like', 'payment.%')
          .executeTakeFirstOrThrow()
      ).n,
    ),
    account: await db()
      .selectFrom('accounts')
      .select(['plan', 'account_type', 'seats', 'subscription_ends_at'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow(),
  });

  /** The sandbox page's button, posted as the browser posts its form. */
  const sandboxPost = (ref: string, token: string, outcome: string) =>
    fetch(`${s.url}/api/payment/sandbox/${ref}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ outcome }).toString(),
    });

  it('PAY-23 PAY-24 prices of the caller country from its address behind TRUST_PROXY; the default row otherwise', async () => {
    const p = apiClient(proxied.url);
    const my = await p('GET', '/api/pricing', { headers: { 'x-forwarded-for': `${MY_IP}, 10.0.0.1` } });
    expect(my.status).toBe(200);
    expect(my.body.country).toBe('MY');
    expect(my.body.data).toContainEqual({ plan: 2, currency: 'MYR', price: '90.00', tax: '0.08' });
    const gb = await p('GET', '/api/pricing', { headers: { 'x-forwarded-for': GB_IP } });
    expect(gb.body.country).toBe('*');
    expect(gb.body.data.map((r: { plan: number }) => r.plan)).toEqual([1, 2, 3]);
    // Loopback has no country: the default rows.
    expect((await p('GET', '/api/pricing')).body.country).toBe('*');
    // Without TRUST_PROXY the header is the client's own word and is not believed.
    const ignored = await call('GET', '/api/pricing', { headers: { 'x-forwarded-for': MY_IP } });
    expect(ignored.body.country).toBe('*');
    // A country may be asked for by code; a bad one is a clear 400.
    expect((await call('GET', '/api/pricing?country=my')).body.country).toBe('MY');
    const bad = await call('GET', '/api/pricing?country=Malaysia');
    expect(bad.status).toBe(400);
    expect(bad.body.description).toBe('country is a two-letter code.');
  });

  it('PAY-21 the operator edits prices with the CLI functions; the next pricing answer has them', async () => {
    await setPrice(db(), { country: 'SG', plan: 2, currency: 'SGD', price: '25.50', tax: '0.09' });
    await setPrice(db(), { country: 'SG', plan: 2, currency: 'SGD', price: '26.00', tax: '0.09' });
    const sg = await call('GET', '/api/pricing?country=SG');
    expect(sg.body).toEqual({
      result: 'success',
      country: 'SG',
      data: [{ plan: 2, currency: 'SGD', price: '26.00', tax: '0.09' }],
    });
    await expect(setPrice(db(), { country: 'SG', plan: 2, currency: 'SGD', price: '1e3', tax: '0' })).rejects.toThrow(
      /price/,
    );
    expect((await call('GET', '/api/pricing?country=SG')).body.data[0].price).toBe('26.00');
  });

  it('PAY-25 PLAN-02 bad input: "1e3", "-1", "0", "", 10^9, a forged plan (Enterprise: contact sales): clear 400, nothing created', async () => {
    const a = await signUpVia(call);
    const before = await counts(a.accountId);
    const tries: [unknown, unknown, string][] = [
      [2, '1e3', PAY_ERRORS.quantity],
      [2, '-1', PAY_ERRORS.quantity],
      [2, '0', PAY_ERRORS.quantity],
      [2, '', PAY_ERRORS.quantity],
      [2, 10 ** 9, PAY_ERRORS.quantity],
      [2, '1000000000', PAY_ERRORS.quantity],
      [2, '1.5', PAY_ERRORS.quantity],
      [2, 2.5, PAY_ERRORS.quantity],
      [2, ' 3', PAY_ERRORS.quantity],
      [7, '3', PAY_ERRORS.plan],
      [0, '3', PAY_ERRORS.plan],
      [99, '3', PAY_ERRORS.plan],
      ['2; drop table payments', '3', PAY_ERRORS.plan],
      [4, '3', PAY_ERRORS.enterprise],
      [undefined, '3', PAY_ERRORS.noPlan],
    ];
    for (const [plan, quantity, text] of tries) {
      const r = await call('POST', '/api/payment/create', { token: a.token, body: { plan, quantity } });
      expect(r.status, `${plan} ${quantity}`).toBe(400);
      expect(r.body.description, `${plan} ${quantity}`).toBe(text);
    }
    const noBody = await call('POST', '/api/payment/create', { token: a.token, body: { plan: 2 } });
    expect(noBody.status).toBe(400);
    const agent = await addUserVia(call, a.token, { username: `pay-agent-${a.accountId}`, type: 'agent' });
    expect(
      (await call('POST', '/api/payment/create', { token: agent.token, body: { plan: 2, quantity: '3' } })).status,
    ).toBe(403);
    expect(await counts(a.accountId)).toEqual(before);
  });

  it("payment history: the account's own payments, newest first, a page at a time; admins only; a bad page is a 400", async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const empty = await call('GET', '/api/payment/history', { token: a.token });
    expect(empty.body).toEqual({ result: 'success', data: [], total: 0 });
    // Two payments of A's: one declined, one left pending; and one of B's.
    const first = await call('POST', '/api/payment/create', { token: a.token, body: { plan: 2, quantity: '3' } });
    expect((await sandboxPost(first.body.payment_ref, a.token, 'decline')).status).toBe(200);
    const second = await call('POST', '/api/payment/create', { token: a.token, body: { plan: 3, quantity: '2' } });
    await call('POST', '/api/payment/create', { token: b.token, body: { plan: 1, quantity: '1' } });
    const h = await call('GET', '/api/payment/history', { token: a.token });
    expect(h.status).toBe(200);
    expect(h.body.total).toBe(2);
    expect(h.body.data.map((p: { ref: string }) => p.ref)).toEqual([second.body.payment_ref, first.body.payment_ref]);
    expect(h.body.data[1]).toMatchObject({
      plan: 2,
      quantity: 3,
      currency: 'USD',
      price: '20.00',
      total: '60.00',
      status: 'FAILED',
      payment_desc: SANDBOX_DECLINED,
      provider: 'sandbox',
      by: a.name,
    });
    expect(h.body.data[1].settled_at).toEqual(expect.any(Number));
    expect(h.body.data[0]).toMatchObject({ plan: 3, quantity: 2, status: 'PENDING', settled_at: null });
    // Past the last page: nothing, the same total.
    expect((await call('GET', '/api/payment/history?page=1', { token: a.token })).body).toEqual({
      result: 'success',
      data: [],
      total: 2,
    });
    for (const page of ['-1', 'x', '1e3', '0.5'])
      expect((await call('GET', `/api/payment/history?page=${page}`, { token: a.token })).status, page).toBe(400);
    const agent = await addUserVia(call, a.token, { username: `hist-agent-${a.accountId}`, type: 'agent' });
    expect((await call('GET', '/api/payment/history', { token: agent.token })).status).toBe(403);
  });

  it('PAY-29 with no provider the answer is "Billing information could not be found." and nothing is created', async () => {
    const a = await signUpVia(call);
    const before = await counts(a.accountId);
    await expect(
      createPayment(
        db(),
        null,
        { accountId: a.accountId, userId: a.userId, ip: '127.0.0.1', actor: a.username },
        { plan: 2, quantity: '3' },
        null,
      ),
    ).rejects.toThrow(PAY_STRINGS.billingMissing);
    expect(await counts(a.accountId)).toEqual(before);
    // The server without a provider answers the same through the API.
    const p = apiClient(proxied.url);
    const b = await signUpVia(p);
    const r = await p('POST', '/api/payment/create', { token: b.token, body: { plan: 2, quantity: '3' } });
    expect(r.status).toBe(400);
    expect(r.body.description).toBe(PAY_STRINGS.billingMissing);
  });

  it('PAY-15 PAY-22 PAY-25 PAY-27 PLAN-01 a sandbox payment succeeds once: plan 2, 3 seats for a month, audited; a replay changes nothing', async () => {
    const a = await signUpVia(call);
    expect((await counts(a.accountId)).account).toMatchObject({ plan: 0, account_type: 0 });
    const c = await call('POST', '/api/payment/create', {
      token: a.token,
      body: { _token: a.token, plan: '2', quantity: '3' },
    });
    expect(c.status).toBe(200);
    const ref = c.body.payment_ref as string;
    expect(c.body.url).toBe(`/api/payment/sandbox/${ref}`);
    const row = await db().selectFrom('payments').selectAll().where('ref', '=', ref).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ plan: 2, quantity: 3, currency: 'USD', price: '20.00', tax: '0', total: '60.00' });
    expect((await call('GET', `/api/payment/status?ref=${ref}`, { token: a.token })).body).toEqual({
      result: 'success',
      status: 'PENDING',
      payment_desc: '',
    });
    const pageRes = await fetch(`${s.url}/api/payment/sandbox/${ref}`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect(pageRes.status).toBe(200);
    const html = await pageRes.text();
    expect(html).toContain('Pay USD 60.00');
    expect(html).toContain('Basic');

    const t0 = Date.now();
    const paid = await sandboxPost(ref, a.token, 'pay');
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain('Payment received');
    const st = await call('GET', `/api/payment/status?_token=${a.token}&ref=${ref}`);
    expect(st.body).toEqual({ result: 'success', status: 'SUCCESS', payment_desc: SANDBOX_PAID });
    const after = await counts(a.accountId);
    expect(after.account).toMatchObject({ plan: 2, account_type: 1, seats: 3 });
    expect(Number(after.account.subscription_ends_at)).toBeGreaterThanOrEqual(t0 + PERIOD_MS);
    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('account_id', '=', a.accountId)
      .where('action', 'like', 'payment.%')
      .orderBy('id')
      .execute();
    expect(audit.map((x) => x.action)).toEqual(['payment.created', 'payment.succeeded']);
    expect(JSON.parse(audit[1]!.detail)).toMatchObject({ ref, plan: 2, quantity: 3, total: '60.00' });
    // The auth check reports the new plan, and Basic's limits apply (PLAN-21).
    expect((await call('POST', '/api/auth/check', { token: a.token })).body.plan).toBe(2);
    expect((await call('GET', '/api/mailboxes', { token: a.token })).body.limit).toBe(10);
    expect((await call('GET', '/api/channels', { token: a.token })).body.allowed).toEqual([
      'whatsapp',
      'messenger',
      'instagram',
      'line',
      'x',
    ]);

    // Replayed: the same outcome, or the other one, changes nothing.
    for (const outcome of ['pay', 'decline']) {
      const again = await sandboxPost(ref, a.token, outcome);
      expect(again.status).toBe(409);
      expect(await again.text()).toContain(PAY_ERRORS.settled);
    }
    expect(await counts(a.accountId)).toEqual(after);
    expect((await call('GET', `/api/payment/status?ref=${ref}`, { token: a.token })).body.status).toBe('SUCCESS');

    // PLAN-05 on the server: a subscribed account may not name a plan; it pays for its own.
    const forged = await call('POST', '/api/payment/create', { token: a.token, body: { plan: 3, quantity: '5' } });
    expect(forged.status).toBe(400);
    expect(forged.body.description).toBe(PAY_ERRORS.subscribed);
    const renew = await call('POST', '/api/payment/create', { token: a.token, body: { quantity: 5 } });
    expect(renew.status).toBe(200);
    expect(
      await db()
        .selectFrom('payments')
        .select(['plan', 'total'])
        .where('ref', '=', renew.body.payment_ref)
        .executeTakeFirstOrThrow(),
    ).toEqual({ plan: 2, total: '100.00' });
  });

  it('PAY-14 a declined sandbox payment is FAILED with its description; the plan stays', async () => {
    const a = await signUpVia(call);
    const c = await call('POST', '/api/payment/create', { token: a.token, body: { plan: 1, quantity: 2 } });
    const ref = c.body.payment_ref as string;
    expect((await sandboxPost(ref, a.token, 'decline')).status).toBe(200);
    expect((await call('GET', `/api/payment/status?ref=${ref}`, { token: a.token })).body).toEqual({
      result: 'success',
      status: 'FAILED',
      payment_desc: SANDBOX_DECLINED,
    });
    expect((await counts(a.accountId)).account).toMatchObject({ plan: 0, account_type: 0, seats: 0 });
    const bad = await sandboxPost(ref, a.token, 'refund');
    expect(bad.status).toBe(400);
  });

  it('PAY-27 isolation: another account cannot read, open or settle a payment ref', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const ref = (await call('POST', '/api/payment/create', { token: a.token, body: { plan: 2, quantity: 3 } })).body
      .payment_ref as string;
    const before = await counts(a.accountId);
    const st = await call('GET', `/api/payment/status?ref=${ref}`, { token: b.token });
    expect(st.status).toBe(404);
    expect(st.body.description).toBe('There is no such payment.');
    expect(
      (await fetch(`${s.url}/api/payment/sandbox/${ref}`, { headers: { authorization: `Bearer ${b.token}` } })).status,
    ).toBe(404);
    expect((await sandboxPost(ref, b.token, 'pay')).status).toBe(404);
    expect((await call('GET', '/api/payment/status?ref=nope', { token: a.token })).status).toBe(404);
    expect((await call('GET', '/api/payment/status', { token: a.token })).status).toBe(400);
    expect((await call('GET', `/api/payment/status?ref=${ref}`)).status).toBe(401);
    expect(await counts(a.accountId)).toEqual(before);
    expect((await call('GET', `/api/payment/status?ref=${ref}`, { token: a.token })).body.status).toBe('PENDING');
  });
});

describe('PAY-21 command line pricing', () => {
  let dir = '';
  beforeAll(() => {
    dir = tempDir('parley-cli-pricing-');
  });
  const root = path.resolve(import.meta.dirname, '../../../../..');
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const cli = async (...args: string[]) => {
    try {
      const r = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/server/src/cli.ts', ...args], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '' },
      });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  };

  it(
    'PAY-21 pricing:set adds or replaces a row, refuses a bad one; pricing:remove drops it',
    { timeout: 120_000 },
    async () => {
      const set = await cli(
        'pricing:set',
        '--country',
        'sg',
        '--plan',
        '2',
        '--currency',
        'sgd',
        '--price',
        '25.50',
        '--tax',
        '0.09',
      );
      expect(set.code).toBe(0);
      const bad = await cli(
        'pricing:set',
        '--country',
        'SG',
        '--plan',
        '2',
        '--currency',
        'SGD',
        '--price',
        '0.1e2',
        '--tax',
        '0',
      );
      expect(bad.code).toBe(1);
      expect(bad.err).toContain('price must be a decimal');
      expect((await cli('pricing:list')).out).toContain('SG\t2\tSGD\t25.50\t0.09');
      const { db, close } = openDatabase({ dataDir: dir });
      const row = await db.selectFrom('pricing').selectAll().where('country', '=', 'SG').executeTakeFirstOrThrow();
      await close();
      expect(row).toMatchObject({ plan: 2, currency: 'SGD', price: '25.50', tax: '0.09' });
      expect((await cli('pricing:remove', '--country', 'SG', '--plan', '2')).code).toBe(0);
    },
  );
});
