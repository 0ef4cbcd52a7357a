import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  modalSettled,
  type RunningServer,
  screenshot,
  signInAs,
  startDemo,
  waitConnected,
} from './support.js';

/** In Chromium: the global search modal opens with Ctrl+K, finds a message, and a hit opens its conversation. */
describe('global search in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';
  const contexts: BrowserContext[] = [];
  const word = 'quetzalcoatl';

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 4 }));
    // Another agent writes the word into ticket 1.
    const agent = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-agent1', password });
    await apiJson(
      `${server.url}/api/ticket/message`,
      'POST',
      { ticket_id: 1, message: `The ${word} order <b>was</b> refunded` },
      agent.token,
    );
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function admin(viewport: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<Page> {
    const ctx = await browser.newContext({ viewport, colorScheme });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, server.url, 'demo-admin', password);
    return page;
  }

  async function searchFor(page: Page, text: string) {
    const modal = page.getByRole('dialog', { name: 'Search' });
    await modal.waitFor();
    await modalSettled(page);
    // SEARCH-01: the chips while the box is empty.
    for (const chip of ['Contact', 'From', 'Label', 'Ticket']) await modal.getByText(chip, { exact: true }).waitFor();
    await page.getByTestId('search-input').fill(text);
    // SEARCH-02: typing switches to Clear and Enter.
    await page.getByTestId('search-enter').waitFor();
    await page.getByTestId('search-clear').waitFor();
    expect(await page.getByTestId('search-chips').count()).toBe(0);
    await page.getByTestId('search-input').press('Enter');
    await page.getByTestId('search-message').first().waitFor();
  }

  it('SEARCH-01 SEARCH-02 SEARCH-03 Ctrl+K opens the search, typing finds a message, a hit opens its conversation', async () => {
    const page = await admin({ width: 1440, height: 900 }, 'light');
    await page.keyboard.press('Control+K');
    // The chip Ticket inserts number:; Clear resets the box to the chips.
    await page.getByRole('dialog', { name: 'Search' }).waitFor();
    await page.getByTestId('search-chips').getByText('Ticket', { exact: true }).click();
    expect(await page.getByTestId('search-input').inputValue()).toBe('number:');
    await page.getByTestId('search-clear').click();
    await page.getByTestId('search-chips').waitFor();

    await searchFor(page, word.slice(0, 7));
    const hit = page.getByTestId('search-message').first();
    expect(await hit.locator('mark').first().textContent()).toBe(word);
    // The stored markup shows as text: the snippet never renders it.
    expect(await hit.textContent()).toContain('<b>was</b>');
    expect(await hit.locator('b').count()).toBe(0);
    await screenshot(page, 'search-1440-light');

    await hit.click();
    await page.waitForURL(/\/ticket\/1$/);
    await page.getByTestId('conversation-pane').waitFor();
    await page.getByRole('dialog', { name: 'Search' }).waitFor({ state: 'detached' });
    await waitConnected(page);
  });

  it('SEARCH-04 the search on a phone, dark: the header button opens it, Ctrl+K from a field too', async () => {
    const page = await admin({ width: 390, height: 844 }, 'dark');
    await page.getByTestId('search-open').first().click();
    await searchFor(page, `${word} from:demo-agent1`);
    expect(await page.getByTestId('search-group-Agent').count()).toBe(1);
    await screenshot(page, 'search-390-dark');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Search' }).waitFor({ state: 'detached' });
    // From inside a text field (the composer of a conversation) the shortcut still opens it.
    await page.goto(`${server.url}/ticket/2`);
    await page.getByTestId('composer-input').click();
    await page.keyboard.press('Control+K');
    await page.getByRole('dialog', { name: 'Search' }).waitFor();
  });
});
