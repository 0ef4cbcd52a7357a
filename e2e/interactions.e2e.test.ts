import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, axe, newContext, type RunningServer, screenshot, startDemo, waitConnected } from './support.js';

/** `/interactions` over the demo workspace, with a note and a status change made through the API. */
describe('Interactions in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';
  const contexts: BrowserContext[] = [];

  const token = async (client: string) =>
    ((await apiJson(`${server.url}/api/auth2`, 'POST', { client, password })) as { token: string }).token;

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 40 }));
    const agent = await token('demo-agent1');
    await apiJson(`${server.url}/api/ticket/status`, 'POST', { id: 1, status: 1 }, agent);
    await apiJson(`${server.url}/api/ticket/notes/add`, 'POST', { ticketId: 1, text: 'Courier called back' }, agent);
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function openAs(username: string, o: { scheme?: 'light' | 'dark'; phone?: boolean } = {}): Promise<Page> {
    const ctx = o.phone
      ? await browser.newContext({
          viewport: { width: 390, height: 844 },
          colorScheme: o.scheme ?? 'light',
          isMobile: true,
          hasTouch: true,
        })
      : await newContext(browser, o.scheme ?? 'light');
    contexts.push(ctx);
    const page = await ctx.newPage();
    if (!o.phone) await page.setViewportSize({ width: 1440, height: 900 });
    const r = await apiJson(`${server.url}/api/auth2`, 'POST', { client: username, password });
    await ctx.addCookies([
      { name: 'parley_token', value: r.token, url: server.url },
      { name: 'parley_refresh', value: r.refresh_token, url: server.url },
    ]);
    await page.goto(`${server.url}/interactions`);
    await waitConnected(page);
    await page.getByTestId('interaction').first().waitFor();
    return page;
  }
  const items = (page: Page) => page.getByTestId('interaction');
  const kinds = async (page: Page) =>
    new Set(await items(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))));
  const pick = async (page: Page, testId: string, option: string) => {
    const before = await page.getByTestId('interactions-timeline').innerHTML();
    await page.getByTestId(testId).click();
    await page.getByRole('option', { name: option, exact: true }).click();
    // The list is read again for the new filter: wait until what it shows changed.
    await expect.poll(() => page.getByTestId('interactions-timeline').innerHTML()).not.toBe(before);
    await expect.poll(() => page.getByLabel('Loading interactions').count()).toBe(0);
  };

  it('SHELL-12 SHELL-13 an admin sees the team timeline by day, filters by kind and agent, loads more, opens a ticket', async () => {
    const page = await openAs('demo-admin');
    await expect.poll(() => items(page).count()).toBe(50);
    const seen = await kinds(page);
    for (const k of ['in', 'out', 'note', 'change']) expect(seen.has(k), k).toBe(true);
    // Newest first: the note and the change made just now lead, under today's date in D/M/YYYY.
    const days = await page.getByTestId('interactions-day').allTextContents();
    for (const d of days) expect(d).toMatch(/^\d{1,2}\/\d{1,2}\/\d{4}$/);
    const now = new Date();
    expect(days[0]).toBe(`${now.getDate()}/${now.getMonth() + 1}/${now.getFullYear()}`);
    expect(await items(page).first().getByTestId('interaction-text').textContent()).toBe('Courier called back');

    await page.getByTestId('interactions-more').click();
    await expect.poll(() => items(page).count()).toBe(100);
    const keys = await items(page).evaluateAll((els) => els.map((e) => e.textContent));
    expect(keys.length).toBe(100);

    await pick(page, 'interactions-kind', 'Note');
    expect([...(await kinds(page))]).toEqual(['note']);
    await expect.poll(() => items(page).count()).toBe(1);
    await pick(page, 'interactions-kind', 'All kinds');

    await pick(page, 'interactions-agent', 'Alex Agent');
    const agentKinds = await kinds(page);
    expect(agentKinds.has('out')).toBe(true);
    // Alex's replies, and what happened on conversations assigned to him: every reply shown is his.
    const replies = page.locator('[data-testid="interaction"][data-kind="out"]');
    for (const who of await replies.getByTestId('interaction-who').allTextContents()) expect(who).toBe('Alex Agent');
    await pick(page, 'interactions-kind', 'Customer message');
    expect([...(await kinds(page))]).toEqual(['in']);

    const link = items(page).first().getByTestId('interaction-link');
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(/^\/(ticket|livechat|call)\/\d+$/);
    await link.click();
    await page.waitForURL(`**${href}`);
    if (href.startsWith('/ticket/')) await page.getByTestId('message-count').waitFor();
  });

  it('axe finds nothing in light and dark at 1440 px, nor on a phone', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await openAs('demo-admin', { scheme });
      expect(await axe(page), scheme).toEqual([]);
      await screenshot(page, `interactions-1440-${scheme}`);
    }
    const phone = await openAs('demo-admin', { scheme: 'dark', phone: true });
    expect(await axe(phone), 'phone').toEqual([]);
    // The filters and the items fit the phone's width: nothing scrolls sideways.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(phone, 'interactions-390-dark');
  });
});
