import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  modalSettled,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  signInAs,
  startServer,
} from './support.js';

const WAIT = { timeout: 15_000 };

/**
 * PLAN-04..PLAN-06 and PAY-01..PAY-20 in Chromium: a trial admin buys a plan on /plan through the built-in
 * sandbox provider's popup; a declined payment and a popup closed early end in "Payment failed.".
 */
describe('PAY the plans page and the payment dialog (sandbox provider)', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ PAYMENT_PROVIDER: 'sandbox' }), launchBrowser()]);
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signUp(tag: string) {
    const username = `buyer-${tag}`;
    const r = await apiJson(`${server.url}/api/signup`, 'POST', {
      company: `Shop ${tag}`,
      name: `Buyer ${tag}`,
      username,
      email: `${username}@example.com`,
      password: PASSWORD,
    });
    return { username, token: r.token as string };
  }
  const planOf = async (token: string) => (await apiJson(`${server.url}/api/auth/check`, 'POST', {}, token)).plan;

  async function openPlans(scheme: 'light' | 'dark', size: { width: number; height: number }, username: string) {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    await page.setViewportSize(size);
    await signInAs(page, server.url, username);
    await page.goto(`${server.url}/plan`);
    await page.getByRole('heading', { name: 'Plans' }).waitFor(WAIT);
    return page;
  }

  /** Opens the dialog on a plan's card, waits out the starting spinner and sets the number of users. */
  async function startBuying(page: Page, plan: number, users: string) {
    await page.getByTestId(`plan-card-${plan}`).getByRole('button', { name: 'Purchase' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('payment-starting').waitFor(WAIT);
    await dialog.getByTestId('payment-form').waitFor(WAIT);
    const input = dialog.getByLabel('Number of users');
    await input.fill('');
    await dialog.getByText('This cannot be empty.').waitFor(WAIT);
    expect(await dialog.getByRole('button', { name: 'Continue' }).isDisabled()).toBe(true);
    // PAY-18: an integer above 0 only; 0 users cannot be bought.
    await input.fill('0');
    expect(await dialog.getByRole('button', { name: 'Continue' }).isDisabled()).toBe(true);
    await input.fill('');
    // PAY-17: digits only; anything else is not taken.
    await input.pressSequentially(`x-${users}.`);
    expect(await input.inputValue()).toBe(users);
    return dialog;
  }

  /** Continue opens the provider's popup; the dialog is in progress until it closes. */
  async function continueToPopup(page: Page) {
    const dialog = page.getByRole('dialog');
    const [popup] = await Promise.all([
      page.context().waitForEvent('page'),
      dialog.getByRole('button', { name: 'Continue' }).click(),
    ]);
    await dialog.getByTestId('payment-progress').waitFor(WAIT);
    expect(await dialog.textContent()).toContain('do not close');
    // PAY-09: it cannot be closed now.
    await page.keyboard.press('Escape');
    expect(await dialog.getByRole('button', { name: 'Close' }).count()).toBe(0);
    await popup.waitForLoadState();
    return popup;
  }

  it('PLAN-04 PLAN-05 PAY-01 PAY-02 PAY-03 PAY-04 PAY-05 PAY-07 PAY-08 PAY-18 PAY-19 PAY-09 PAY-11 PAY-12 PAY-15 PAY-16 PAY-20 a trial admin buys Basic for 3 users through the sandbox popup', async () => {
    const buyer = await signUp('basic');
    const page = await openPlans('light', { width: 1440, height: 900 }, buyer.username);
    expect(await page.locator('[data-testid^="plan-card-"]').count()).toBe(4);
    await page.getByTestId('plan-card-4').getByRole('link', { name: 'Contact Sales' }).waitFor(WAIT);
    await screenshot(page, 'payment-plans-light');

    const dialog = await startBuying(page, 2, '3');
    expect(await dialog.getByTestId('payment-plan').textContent()).toBe('Basic');
    expect(await dialog.getByTestId('payment-price').textContent()).toBe('USD 20.00');
    expect(await dialog.getByText('Sales and Service Tax').count()).toBe(1);
    expect(await dialog.getByTestId('payment-tax').textContent()).toBe('0%');
    expect(await dialog.getByTestId('payment-total').textContent()).toBe('USD 60.00');
    await modalSettled(page);
    await screenshot(page, 'payment-form-light');

    const popup = await continueToPopup(page);
    // PLAN-05: while the payment is in progress no card may be bought.
    for (const plan of [1, 2, 3])
      expect(await page.getByTestId(`plan-card-${plan}`).getByRole('button', { name: 'Purchase' }).isDisabled()).toBe(
        true,
      );
    await popup.getByRole('button', { name: 'Pay USD 60.00' }).waitFor(WAIT);
    await screenshot(page, 'payment-progress-light');
    await popup.getByRole('button', { name: 'Pay USD 60.00' }).click();
    await popup.getByRole('heading', { name: 'Payment received' }).waitFor(WAIT);
    await popup.close();

    await dialog.getByTestId('payment-success').waitFor(WAIT);
    expect(await planOf(buyer.token)).toBe(2);
    // PLAN-21: with Basic's limits: 10 mailboxes, Instagram and LINE may be connected, Telegram not yet.
    expect((await apiJson(`${server.url}/api/mailboxes`, 'GET', undefined, buyer.token)).limit).toBe(10);
    const channels = await apiJson(`${server.url}/api/channels`, 'GET', undefined, buyer.token);
    expect(channels.allowed).toEqual(['whatsapp', 'messenger', 'instagram', 'line', 'x']);
    expect(channels.notOnPlan.map((n: { kind: string }) => n.kind)).toEqual(['telegram', 'sms']);
    // PAY-16: the auth check brought the new plan: the page says Basic and purchase is off (PLAN-05).
    await page.getByTestId('current-plan').getByText('Basic').waitFor(WAIT);
    await modalSettled(page);
    await screenshot(page, 'payment-success-light');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached', ...WAIT });
    for (const plan of [1, 2, 3])
      expect(await page.getByTestId(`plan-card-${plan}`).getByRole('button', { name: 'Purchase' }).isDisabled()).toBe(
        true,
      );
    // The payment joins the history at once, paid, with its receipt.
    const history = page.getByTestId('payment-history');
    const row = history.getByTestId('payment-row');
    await row.getByText('Paid').waitFor(WAIT);
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('Basic');
    expect(await row.textContent()).toContain('USD 60.00');
    await row.getByRole('button', { name: 'Receipt' }).click();
    const receipt = page.getByTestId('payment-receipt');
    await receipt.waitFor(WAIT);
    for (const text of ['Basic', 'USD 20.00', '0%', 'USD 60.00']) expect(await receipt.textContent()).toContain(text);
    await modalSettled(page);
    await screenshot(page, 'payment-receipt-light');
    await receipt.getByRole('button', { name: 'Close' }).click();
    await receipt.waitFor({ state: 'detached', ...WAIT });
  }, 90_000);

  it('PAY-13 PAY-14 PAY-28 PAY-30 a declined payment shows "Payment failed." and its description; a popup closed early (PENDING) fails too; a failed status call shows "Payment failed" and its words', async () => {
    const buyer = await signUp('declined');
    const page = await openPlans('dark', { width: 390, height: 844 }, buyer.username);

    await startBuying(page, 1, '2');
    const popup = await continueToPopup(page);
    await popup.getByRole('button', { name: 'Decline' }).click();
    await popup.getByRole('heading', { name: 'Payment declined' }).waitFor(WAIT);
    await popup.close();
    const dialog = page.getByRole('dialog');
    const failed = dialog.getByTestId('payment-failed');
    await failed.waitFor(WAIT);
    expect(await failed.textContent()).toContain('Payment failed.');
    expect(await failed.textContent()).toContain('The card was declined (sandbox).');
    await modalSettled(page);
    await screenshot(page, 'payment-failed-dark-390');
    await failed.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached', ...WAIT });

    // Closed before paying: the payment is still PENDING, which the dialog shows as failed.
    await startBuying(page, 1, '2');
    const early = await continueToPopup(page);
    await early.getByRole('button', { name: 'Decline' }).waitFor(WAIT);
    await early.close();
    await page.getByRole('dialog').getByTestId('payment-failed').waitFor(WAIT);
    expect(await page.getByRole('dialog').getByTestId('payment-failed').textContent()).toContain('Payment failed.');
    expect(await planOf(buyer.token)).toBe(0);
    await screenshot(page, 'payment-pending-dark-390');
    await page.getByRole('dialog').getByTestId('payment-failed').getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached', ...WAIT });
    // PAY-30: the status call itself fails (a proxy's 502 here): "Payment failed", no full stop, and the
    // response's words.
    await page.route('**/api/payment/status*', (r) =>
      r.fulfill({
        status: 502,
        contentType: 'application/json',
        body: JSON.stringify({ result: 'failed', description: 'The payment service is not answering.' }),
      }),
    );
    await startBuying(page, 1, '2');
    const unanswered = await continueToPopup(page);
    await unanswered.getByRole('button', { name: 'Decline' }).waitFor(WAIT);
    await unanswered.close();
    const statusFailed = page.getByRole('dialog').getByTestId('payment-failed');
    await statusFailed.waitFor(WAIT);
    const words = (await statusFailed.textContent()) ?? '';
    expect(words).toContain('Payment failed');
    expect(words).not.toContain('Payment failed.');
    expect(words).toContain('The payment service is not answering.');
    await page.unroute('**/api/payment/status*');
    await statusFailed.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached', ...WAIT });
    // The tries are in the history, newest first: not completed, then failed with the provider's words; no receipt.
    const rows = page.getByTestId('payment-history').getByTestId('payment-row');
    await rows.nth(2).waitFor(WAIT);
    expect(await rows.nth(0).textContent()).toContain('Not completed');
    expect(await rows.nth(1).textContent()).toContain('Not completed');
    expect(await rows.nth(2).textContent()).toContain('Failed');
    expect(await rows.nth(2).textContent()).toContain('The card was declined (sandbox).');
    expect(await page.getByTestId('payment-history').getByRole('button', { name: 'Receipt' }).count()).toBe(0);
    await page.getByTestId('payment-history').scrollIntoViewIfNeeded();
    await screenshot(page, 'payment-history-dark-390');
  }, 90_000);
});

