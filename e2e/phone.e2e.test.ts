import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, screenshot, startDemo } from './support.js';

/** The signed-in app on a phone (390x844): the navigation drawer, and a ticket worked from the bottom composer. */
describe('SHELL the app on a phone in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 3 }));
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function phone(scheme: 'light' | 'dark'): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: scheme,
      isMobile: true,
      hasTouch: true,
    });
    contexts.push(ctx);
    const r = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'demo-admin', password }),
    });
    const s = (await r.json()) as { token: string; refresh_token: string };
    await ctx.addCookies([
      { name: 'parley_token', value: s.token, url: server.url },
      { name: 'parley_refresh', value: s.refresh_token, url: server.url },
      // A dark page is asked for through the app's own cookie (the OS scheme only sets the default).
      ...(scheme === 'dark' ? [{ name: 'dark', value: '1', url: server.url }] : []),
    ]);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[phone] ${e.message}`));
    return page;
  }

  const drawer = (page: Page) => page.getByRole('navigation', { name: 'Navigation' });
  /** Whether the drawer is on the screen (closed, it is moved out to the left, not hidden). */
  const drawerShown = async (page: Page) => {
    const box = await drawer(page).boundingBox();
    return !!box && box.x + box.width > 1;
  };

  it.each([
    'light',
    'dark',
  ] as const)('SHELL-33 NAV-01 on a phone the navigation opens on /ticket and reaches Home, Settings and Log Out (%s)', async (scheme) => {
    const page = await phone(scheme);
    await page.goto(`${server.url}/ticket`);
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    await expect.poll(() => drawerShown(page)).toBe(false);

    await page.getByRole('button', { name: 'Open navigation' }).click();
    await expect.poll(() => drawerShown(page)).toBe(true);
    await screenshot(page, `phone-navigation-${scheme}`);

    // Settings, from the user menu at the foot of the drawer.
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.waitForURL(/\/settings\/security$/);
    // Going somewhere closes the drawer.
    await expect.poll(() => drawerShown(page)).toBe(false);
    await screenshot(page, `phone-settings-${scheme}`);

    // A navigation entry goes there and closes the drawer too.
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await drawer(page).getByRole('link', { name: 'Home' }).click();
    await page.getByTestId('welcome').waitFor();
    await expect.poll(() => drawerShown(page)).toBe(false);
    // Nothing reaches past the screen's edge (the profile-picture hint once opened beside the user menu).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Log Out' }).click();
    await page.getByText('Are you sure you want to log out?').waitFor();
    await page.getByTestId('confirm-logout').click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('LIVECHAT-02 on a phone the live chats fit the screen: the list takes its width, the empty text wraps inside', async () => {
    const page = await phone('dark');
    await page.goto(`${server.url}/livechat`);
    const empty = page.getByText('Its empty for now...');
    await empty.waitFor();
    const box = (await empty.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'phone-livechat-dark');
  });

  it('SHELL-33 MSG-09 on a phone a ticket is answered from the composer at the bottom of the screen, the message box most of its width', async () => {
    const page = await phone('light');
    await page.goto(`${server.url}/ticket`);
    await page.getByTestId('ticket-row').first().click();
    await page.getByTestId('conversation-pane').waitFor();
    const input = page.getByTestId('composer-input');
    await input.waitFor();
    // The composer sits at the bottom of the screen, above the bottom tabs, within the phone's width.
    const box = (await input.boundingBox())!;
    const tabs = (await page.getByRole('navigation', { name: 'Sections' }).boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(tabs.y + 1);
    expect(box.y + box.height).toBeGreaterThan(tabs.y - 160);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // The message box keeps most of the row: the send button is its icon alone on a phone.
    expect(box.width).toBeGreaterThan(180);
    await input.fill('Sent from a phone');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByTestId('message-text').filter({ hasText: 'Sent from a phone' }).waitFor();
    await screenshot(page, 'phone-ticket-light');
  });
});
