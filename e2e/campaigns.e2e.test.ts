import { CAMPAIGN_STRINGS as C } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  modalSettled,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const WAIT = { timeout: 15_000 };

/** Campaigns in Chromium: an admin makes one, tickets join it, its page shows how they stand; agents read. */
describe('campaigns in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  const tickets: number[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    for (const title of ['Kettle leaks', 'Kettle sparks', 'Kettle refund']) {
      const made = await apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name: 'Pat' }, admin);
      tickets.push(made.data.id);
    }
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(who: string, scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1440, height: 900 },
      colorScheme: scheme,
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, who);
    return page;
  }

  it('TICKET-64 TICKET-65 an admin makes a campaign; tickets put in it show on its page by status; a ticket links to it; it cannot be deleted while it has tickets', async () => {
    const page = await open('ann', 'light');
    await page.goto(`${server.url}/campaign`);
    await page.getByText(C.none).waitFor(WAIT);
    await page.getByTestId('campaign-new').click();
    await modalSettled(page);
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('campaign-save').click();
    await dialog.getByRole('alert').filter({ hasText: C.nameRequired }).waitFor(WAIT);
    await dialog.getByTestId('campaign-name').fill('Kettle recall');
    await dialog.getByTestId('campaign-save').click();
    await page.waitForURL(/\/campaign\/\d+$/, WAIT);
    const id = Number(/\/campaign\/(\d+)$/.exec(page.url())![1]);
    await page.getByTestId('campaign-title').filter({ hasText: 'Kettle recall' }).waitFor(WAIT);
    await page.getByText(C.noTickets).waitFor(WAIT);

    for (const t of tickets)
      await apiJson(`${server.url}/api/ticket/campaign`, 'POST', { id: t, campaign_id: id }, admin);
    await apiJson(`${server.url}/api/ticket/status`, 'POST', { id: tickets[2], status: 2 }, admin);
    await page.reload();
    await expect.poll(() => page.getByTestId('campaign-ticket').count(), WAIT).toBe(3);
    expect(await page.getByTestId('campaign-tickets').textContent()).toBe('3');
    expect(await page.getByTestId('campaign-open').textContent()).toBe('2');
    expect(await page.getByTestId('campaign-resolved').textContent()).toBe('1');
    expect(await page.getByTestId('campaign-channels').textContent()).toContain('Manual: 3');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'campaign-page-1440-light');

    // Deleting it is refused while tickets are in it, with how many.
    await page.getByTestId('campaign-delete').click();
    await modalSettled(page);
    await page.getByTestId('campaign-delete-confirm').click();
    await page
      .getByRole('alert')
      .filter({ hasText: C.notEmpty(3) })
      .waitFor(WAIT);
    await page.keyboard.press('Escape');

    // A ticket's Details panel names its campaign and links to this page.
    await page.goto(`${server.url}/ticket/${tickets[0]}`);
    const link = page.getByTestId('ticket-info-campaign');
    await link.filter({ hasText: 'Kettle recall' }).waitFor(WAIT);
    await link.click();
    await page.waitForURL(new RegExp(`/campaign/${id}$`), WAIT);

    // The list: the campaign with its counts.
    await page.goto(`${server.url}/campaign`);
    const row = page.getByTestId('campaign-row').filter({ hasText: 'Kettle recall' });
    await row.waitFor(WAIT);
    expect((await row.locator('td').allTextContents()).slice(1, 3)).toEqual(['3', '2']);
  });

  it('TICKET-10 TICKET-65 the list pages by 5; an agent reads campaigns but is offered no changes (1440 dark, 390 light and dark)', async () => {
    for (let i = 1; i <= 6; i++) await apiJson(`${server.url}/api/campaign`, 'POST', { name: `Promo ${i}` }, admin);
    const page = await open('amy', 'dark');
    await page.goto(`${server.url}/campaign`);
    await expect.poll(() => page.getByTestId('campaign-row').count(), WAIT).toBe(5);
    expect(await page.getByTestId('campaign-new').count()).toBe(0);
    expect(await page.getByTestId('campaign-row').first().textContent()).toContain('Promo 6');
    await page.getByRole('button', { name: '2' }).click();
    await page.getByTestId('campaign-row').filter({ hasText: 'Kettle recall' }).waitFor(WAIT);
    await screenshot(page, 'campaigns-list-1440-dark');
    await page.getByRole('link', { name: 'Kettle recall' }).click();
    await page.getByTestId('campaign-title').waitFor(WAIT);
    expect(await page.getByTestId('campaign-delete').count()).toBe(0);
    await screenshot(page, 'campaign-page-1440-dark');

    for (const scheme of ['light', 'dark'] as const) {
      const phone = await open('ann', scheme, true);
      await phone.goto(`${server.url}/campaign`);
      await phone.getByTestId('campaign-row').first().waitFor(WAIT);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(phone, `campaigns-list-390-${scheme}`);
      await phone.getByRole('link', { name: 'Promo 6' }).click();
      await phone.getByTestId('campaign-title').waitFor(WAIT);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(phone, `campaign-page-390-${scheme}`);
    }
  });
});
