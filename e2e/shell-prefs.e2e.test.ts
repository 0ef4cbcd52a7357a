import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  newContext,
  type RunningServer,
  requestsFlushed,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

const YEAR_S = 360 * 86_400;
const VERSION = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8'))
  .version as string;

/**
 * The shell's timers, shortcuts and kept preferences: the Online User panel's refresh (STATUS-20, STATUS-22),
 * alt+shift+w and alt+shift+c (SHELL-60, SHELL-61), following the system theme (SHELL-65), the theme cookies'
 * lifetime (CONST-03), the Calendar hint (NAV-14) and the version in the user menu (CONST-01).
 */
describe('SHELL panel refresh, shortcuts and preferences in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await seedWorkspace(server.url, [{ username: 'cat', name: 'Cat Agent' }]);
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = async (scheme: 'light' | 'dark' = 'light'): Promise<Page> => {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    return ctx.newPage();
  };
  const cookie = async (page: Page, name: string) => (await page.context().cookies()).find((c) => c.name === name);
  const scheme = (page: Page) => page.locator('html').getAttribute('data-mantine-color-scheme');

  it('STATUS-20 STATUS-22 the 300x400 Online User panel refreshes every 60 s only while open and the window focused', async () => {
    const page = await open();
    await page.clock.install();
    await signInAs(page, server.url, 'ann');
    let calls = 0;
    let answered = 0;
    // Only the requests seen starting here: one the landing page started before (the team's names) may
    // still finish after, on a loaded machine.
    const counted = new Set<unknown>();
    page.on('request', (r) => {
      if (new URL(r.url()).pathname !== '/status/get') return;
      counted.add(r);
      calls++;
    });
    page.on('requestfinished', (r) => {
      if (counted.has(r)) answered++;
    });
    /** The clock moves on only once the page has its answer (on a loaded machine it may still be on its way). */
    const settled = async (n: number) => {
      await expect.poll(() => calls, { timeout: 15_000 }).toBe(n);
      await expect.poll(() => answered, { timeout: 15_000 }).toBe(n);
      await requestsFlushed(page);
    };
    await page.getByTestId('online-users-toggle').click();
    const panel = page.getByTestId('online-users');
    await panel.waitFor();
    await settled(1);
    const box = await panel.boundingBox();
    expect([Math.round(box?.width ?? 0), Math.round(box?.height ?? 0)]).toEqual([300, 400]);
    await screenshot(page, 'shell-online-panel-light');

    // The window loses the focus (another application in front): open but idle. The tab stays visible.
    await page.evaluate(() => window.dispatchEvent(new Event('blur')));
    expect(await page.evaluate(() => document.visibilityState)).toBe('visible');
    await page.clock.runFor(125_000);
    await requestsFlushed(page);
    expect(calls).toBe(1);
    expect(await panel.isVisible()).toBe(true);

    // Focus back: the list is refreshed at once, then every 60 s.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await settled(2);
    await page.clock.runFor(61_000);
    await settled(3);
    await page.clock.runFor(61_000);
    await settled(4);
  });

  it('SHELL-60 SHELL-61 alt+shift+w reconnects the socket; alt+shift+c clears the panel preferences of this browser', async () => {
    const page = await open();
    const sockets: string[] = [];
    page.on('websocket', (ws) => {
      if (ws.url().includes('/socket.io/')) sockets.push(ws.url());
    });
    await signInAs(page, server.url, 'ann');
    await expect.poll(() => sockets.length).toBe(1);
    await page.keyboard.press('Alt+Shift+W');
    await expect.poll(() => sockets.length).toBe(2);
    await waitConnected(page);

    // Pins chosen, hints seen, an announcement dismissed: all kept in this browser...
    await page.evaluate(() => {
      localStorage.setItem('parley.nav.pinned', JSON.stringify(['home']));
      localStorage.setItem('parley.nav.hints', JSON.stringify(['minimized', 'edit', 'calendar']));
      localStorage.setItem('parley.announcement.dismissed', '7');
    });
    await page.reload();
    await waitConnected(page);
    expect(await page.getByText('View events and holidays').count()).toBe(0);
    // ...until alt+shift+c, which says they apply after a reload.
    await page.keyboard.press('Alt+Shift+C');
    await page
      .locator('.mantine-Notification-root')
      .filter({ hasText: 'Panel preferences cleared. They apply after a reload.' })
      .waitFor();
    const kept = await page.evaluate(() =>
      ['parley.nav.pinned', 'parley.nav.hints', 'parley.announcement.dismissed'].map((k) => localStorage.getItem(k)),
    );
    expect(kept).toEqual([null, null, null]);
    await page.reload();
    await waitConnected(page);
    await page.getByText('View events and holidays').waitFor(); // the Calendar hint is back
  });

  it('NAV-14 the Calendar hint "View events and holidays" goes once the entry is used, and stays gone', async () => {
    const page = await open();
    await signInAs(page, server.url, 'cat');
    const hint = page.getByTestId('nav-calendar').getByText('View events and holidays');
    await hint.waitFor();
    await page.getByTestId('nav-contacts').click();
    expect(await hint.count()).toBe(1); // another entry does not count
    await page.getByTestId('nav-calendar').click();
    await page.waitForURL(`${server.url}/calendar`);
    await hint.waitFor({ state: 'detached' });
    await page.reload();
    await waitConnected(page);
    await page.getByTestId('nav-calendar').waitFor();
    expect(await hint.count()).toBe(0);
  });

  it('SHELL-65 CONST-03 "Follow system" keeps auto_dark for about a year and follows the system scheme as it changes', async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/settings/appearance`);
    await page.getByText('Dark', { exact: true }).click();
    await expect.poll(() => scheme(page)).toBe('dark');
    for (const name of ['dark', 'auto_dark']) {
      const c = await cookie(page, name);
      expect(c?.value, name).toBe(name === 'dark' ? '1' : '0');
      expect((c?.expires ?? 0) - Date.now() / 1000, name).toBeGreaterThan(YEAR_S);
    }

    await page.getByText('Follow system', { exact: true }).click();
    const auto = await cookie(page, 'auto_dark');
    expect(auto?.value).toBe('1');
    expect((auto?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(YEAR_S);
    await expect.poll(() => scheme(page)).toBe('light'); // the system says light
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => scheme(page)).toBe('dark');
    await screenshot(page, 'shell-auto-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => scheme(page)).toBe('light');
    // Kept: a new page under a dark system opens dark, without a dark choice of its own.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await waitConnected(page);
    expect(await scheme(page)).toBe('dark');
    expect((await cookie(page, 'dark'))?.value).toBe('1'); // the last explicit choice, unused while following
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => scheme(page)).toBe('light');
  });

  it('CONST-01 NAV-35 the user menu shows the version of this build', async () => {
    const page = await open('dark');
    await signInAs(page, server.url, 'cat');
    await page.getByTestId('user-menu').click();
    expect(await page.getByTestId('app-version').textContent()).toBe(`Version ${VERSION}`);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Alt+Shift+V');
    await page
      .locator('.mantine-Notification-root')
      .filter({ hasText: `Parley ${VERSION}` })
      .waitFor();
  });
});
