import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axe,
  launchBrowser,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const WAIT = { timeout: 15_000 };

/**
 * The rendered API reference in Chromium: reached from Settings -> API and webhooks, it lists every route of
 * the OpenAPI document, searches them, and shows a route's parameters, body and answer fields.
 */
describe('the API reference page', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function page(scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const p = await ctx.newPage();
    await p.setViewportSize(phone ? { width: 390, height: 844 } : { width: 1440, height: 900 });
    p.on('pageerror', (e) => console.error(`[page] ${e.message}`));
    return p;
  }

  it('every route of /api/docs is listed; a search finds one and it shows its body fields', async () => {
    const p = await page('light');
    await signInAs(p, server.url, 'ann');
    await p.goto(`${server.url}/settings/integrations`);
    await p.getByRole('link', { name: 'API reference' }).click();
    await p.waitForURL(/\/api_reference$/, WAIT);
    const docs = (await (await fetch(`${server.url}/api/docs`)).json()) as { paths: Record<string, object> };
    const operations = Object.values(docs.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    await p
      .getByTestId('api-count')
      .filter({ hasText: `${operations} routes` })
      .waitFor(WAIT);
    expect(await p.getByTestId('api-route').count()).toBe(operations);
    await p.getByTestId('api-search').fill('ticket/create');
    await p
      .getByTestId('api-count')
      .filter({ hasText: /^1 route$/ })
      .waitFor(WAIT);
    await p.getByTestId('api-route').getByRole('button').first().click();
    const body = p.getByTestId('api-body');
    await body.waitFor(WAIT);
    const title = body.getByRole('row').filter({ hasText: /^titlerequired/ });
    expect(await title.textContent()).toContain('string (1..200 chars)');
    expect(await axe(p, '[data-testid="api-reference"]')).toEqual([]);
    await screenshot(p, 'api-reference-light');
  });

  it('on a phone, dark, an agent reads it too', async () => {
    const p = await page('dark', true);
    await signInAs(p, server.url, 'amy');
    await p.goto(`${server.url}/api_reference`);
    await p.getByTestId('api-route').first().waitFor(WAIT);
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await screenshot(p, 'api-reference-phone-dark');
  });
});
