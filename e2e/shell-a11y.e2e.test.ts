import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsSettled,
  apiJson,
  axe,
  launchBrowser,
  newContext,
  PASSWORD,
  type RunningServer,
  requestsFlushed,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const SCHEMES = ['light', 'dark'] as const;

/** axe-core's serious and critical violations, less Mantine's menu focus sentinel (see shell.e2e). */
async function axeClean(page: Page): Promise<string[]> {
  return (await axe(page)).filter(
    (v) => !(v.startsWith('aria-required-children:') && v.split(', ').every((t) => t.endsWith('-dropdown'))),
  );
}

/**
 * The accessibility bar on the screens the main axe run (shell.e2e) does not reach: the signed-out
 * pages, the collapsed panel, the narrow layout with its bottom tabs and drawer, the network-error and crash
 * screens and the Log Out question, each in light and dark. Banners, the upgrade, error and input dialogs are
 * checked where they are driven (shell-banners.e2e, settings.e2e).
 */
describe('SHELL accessibility of the remaining shell screens in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await seedWorkspace(server.url);
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = async (scheme: 'light' | 'dark'): Promise<Page> => {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    return ctx.newPage();
  };
  /** Lets transitions end: colours are checked as painted. */
  const settle = (page: Page) => animationsSettled(page);

  it('SHELL-01 SHELL-03 SHELL-05 SHELL-07 SHELL-09 the signed-out pages, light and dark', async () => {
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      const page = await open(scheme);
      for (const [path, heading] of [
        ['/signup', 'Start your free trial'],
        ['/password_reset', 'Reset your password'],
        ['/about', 'About Parley'],
        ['/pricing', 'Pricing'],
        ['/contact', 'Contact'],
        ['/end/livechat', 'Live Chat Ended'],
        ['/survey/abc123', 'Survey'],
        ['/new_ticket/abc123', 'Form not found.'],
        ['/meeting/abc123', 'Meeting'],
        ['/dashboard/7', 'Dashboard'],
        ['/support/kb/en', 'Knowledgebase'],
      ] as const) {
        await page.goto(`${server.url}${path}`);
        await page.getByRole('heading', { name: heading }).first().waitFor();
        await settle(page);
        found.push(...(await axeClean(page)).map((v) => `${scheme} ${path} ${v}`));
      }
      await screenshot(page, `shell-signed-out-kb-${scheme}`);
    }
    expect(found).toEqual([]);
  }, 300_000);

  it('NAV-01 SHELL-33 SHELL-34 the collapsed panel, and the narrow layout with its bottom tabs and drawer, light and dark', async () => {
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      const page = await open(scheme);
      await signInAs(page, server.url, 'ann');
      // The first-time hints are answered: they are checked with the panel in the main run.
      await page.evaluate(() => localStorage.setItem('parley.nav.hints', JSON.stringify(['minimized', 'edit'])));
      await page.getByTestId('nav-toggle').click();
      await page.getByTestId('nav-toggle').and(page.locator('[aria-expanded="false"]')).waitFor();
      await settle(page);
      await screenshot(page, `shell-collapsed-${scheme}`);
      found.push(...(await axeClean(page)).map((v) => `${scheme} collapsed ${v}`));
      await page.getByTestId('nav-edit').click(); // edit mode, collapsed
      await settle(page);
      found.push(...(await axeClean(page)).map((v) => `${scheme} collapsed-edit ${v}`));
      await page.getByTestId('nav-edit').click();

      await page.setViewportSize({ width: 390, height: 800 });
      await page.goto(`${server.url}/chat`);
      const tabs = page.getByRole('navigation', { name: 'Sections' });
      await tabs.waitFor();
      await settle(page);
      await screenshot(page, `shell-narrow-${scheme}`);
      found.push(...(await axeClean(page)).map((v) => `${scheme} narrow ${v}`));
      await page.getByRole('button', { name: 'Open navigation' }).click();
      await page.getByRole('list', { name: 'Main navigation' }).getByText('Contacts').waitFor();
      await settle(page);
      await screenshot(page, `shell-narrow-drawer-${scheme}`);
      found.push(...(await axeClean(page)).map((v) => `${scheme} narrow-drawer ${v}`));
    }
    expect(found).toEqual([]);
  }, 300_000);

  it('SHELL-39 SHELL-49 NAV-36 the network-error and crash screens and the Log Out question, light and dark', async () => {
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      // Log Out asks first.
      const page = await open(scheme);
      await signInAs(page, server.url, 'ann');
      await page.getByTestId('user-menu').click();
      await page.getByRole('menuitem', { name: 'Log Out' }).click();
      await page.getByRole('dialog', { name: 'Log Out' }).waitFor();
      await page.getByRole('menu').waitFor({ state: 'detached' });
      await settle(page);
      await screenshot(page, `shell-logout-${scheme}`);
      found.push(...(await axeClean(page)).map((v) => `${scheme} logout ${v}`));
      await page.getByRole('button', { name: 'Cancel' }).click();

      // The crash page.
      await page.keyboard.press('Alt+Shift+D');
      await page.getByRole('button', { name: 'Simulate a crash' }).click();
      await page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
      await settle(page);
      await screenshot(page, `shell-crash-${scheme}`);
      found.push(...(await axeClean(page)).map((v) => `${scheme} crash ${v}`));

      // The network-error screen: every auth check fails, past the 5 retries 5 s apart.
      const net = await open(scheme);
      await net.clock.install();
      const { token } = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'ann', password: PASSWORD });
      await net.context().addCookies([{ name: 'parley_token', value: token, url: server.url }]);
      let failed = 0;
      net.on('response', (r) => {
        if (new URL(r.url()).pathname === '/api/auth/check') failed++;
      });
      await net.route('**/api/auth/check', (r) => r.fulfill({ status: 500, body: 'down' }));
      await net.goto(server.url);
      const heading = net.getByRole('heading', { name: 'Network error' });
      // Each failed check is answered before the clock moves on to the next retry.
      for (let i = 1; i <= 10 && !(await heading.isVisible()); i++) {
        await expect.poll(() => failed, { timeout: 15_000 }).toBeGreaterThanOrEqual(i);
        await requestsFlushed(net);
        if (await heading.isVisible()) break;
        await net.clock.runFor(5_000);
      }
      await heading.waitFor();
      await screenshot(net, `shell-network-error-${scheme}`);
      found.push(...(await axeClean(net)).map((v) => `${scheme} network-error ${v}`));
      await net.unroute('**/api/auth/check');
    }
    expect(found).toEqual([]);
  }, 300_000);
});
