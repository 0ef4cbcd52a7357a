import { CUSTOMER_ANALYSIS_STRINGS as A } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const WAIT = { timeout: 15_000 };

/** Customer Analysis in Chromium: the period's customers, topics and the customers who wrote most. */
describe('customer analysis in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const admin = await seedWorkspace(server.url);
    const labels = await apiJson(
      `${server.url}/api/label/update`,
      'POST',
      {
        labelArray: [{ name: 'Delivery', color: '#1C7ED6', colorDark: '#74C0FC', level: 1, sla: 0 }],
        delete: [],
      },
      admin,
    );
    const delivery = (labels.data as { id: number; name: string }[]).find((l) => l.name === 'Delivery')?.id;
    for (const [title, name, email] of [
      ['Order late', 'Kim Lee', 'kim@example.org'],
      ['Order broken', 'Kim Lee', 'kim@example.org'],
      ['Invoice copy', 'Pat Doe', 'pat@example.org'],
    ] as const) {
      const t = await apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name, email }, admin);
      if (title.startsWith('Order') && delivery)
        await apiJson(`${server.url}/api/ticket/labels`, 'POST', { id: t.data.id, label: [delivery] }, admin);
    }
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1440, height: 900 },
      colorScheme: scheme,
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    return page;
  }

  it('NAV-12 CONTACT-13 the figures, the topics and the customers who wrote most; a customer opens their contact page', async () => {
    const page = await open('light');
    await page.goto(`${server.url}/customer_analysis`);
    await page.getByTestId('ca-customers').filter({ hasText: '2' }).waitFor(WAIT);
    expect(await page.getByTestId('ca-new').textContent()).toBe('2');
    expect(await page.getByTestId('ca-conversations').textContent()).toBe('3');
    expect(await page.getByTestId('ca-csat').textContent()).toBe(A.noRating);
    expect(await page.getByTestId('ca-topic').allTextContents()).toEqual(['Delivery2']);
    expect(await page.getByTestId('ca-customer').first().locator('td').first().textContent()).toBe('Kim Lee');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'customer-analysis-1440-light');
    // Another period asks again: the same customers wrote in the last 7 days.
    await page.getByText(A.days(7), { exact: true }).click();
    await expect.poll(() => page.getByRole('radio', { name: A.days(7) }).isChecked(), WAIT).toBe(true);
    await page.getByTestId('ca-customers').filter({ hasText: '2' }).waitFor(WAIT);
    await page.getByRole('link', { name: 'Kim Lee' }).click();
    await page.waitForURL(/\/contacts\/\d+$/, WAIT);
  });

  it('CONTACT-13 at 1440 dark and on a phone, light and dark, within the screen', async () => {
    for (const [scheme, phone] of [
      ['dark', false],
      ['light', true],
      ['dark', true],
    ] as const) {
      const page = await open(scheme, phone);
      await page.goto(`${server.url}/customer_analysis`);
      await page.getByTestId('ca-customer').first().waitFor(WAIT);
      if (phone) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(page, `customer-analysis-${phone ? 390 : 1440}-${scheme}`);
    }
  });
});