describe('PAY the plans page at Enterprise', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ PAYMENT_PROVIDER: 'sandbox' }), launchBrowser()]);
  });
  afterAll(async () => {
    for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
  });

  it('PLAN-06 at plan 4 every card is disabled, Contact Sales included', async () => {
    const username = `ent-${Date.now()}`;
    await apiJson(`${server.url}/api/signup`, 'POST', {
      company: 'Big Co',
      name: 'Ent Admin',
      username,
      email: `${username}@example.com`,
      password: PASSWORD,
    });
    const d = new Database(path.join(server.dataDir, 'parley.db'));
    try {
      d.prepare(
        'update accounts set plan = 4, account_type = 1 where id = (select account_id from users where username = ?)',
      ).run(username);
    } finally {
      d.close();
    }
    const ctx = await newContext(browser, 'light');
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, username);
    await page.goto(`${server.url}/plan`);
    await page.getByTestId('current-plan').getByText('Enterprise').waitFor(WAIT);
    for (const plan of [1, 2, 3])
      expect(await page.getByTestId(`plan-card-${plan}`).getByRole('button', { name: 'Purchase' }).isDisabled()).toBe(
        true,
      );
    const sales = page.getByTestId('plan-card-4').getByRole('link', { name: 'Contact Sales' });
    expect(await sales.getAttribute('data-disabled')).toBe('true');
  }, 60_000);
});

