import { SCAM_CALL_STRINGS } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  cli,
  launchBrowser,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  tokenOf,
} from './support.js';

const WAIT = { timeout: 15_000 };
const FRAUD = '+44 7700 900123';

/**
 * CALL-45 CALL-46 NAV-24 in Chromium: `/call_verification` lists the calls the built-in engine read as possible
 * scams from the caller's words (the kind, the confidence, the caller's line and its cues), the numbers most
 * flagged, a kind filter and a number filter; an account without the feature, and an agent, are told plainly.
 */
describe('Scam Calls in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let accountId = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    accountId = (await apiJson(`${server.url}/api/auth/check`, 'POST', {}, admin)).accountId;
    const amy = await tokenOf(server.url, 'amy');
    const call = async (id: string, number: string, transcript: { source: string; transcription: string }[]) => {
      await apiJson(`${server.url}/api/call/start`, 'POST', { call_id: id, direction: 'inbound', number }, amy);
      await apiJson(`${server.url}/api/call/end`, 'POST', { call_id: id, duration: 95, transcript }, amy);
    };
    await call('c-1', FRAUD, [
      { source: 'agent', transcription: 'Good morning, accounts payable, Amy speaking.' },
      {
        source: 'customer',
        transcription:
          'Hello, we are your packaging supplier. Our bank details have changed, so please pay this month’s invoice into our new account.',
      },
    ]);
    await call('c-2', '+1 555 0142', [
      { source: 'customer', transcription: 'Hi, when will my parcel arrive? The order number is 4411.' },
      { source: 'agent', transcription: 'It is out for delivery today.' },
    ]);
    await call('c-3', FRAUD, [
      {
        source: 'customer',
        transcription:
          'This is the fraud department. Read me the one-time code we just sent you immediately or the account will be closed.',
      },
    ]);
    await call('c-4', '+61 400 555 019', [
      {
        source: 'others',
        transcription: 'Congratulations, you have won a prize in our lottery! Pay the release fee to claim it.',
      },
    ]);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    await page.setViewportSize(phone ? { width: 390, height: 844 } : { width: 1440, height: 900 });
    page.on('pageerror', (e) => console.error(`[page] ${e.message}`));
    return page;
  }

  it('NAV-24 an account without the feature, and an agent, are told plainly', async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/call_verification`);
    await page.getByTestId('scam-not-allowed').getByText(SCAM_CALL_STRINGS.notAllowed).waitFor(WAIT);
    await cli(server, 'account:update', '--account', String(accountId), '--features', 'scam_calls');
    const agent = await open('light');
    await signInAs(agent, server.url, 'amy');
    await agent.goto(`${server.url}/call_verification`);
    await agent.getByTestId('scam-not-allowed').waitFor(WAIT);
    expect(await agent.getByTestId('scam-call').count()).toBe(0);
  });

  it('CALL-45 CALL-46 the flagged calls with their words, the numbers, and the filters', async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/call_verification`);
    await page.getByRole('heading', { name: SCAM_CALL_STRINGS.title }).waitFor(WAIT);
    const cards = page.getByTestId('scam-call');
    await cards.first().waitFor(WAIT);
    expect(await cards.count()).toBe(3);
    expect(await page.getByTestId('scam-total').textContent()).toBe('3 flagged calls');
    // Newest first: the lottery call, then the one-time code, then the bank details.
    expect(await cards.nth(0).getByTestId('scam-excerpt').textContent()).toContain('you have won a prize');
    expect(await cards.nth(1).getByTestId('scam-excerpt').textContent()).toContain('one-time code');
    expect(await cards.nth(2).getByTestId('scam-excerpt').textContent()).toContain('bank details have changed');
    expect(await cards.nth(2).getByTestId('scam-kind-badge').textContent()).toBe('Payment redirection');
    expect(await cards.nth(1).textContent()).toContain('2 flagged calls from this number');
    // The parcel question is not there.
    expect(await page.getByText('parcel arrive').count()).toBe(0);
    // The numbers most flagged: the fraudster's first, with 2.
    const numbers = page.getByTestId('scam-numbers');
    expect((await numbers.locator('button').first().textContent()) ?? '').toContain(FRAUD);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'scam-calls-light');

    // A kind at a time.
    await page.getByTestId('scam-kind').click();
    await page.getByRole('option', { name: 'Payment redirection' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="scam-call"]').length === 1, null, WAIT);
    await page.getByTestId('scam-kind').click();
    await page.getByRole('option', { name: 'All kinds' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="scam-call"]').length === 3, null, WAIT);
    // A number at a time, from the numbers list; the filter shows and clears.
    await numbers.locator('button').first().click();
    await page.getByTestId('scam-number-filter').waitFor(WAIT);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="scam-call"]').length === 2, null, WAIT);
    await page.getByRole('button', { name: 'Show every number' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="scam-call"]').length === 3, null, WAIT);
    // The link opens the call.
    await cards.nth(2).getByRole('link', { name: 'Call details' }).click();
    await page.waitForURL(/\/call\/\d+$/, WAIT);
  });

  it('CALL-46 dark, and on a phone', async () => {
    for (const [scheme, phone, name] of [
      ['dark', false, 'scam-calls-dark'],
      ['light', true, 'scam-calls-phone-light'],
      ['dark', true, 'scam-calls-phone-dark'],
    ] as const) {
      const page = await open(scheme, phone);
      await signInAs(page, server.url, 'ann');
      await page.goto(`${server.url}/call_verification`);
      await page.getByTestId('scam-call').first().waitFor(WAIT);
      await page.getByTestId('scam-numbers').waitFor(WAIT);
      if (phone) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, name).toBeLessThanOrEqual(0);
      }
      expect(await axe(page), name).toEqual([]);
      await screenshot(page, name);
    }
  });
});
