import { PRODUCT_STRINGS } from '@parley/contracts';
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
  tokenOf,
} from './support.js';

const WAIT = { timeout: 15_000 };

/** Products in Chromium: an admin adds one, an agent links a ticket from its Details panel, the page lists both. */
describe('products in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  let ticketId = 0;
  let articleId = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    const made = await apiJson(
      `${server.url}/api/ticket/create`,
      'POST',
      { title: 'Kettle leaks', name: 'Pat' },
      admin,
    );
    ticketId = made.data.id;
    const article = await apiJson(
      `${server.url}/api/kb/articles`,
      'POST',
      { type: 'kb', lang: 'en', title: 'Descaling your kettle', body: 'Vinegar and water.' },
      admin,
    );
    articleId = article.data.id;
    await apiJson(`${server.url}/api/kb/articles/${articleId}/publish`, 'POST', {}, admin);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(who: string, scheme: 'light' | 'dark', size = { width: 1440, height: 900 }): Promise<Page> {
    const ctx = await browser.newContext({ viewport: size, colorScheme: scheme });
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, who);
    return page;
  }

  it('SHELL-12 SHELL-13 SHELL-23 an admin adds a product, an agent links a ticket to it from the Details panel, the product page lists the ticket and a linked article', async () => {
    // The admin: an empty catalogue, then a new product through the dialog (a blank name is refused there).
    const page = await open('ann', 'light');
    await page.goto(`${server.url}/product`);
    await page.getByRole('heading', { name: 'Products' }).waitFor(WAIT);
    await page
      .getByTestId('products-empty')
      .filter({
        hasText:
          'No products yet. Add the products your customers ask about, then link tickets to them from a ticket’s Details panel.',
      })
      .waitFor(WAIT);
    await page.getByTestId('product-new').click();
    await modalSettled(page);
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('product-save').click();
    await dialog.getByRole('alert').filter({ hasText: 'Give the product a name.' }).waitFor(WAIT);
    await dialog.getByTestId('product-name').fill('Kettle 2000');
    await dialog.getByTestId('product-code').fill('KT-2000');
    await dialog.getByTestId('product-description').fill('Our 1.7 litre kettle.');
    await dialog.getByTestId('product-save').click();
    await page.waitForURL(/\/product\/\d+$/, WAIT);
    const id = Number(/\/product\/(\d+)$/.exec(page.url())![1]);
    await page.getByTestId('product-title').filter({ hasText: 'Kettle 2000' }).waitFor(WAIT);
    await page.getByText('No tickets linked yet. Link a ticket from its Details panel, under Products.').waitFor(WAIT);

    // A second product of the same name is refused in the dialog, whatever its case.
    await page.goto(`${server.url}/product`);
    await page.getByTestId('product-new').click();
    await modalSettled(page);
    await page.getByRole('dialog').getByTestId('product-name').fill('KETTLE 2000');
    await page.getByRole('dialog').getByTestId('product-save').click();
    await page
      .getByRole('dialog')
      .getByRole('alert')
      .filter({ hasText: PRODUCT_STRINGS.nameTaken('KETTLE 2000') })
      .waitFor(WAIT);
    await page.keyboard.press('Escape');

    // The agent links the ticket from its Details panel.
    const agent = await open('amy', 'dark', { width: 1600, height: 900 });
    await agent.goto(`${server.url}/ticket/${ticketId}`);
    await agent.getByTestId('ticket-info').waitFor(WAIT);
    await agent.getByTestId('ticket-info-products').click();
    await agent.getByRole('option', { name: 'Kettle 2000 (KT-2000)', exact: true }).click();
    await expect
      .poll(
        async () =>
          (await apiJson(`${server.url}/api/products/ticket/${ticketId}`, 'GET', undefined, admin)).data.map(
            (p: { name: string }) => p.name,
          ),
        WAIT,
      )
      .toEqual(['Kettle 2000']);
    await agent.keyboard.press('Escape');
    await agent
      .getByTestId('ticket-info-products-field')
      .locator('.mantine-Pill-label')
      .filter({ hasText: 'Kettle 2000' })
      .waitFor(WAIT);
    expect(await axe(agent, '[data-testid="ticket-info"]')).toEqual([]);
    await screenshot(agent, 'products-ticket-panel-1600-dark');

    // The agent links an article on the product's page.
    await agent.goto(`${server.url}/product/${id}`);
    await agent.getByTestId('product-title').waitFor(WAIT);
    expect(await agent.getByTestId('product-edit').count()).toBe(0);
    await agent.getByTestId('product-article-picker').click();
    await agent.getByRole('option', { name: 'Descaling your kettle (kb/en)', exact: true }).click();
    await agent.keyboard.press('Escape');
    await agent.getByTestId('product-article').filter({ hasText: 'Descaling your kettle' }).waitFor(WAIT);

    // The admin's product page: the ticket with its status and received day, the article linking to the reader.
    await page.goto(`${server.url}/product/${id}`);
    const row = page.getByTestId('product-ticket').filter({ hasText: 'Kettle leaks' });
    await row.waitFor(WAIT);
    expect(await row.textContent()).toContain('Open');
    const created = (await apiJson(`${server.url}/api/products/${id}/tickets`, 'GET', undefined, admin)).data[0]
      .created_at as number;
    const day = new Date(created);
    const shown = await row.getByTestId('product-ticket-date').textContent();
    expect(shown).toBe(`${day.getDate()}/${day.getMonth() + 1}/${day.getFullYear()}`);
    expect(await row.getByRole('link').getAttribute('href')).toBe(`/ticket/${ticketId}`);
    expect(await page.getByTestId('product-tickets').textContent()).toBe('1');
    expect(await page.getByTestId('product-open-tickets').textContent()).toBe('1');
    expect(await page.getByTestId('product-articles').textContent()).toBe('1');
    const article = page.getByTestId('product-article').getByRole('link', { name: 'Descaling your kettle' });
    expect(await article.getAttribute('href')).toBe(`/support/kb/en/${articleId}`);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'product-page-1440-light');

    // The list counts them; archiving takes the product out of the Active view.
    await page.goto(`${server.url}/product`);
    const listed = page.getByTestId('product-row').filter({ hasText: 'Kettle 2000' });
    await listed.waitFor(WAIT);
    expect((await listed.locator('td').allTextContents()).slice(1)).toEqual(['1', '1', '1']);
    await page.getByTestId('product-search').fill('kt-2');
    await listed.waitFor(WAIT);
    await page.getByTestId('product-search').fill('toaster');
    await page.getByTestId('products-empty').filter({ hasText: 'No product matches this search.' }).waitFor(WAIT);
    await page.goto(`${server.url}/product/${id}`);
    await page.getByTestId('product-archive').filter({ hasText: 'Archive' }).click();
    await page.getByTestId('product-archived').waitFor(WAIT);
    await page.getByTestId('product-archive').filter({ hasText: 'Restore' }).click();
    await page.getByTestId('product-archive').filter({ hasText: 'Archive' }).waitFor(WAIT);
  });

  it('SHELL-12 SHELL-13 the list and the page on a phone and in dark mode are axe clean; a missing product says so', async () => {
    const token = await tokenOf(server.url, 'ann');
    await apiJson(
      `${server.url}/api/products`,
      'POST',
      { name: 'Toaster with a rather long name', code: 'TS-1' },
      token,
    );
    const dark = await open('ann', 'dark');
    await dark.goto(`${server.url}/product`);
    await dark.getByTestId('product-row').first().waitFor(WAIT);
    expect(await axe(dark)).toEqual([]);
    await screenshot(dark, 'products-list-1440-dark');
    await dark.getByRole('link', { name: 'Kettle 2000' }).click();
    await dark.getByTestId('product-ticket').first().waitFor(WAIT);
    expect(await axe(dark)).toEqual([]);
    await screenshot(dark, 'product-page-1440-dark');

    for (const scheme of ['light', 'dark'] as const) {
      const phone = await open('amy', scheme, { width: 390, height: 844 });
      await phone.goto(`${server.url}/product`);
      await phone.getByTestId('product-row').first().waitFor(WAIT);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await axe(phone)).toEqual([]);
      await screenshot(phone, `products-list-390-${scheme}`);
      await phone.getByRole('link', { name: 'Kettle 2000' }).click();
      await phone.getByTestId('product-ticket').first().waitFor(WAIT);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await axe(phone)).toEqual([]);
      await screenshot(phone, `product-page-390-${scheme}`);
    }

    const missing = await open('amy', 'light');
    await missing.goto(`${server.url}/product/999999`);
    await missing
      .getByTestId('product-not-found')
      .getByRole('heading', { name: PRODUCT_STRINGS.notFound })
      .waitFor(WAIT);
    expect(await axe(missing)).toEqual([]);
  });
});
