import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  cli,
  launchBrowser,
  modalSettled,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  seedWorkspace,
  setMyStatus,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

const WHATS_NEW = 'Faster search and a calmer dark theme.';
const WAIT = { timeout: 15_000 };

/** axe-core's serious and critical violations, less Mantine's menu focus sentinel (see shell.e2e). */
async function axeClean(page: Page, within?: string): Promise<string[]> {
  return (await axe(page, within)).filter(
    (v) => !(v.startsWith('aria-required-children:') && v.split(', ').every((t) => t.endsWith('-dropdown'))),
  );
}

/**
 * The banners and notices above the screens (SHELL-36 .. SHELL-39, SHELL-63, SHELL-64, PLAN-14, PLAN-15,
 * STATUS-15, STATUS-16), the status dialog's Update rule (STATUS-08), the error, upgrade and settings-by-index
 * modals (ERR-01, SHELL-53, SHELL-55). The server runs another version than this build, with a "What's new".
 */
describe('SHELL banners and modals in Chromium (a server with a newer version)', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ APP_VERSION: '9.9.9', APP_WHATS_NEW: WHATS_NEW }),
      launchBrowser(),
    ]);
    adminToken = await seedWorkspace(server.url, [{ username: 'cat', name: 'Cat Agent' }]);
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

  /** A new trial workspace through the sign-up call; its admin's username and account id. */
  async function signUp(tag: string): Promise<{ username: string; accountId: number }> {
    const username = `boss-${tag}`;
    const r = await apiJson(`${server.url}/api/signup`, 'POST', {
      company: `Shop ${tag}`,
      name: `Boss ${tag}`,
      username,
      email: `${username}@example.com`,
      password: PASSWORD,
    });
    const check = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, r.token);
    return { username, accountId: check.accountId };
  }

  it('SHELL-63 SHELL-64 the update bar reads "Update is available. What\'s new: ..." and Refresh reloads the page', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open(scheme);
      await signInAs(page, server.url, 'ann');
      const bar = page.getByTestId('banner-update');
      await bar.waitFor();
      expect((await bar.locator('p').first().textContent())?.trim()).toBe(
        `Update is available. What's new: ${WHATS_NEW}`,
      );
      await screenshot(page, `shell-update-bar-${scheme}`);
      expect(await axeClean(page, '[data-testid="banner-update"]')).toEqual([]);
      if (scheme === 'dark') continue;
      await page.evaluate(() => {
        (window as unknown as { before?: boolean }).before = true;
      });
      const loaded = page.waitForEvent('load');
      await bar.getByRole('button', { name: 'Refresh' }).click();
      await loaded;
      await waitConnected(page);
      expect(await page.evaluate(() => (window as unknown as { before?: boolean }).before)).toBe(undefined);
      await bar.waitFor(); // still another version than this page's build
    }
  });

  it('PLAN-12 PLAN-13 PLAN-14 PLAN-15 an expired trial offers Upgrade (the plans), an expired subscription Switch Plan (the plans) and Pay Now (payment)', async () => {
    const trial = await signUp('trial');
    await cli(server, 'account:update', '--account', String(trial.accountId), '--trial-days', '0');
    const page = await open();
    await signInAs(page, server.url, trial.username);
    const notice = page.getByTestId('expired-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Your trial has ended. Please upgrade to continue.');
    expect(await notice.getByRole('button').or(notice.getByRole('link')).allTextContents()).toEqual(['Upgrade']);
    await screenshot(page, 'shell-expired-trial-light');
    expect(await axeClean(page, '[data-testid="expired-notice"]')).toEqual([]);
    await notice.getByRole('link', { name: 'Upgrade' }).click();
    await page.waitForURL(`${server.url}/plan`);
    await page.getByRole('heading', { name: 'Plans' }).waitFor();

    const paid = await signUp('paid');
    await cli(
      server,
      'account:update',
      '--account',
      String(paid.accountId),
      '--account-type',
      '1',
      '--plan',
      '1',
      '--subscription-days',
      '0',
    );
    const other = await open('dark');
    await signInAs(other, server.url, paid.username);
    const lapsed = other.getByTestId('expired-notice');
    await lapsed.waitFor();
    expect(await lapsed.textContent()).toContain('You subscription has expired. Please make payment to continue.');
    await screenshot(other, 'shell-expired-subscription-dark');
    expect(await axeClean(other, '[data-testid="expired-notice"]')).toEqual([]);
    await lapsed.getByRole('link', { name: 'Switch Plan' }).click();
    await other.waitForURL(`${server.url}/plan`);
    await lapsed.getByRole('link', { name: 'Pay Now' }).click();
    await other.waitForURL(`${server.url}/payment`);
    await other.getByRole('heading', { name: 'Plans' }).waitFor();
  });

  it('STATUS-08 STATUS-15 STATUS-16 STATUS-17 Update is disabled while unchanged; a custom status shows the Go Online banner; Go Online returns to Online', async () => {
    await apiJson(`${server.url}/api/customstatus`, 'POST', { name: 'Training', needs_reason: false }, adminToken);
    const page = await open();
    await signInAs(page, server.url, 'cat');
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'My Status' }).click();
    const dialog = page.getByRole('dialog', { name: 'My Status' });
    const update = dialog.getByRole('button', { name: 'Update' });
    await dialog.waitFor();
    expect(await update.isDisabled()).toBe(true); // Online, unchanged
    await page.getByTestId('status-select').click();
    await page.getByRole('option', { name: 'Training', exact: true }).click();
    expect(await update.isEnabled()).toBe(true); // a custom status without a needed reason
    await page.getByTestId('status-select').click();
    await page.getByRole('option', { name: 'Online', exact: true }).click();
    expect(await update.isDisabled()).toBe(true); // back to what it is
    await dialog.getByLabel('Reason').fill('x');
    expect(await update.isEnabled()).toBe(true); // the reason changed
    await dialog.getByLabel('Reason').fill('');
    expect(await update.isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await setMyStatus(page, 'Training', 'Fire drill');
    await update.click();
    const banner = page.getByTestId('banner-status');
    await banner.waitFor();
    expect((await banner.textContent())?.replace(/\s+/g, ' ')).toContain('Your status is Training (Fire drill).');
    expect(await page.getByTestId('my-status-label').textContent()).toBe('Training');
    await screenshot(page, 'shell-custom-status-light');
    expect(await axeClean(page, '[data-testid="banner-status"]')).toEqual([]);
    // The dialog now starts from Training: choosing it again changes nothing.
    await setMyStatus(page, 'Training');
    expect(await update.isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await banner.getByRole('button', { name: 'Go Online' }).click();
    await banner.waitFor({ state: 'detached' });
    expect(await page.getByTestId('my-status-label').textContent()).toBe('Online');
    const me = await apiJson(`${server.url}/api/status/me/get`, 'GET', undefined, adminToken);
    expect(me.data[0].second_status).toBe(''); // ann's own, untouched
  });

  it('ERR-01 ERR-03 Go Online that cannot reach the server: the error modal "Error!" says so; it works once back', async () => {
    const page = await open('dark');
    await signInAs(page, server.url, 'cat');
    await setMyStatus(page, 'Busy', 'On a call');
    await page.getByRole('button', { name: 'Update' }).click();
    const banner = page.getByTestId('banner-status');
    await banner.waitFor();
    await page.context().setOffline(true);
    await banner.getByRole('button', { name: 'Go Online' }).click();
    const modal = page.getByRole('dialog', { name: 'Error!' });
    await modal.waitFor();
    await modalSettled(page); // the opening transition: colours are checked as painted
    expect(await modal.getByTestId('error-message').textContent()).toBe(
      'Your status was not changed. The server could not be reached. Check your connection and try again.',
    );
    await screenshot(page, 'shell-error-modal-dark');
    expect(await axeClean(page, '.mantine-Modal-content')).toEqual([]);
    await modal.getByRole('button', { name: 'OK' }).click();
    await modal.waitFor({ state: 'detached' });
    expect(await banner.isVisible()).toBe(true);
    await page.context().setOffline(false);
    await waitConnected(page);
    await banner.getByRole('button', { name: 'Go Online' }).click();
    await banner.waitFor({ state: 'detached', ...WAIT });
  });

  it('SHELL-53 SHELL-55 PLAN-25 the Upgrade modal from the user menu; a plan opens settings section 17, subscriptions and billing', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open(scheme);
      await signInAs(page, server.url, 'ann');
      await page.getByTestId('user-menu').click();
      await page.getByRole('menuitem', { name: 'Upgrade' }).click();
      const modal = page.getByRole('dialog', { name: 'Upgrade your plan' });
      await modal.waitFor();
      expect(await modal.getByRole('heading', { level: 4 }).allTextContents()).toEqual([
        'Starter',
        'Basic',
        'Pro',
        'Enterprise',
      ]);
      await modalSettled(page);
      await screenshot(page, `shell-upgrade-modal-${scheme}`);
      expect(await axeClean(page, '.mantine-Modal-content')).toEqual([]);
      await modal.getByRole('button', { name: 'See Pro' }).click();
      await page.waitForURL(`${server.url}/plan`);
      await modal.waitFor({ state: 'detached' });
    }
    // An agent has no Upgrade entry.
    const cat = await open();
    await signInAs(cat, server.url, 'cat');
    await cat.getByTestId('user-menu').click();
    await cat.getByRole('menuitem', { name: 'My Status' }).waitFor();
    expect(await cat.getByRole('menuitem', { name: 'Upgrade' }).count()).toBe(0);
  });

  it('SHELL-36 SHELL-37 axe: the connection-lost, announcement, status and update banners together, light and dark', async () => {
    await apiJson(
      `${server.url}/api/announcement`,
      'POST',
      { message: 'Maintenance at 22:00.', level: 'warning' },
      adminToken,
    );
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open(scheme);
      await signInAs(page, server.url, 'ann');
      await setMyStatus(page, 'Meal Break');
      await page.getByRole('button', { name: 'Update' }).click();
      await page.getByTestId('banner-status').waitFor();
      await page.getByTestId('banner-announcement').waitFor();
      await page.getByTestId('user-menu').click();
      await page.getByRole('menuitem', { name: 'Disconnect' }).click();
      await page.getByTestId('banner-connection').waitFor();
      await page.getByRole('menu').waitFor({ state: 'detached' });
      await screenshot(page, `shell-banners-${scheme}`);
      expect(await axeClean(page)).toEqual([]);
      await page.getByTestId('banner-connection').getByRole('button', { name: 'Reconnect' }).click();
      await waitConnected(page);
      await page.getByTestId('banner-status').getByRole('button', { name: 'Go Online' }).click();
      await page.getByTestId('banner-status').waitFor({ state: 'detached' });
    }
  });
});