/** PAY-29 on an installation with no payment provider (PAYMENT_PROVIDER unset, the self-hosted default). */
describe('PAY without a payment provider', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('PAY-06 PAY-28 PAY-29 "Payment failed." with "Billing information could not be found." and Add Now, which opens billing (section 17)', async () => {
    const username = 'buyer-noprovider';
    await apiJson(`${server.url}/api/signup`, 'POST', {
      company: 'Shop none',
      name: 'Buyer none',
      username,
      email: `${username}@example.com`,
      password: PASSWORD,
    });
    const ctx = await newContext(browser, 'light');
    try {
      const page = await ctx.newPage();
      await signInAs(page, server.url, username);
      await page.goto(`${server.url}/plan`);
      await page.getByTestId('plan-card-1').getByRole('button', { name: 'Purchase' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByTestId('payment-form').waitFor(WAIT);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      const failed = dialog.getByTestId('payment-failed');
      await failed.waitFor(WAIT);
      expect(await failed.textContent()).toContain('Payment failed.');
      expect(await failed.textContent()).toContain('Billing information could not be found.');
      await modalSettled(page);
      await screenshot(page, 'payment-billing-missing-light');
      // From /payment, so that reaching /plan shows Add Now went to settings section 17 (the plans page).
      await page.goto(`${server.url}/payment`);
      await page.getByTestId('plan-card-1').getByRole('button', { name: 'Purchase' }).click();
      await dialog.getByTestId('payment-form').waitFor(WAIT);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await failed.getByRole('button', { name: 'Add Now' }).click();
      await dialog.waitFor({ state: 'detached', ...WAIT });
      await page.waitForURL(`${server.url}/plan`, WAIT);
      await page.getByRole('heading', { name: 'Plans' }).waitFor(WAIT);
    } finally {
      await ctx.close();
    }
  }, 60_000);
});
