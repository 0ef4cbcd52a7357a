import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cli,
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

describe('SHELL routes, cookies, shortcuts and panels in Chromium', () => {
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

  const open = async (scheme: 'light' | 'dark' = 'light'): Promise<Page> => {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    return ctx.newPage();
  };
  const cookie = async (page: Page, name: string) => (await page.context().cookies()).find((c) => c.name === name);
  const path = (page: Page) => new URL(page.url()).pathname;

  it('SHELL-01 SHELL-03 SHELL-05 SHELL-07 SHELL-09 SHELL-11 CHAT-12 signed-out routes open without sign-in; others go to /', async () => {
    const page = await open();
    const visits: [string, string][] = [
      ['/about', 'About Parley'],
      ['/pricing', 'Pricing'],
      ['/contact', 'Contact'],
      ['/signup', 'Start your free trial'],
      ['/survey/abc123', 'This survey link is not valid.'],
      ['/new_ticket/abc123', 'Form not found.'],
      ['/meeting/abc123', 'Meeting'],
      ['/dashboard/7', 'Dashboard'],
      ['/support/kb/en', 'Knowledgebase'],
      ['/support/manual/en/12/34', 'Support'],
      ['/end/livechat', 'Live Chat Ended'],
    ];
    for (const [to, heading] of visits) {
      await page.goto(`${server.url}${to}`);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      expect(path(page), to).toBe(to);
    }
    for (const to of ['/ticket', '/settings/security', '/kanban', '/no/such/page']) {
      await page.goto(`${server.url}${to}`);
      await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
      expect(path(page), to).toBe('/');
    }
  });

  it('SHELL-16 SHELL-18 SHELL-20 SHELL-22 SHELL-23 NAV-02 signed-in routes, the dashboard flag, /mobile/ticket without the panel', async () => {
    const page = await open();
    await signInAs(page, server.url, 'ann');
    for (const to of ['/calendar/pat', '/calendar/event/9', '/kanban']) {
      await page.goto(`${server.url}${to}`);
      await page.getByTestId('empty-screen').waitFor();
      expect(path(page), to).toBe(to);
    }
    // Products: the list, and a product this account does not have says so.
    await page.goto(`${server.url}/product`);
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    expect(path(page)).toBe('/product');
    await page.goto(`${server.url}/product/3`);
    await page.getByTestId('product-not-found').getByRole('heading', { name: 'Product not found.' }).waitFor();
    expect(path(page)).toBe('/product/3');
    await page.goto(`${server.url}/supervisory`);
    await page.getByTestId('supervisory').waitFor();
    expect(path(page)).toBe('/supervisory');
    // The dashboard is an account feature; this account does not have it.
    await page.goto(`${server.url}/dashboard`);
    await page.getByTestId('welcome').waitFor();
    expect(path(page)).toBe('/');
    for (const to of ['/pricing', '/contact', '/login']) {
      await page.goto(`${server.url}${to}`);
      await page.getByTestId('welcome').waitFor();
      expect(path(page), to).toBe('/');
    }
    await page.goto(`${server.url}/mobile/ticket`);
    await page.getByRole('heading', { name: 'Tickets' }).waitFor();
    expect(await page.getByRole('list', { name: 'Main navigation' }).count()).toBe(0);
    await page.goto(`${server.url}/ticket`);
    await page.getByRole('list', { name: 'Main navigation' }).waitFor();
  });

  it('SHELL-12 SHELL-13 SHELL-16 no signed-in route of the route table shows the "not built yet" placeholder', async () => {
    // The two trading pages whose design is written (docs/trading.md) but not built: they say so plainly.
    const stillBuilding = ['/prediction_validator', '/ai_learning'];
    // The route table itself: every `<Route path="...">` of the signed-in app, parameters filled in.
    const source = readFileSync(fileURLToPath(new URL('../apps/web/src/app/SignedInApp.tsx', import.meta.url)), 'utf8');
    const paths = [...source.matchAll(/<Route\s+path="([^"]+)"/g)].map((m) => m[1]!).filter((p) => p !== '*');
    const routes = [
      ...new Set(
        paths.map(
          (p) =>
            p
              .replace(/\/:[a-zA-Z]+\?/g, '')
              .replace(/:[a-zA-Z]+/g, '1')
              .replace(/\/\*$/, '') || '/',
        ),
      ),
    ];
    expect(routes).toContain('/interactions');
    expect(routes.length).toBeGreaterThan(30);
    const page = await open();
    await signInAs(page, server.url, 'ann');
    const checked: string[] = [];
    for (const to of routes) {
      if (stillBuilding.some((b) => to === b || to.startsWith(`${b}/`))) continue;
      await page.goto(`${server.url}${to}`);
      // The shell is up and the screen's lazy chunk has arrived and rendered: no loader is left.
      await waitConnected(page);
      await page
        .getByLabel('Loading', { exact: true })
        .first()
        .waitFor({ state: 'detached', timeout: 20_000 })
        .catch(() => {
          throw new Error(`${to} kept showing its loader`);
        });
      const body = (await page.locator('body').textContent()) ?? '';
      expect(body, to).not.toContain('This screen is not available yet in this version of Parley.');
      checked.push(to);
    }
    expect(checked).toContain('/interactions');
  }, 300_000);

  it('NAV-32 NAV-39 the avatar hint is remembered in a cookie of a year; always_display and display_name too', async () => {
    const page = await open();
    await signInAs(page, server.url, 'ann');
    const hint = page
      .getByRole('dialog', { name: 'Hint' })
      .filter({ hasText: 'Change your profile picture in settings.' });
    await hint.waitFor();
    await hint.getByRole('button', { name: 'Got It!' }).click();
    const seen = await cookie(page, 'avatar_hint_seen');
    expect(seen?.value).toBe('1');
    expect((seen?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(YEAR_S);
    await page.reload();
    // The hint is drawn with the shell from the cookie: the shell is up, so it would be there.
    await waitConnected(page);
    expect(await hint.count()).toBe(0);

    const name = await cookie(page, 'display_name');
    expect(decodeURIComponent(name?.value ?? '')).toBe('Ann Admin');
    expect((name?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(YEAR_S);
    await page.getByTestId('nav-toggle').click();
    const always = await cookie(page, 'always_display');
    expect(always?.value).toBe('0');
    expect((always?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(YEAR_S);
    await page.reload();
    await waitConnected(page);
    expect(await page.getByTestId('nav-toggle').getAttribute('aria-expanded')).toBe('false');
  });

  it('STATUS-01 STATUS-02 STATUS-25 STATUS-24 NAV-37 the status menu lists the statuses; panels open and close by toggle', async () => {
    const page = await open();
    await signInAs(page, server.url, 'ann');
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'My Status' }).click();
    const dialog = page.getByRole('dialog', { name: 'My Status' });
    await dialog.waitFor();
    await page.getByTestId('status-select').click();
    const options = (await page.getByRole('option').allTextContents()).map((t) => t.trim());
    expect(options).toEqual(['Online', 'Away', 'Busy', 'Meal Break', 'Washroom', 'Prayer']);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    const toggle = page.getByTestId('online-users-toggle');
    await toggle.click();
    await page.getByTestId('online-users').waitFor();
    await toggle.click();
    await page.getByTestId('online-users').waitFor({ state: 'hidden' });

    await page.getByTestId('notification-bell').click();
    const panel = page.getByTestId('notifications-panel');
    await panel.waitFor();
    // The first page loads after the panel opens.
    await expect.poll(() => panel.textContent()).toContain('No Notification');
    const box = await panel.boundingBox();
    expect([Math.round(box?.width ?? 0), Math.round(box?.height ?? 0)]).toEqual([400, 600]);
  });

  it('STATUS-22 the online-user panel refreshes every 60 s while open', async () => {
    const page = await open();
    await page.clock.install();
    // Counted from before sign-in: the landing page reads the team's names too, and when that read is fresh
    // the panel opens from it without asking again. The refreshes are counted from the panel's opening.
    let calls = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/status/get') calls++;
    });
    await signInAs(page, server.url, 'ann');
    await page.getByTestId('online-users-toggle').click();
    await page.getByTestId('online-users').waitFor();
    await expect.poll(() => calls).toBeGreaterThanOrEqual(1);
    await requestsFlushed(page);
    const opened = calls;
    await page.clock.runFor(61_000);
    await expect.poll(() => calls).toBe(opened + 1);
    await page.getByTestId('online-users-toggle').click();
    await page.getByTestId('online-users').waitFor({ state: 'hidden' });
    await page.clock.runFor(125_000);
    await requestsFlushed(page);
    expect(calls).toBe(opened + 1); // closed: no more refreshes
  });

  it('STATUS-19 a failed custom-status fetch alerts and reloads the page', async () => {
    const page = await open();
    await signInAs(page, server.url, 'ann');
    let documents = 0;
    page.on('request', (r) => {
      if (r.resourceType() === 'document') documents++;
    });
    let down = true;
    await page.route('**/api/customstatus/get', (r) =>
      down ? r.fulfill({ status: 500, body: 'down' }) : r.continue(),
    );
    const dialog = page.waitForEvent('dialog');
    // Not awaited: the app's own reload after the alert may interrupt this navigation.
    const reloading = page.reload().catch(() => undefined);
    const alert = await dialog;
    expect(alert.message()).toBe('Failed to fetch custom status. Reload page to fix it.');
    expect(documents).toBe(1);
    // The fetch works again before the alert is closed, so the app's reload ends on a working page. (Not
    // unroute: it waits on the page, whose script the open alert holds.)
    down = false;
    await alert.accept();
    await expect.poll(() => documents, { timeout: 15_000 }).toBe(2);
    await reloading;
    await waitConnected(page);
    await page.unroute('**/api/customstatus/get');
  });

  it('SHELL-53 SHELL-58 SHELL-59 SHELL-60 SHELL-62 SHELL-66 settings by index, shortcuts, toasts (3 at most, 3 s), rich-link cookie', async () => {
    const page = await open();
    await signInAs(page, server.url, 'ann');
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.waitForURL(`${server.url}/settings/security`); // section index 0

    await page.goto(`${server.url}/settings/appearance`);
    await page.getByLabel('Rich links').uncheck({ force: true });
    const rich = await cookie(page, 'rich_link');
    expect(rich?.value).toBe('0');
    expect((rich?.expires ?? 0) - Date.now() / 1000).toBeGreaterThan(YEAR_S);

    // alt+shift+v shows the version in a toast; five at once show three.
    for (let i = 0; i < 5; i++) await page.keyboard.press('Alt+Shift+V');
    const toasts = page.locator('.mantine-Notification-root');
    await toasts.first().waitFor();
    expect(await toasts.count()).toBeLessThanOrEqual(3);
    const box = await toasts.first().boundingBox();
    expect(box?.x ?? 999).toBeLessThan(100); // bottom left
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeGreaterThan(600);
    expect(await toasts.first().getByRole('button', { name: 'Close' }).count()).toBe(1);
    await expect.poll(() => toasts.count(), { timeout: 15_000 }).toBe(0); // each goes after 3 s

    // Holding Alt is the action mode; letting go ends it.
    await page.keyboard.down('Alt');
    await expect.poll(() => page.locator('body').getAttribute('data-alt-mode')).toBe('');
    await page.keyboard.up('Alt');
    await expect.poll(() => page.locator('body').getAttribute('data-alt-mode')).toBe(null);

    await page.keyboard.press('Alt+Shift+S');
    await page.getByRole('dialog', { name: 'My Status' }).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Alt+Shift+A');
    await page.waitForURL(`${server.url}/about`);
    await page.keyboard.press('Alt+Shift+E');
    await expect.poll(() => page.locator('html').getAttribute('data-mantine-color-scheme')).toBe('dark');
    await page.keyboard.press('Alt+Shift+D');
    await page.getByRole('dialog', { name: 'Debug' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Debug' }).textContent()).toContain('Socket');
  });

  it('SHELL-49 SHELL-50 the crash page: full screen, Refresh Now, and the error stack', async () => {
    const page = await open();
    await signInAs(page, server.url, 'ann');
    await page.keyboard.press('Alt+Shift+D');
    await page.getByRole('button', { name: 'Simulate a crash' }).click();
    await page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
    expect(await page.getByTestId('crash-stack').textContent()).toContain('Crash simulated from the debug panel');
    await screenshot(page, 'shell-crash-light');
    await page.getByRole('button', { name: 'Refresh Now' }).click();
    await page.getByTestId('welcome').waitFor();
  });

  it('PLAN-09 SHELL-30 an account at plan 99 has no conversation lists and no conversation view', async () => {
    await cli(server, 'account:update', '--account', '1', '--plan', '99');
    try {
      const page = await open();
      await signInAs(page, server.url, 'ann');
      for (const to of ['/ticket', '/chat', '/livechat']) {
        await page.goto(`${server.url}${to}`);
        await page.getByRole('heading', { name: 'No conversations in this account' }).waitFor();
      }
      await page.goto(`${server.url}/ticket/5`);
      await page.getByTestId('welcome').waitFor();
      expect(path(page)).toBe('/');
    } finally {
      await cli(server, 'account:update', '--account', '1', '--plan', '1');
    }
  });
});
