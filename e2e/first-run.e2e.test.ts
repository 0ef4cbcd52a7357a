import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  logOut,
  newContext,
  type RunningServer,
  screenshot,
  setMyStatus,
  startServer,
  waitConnected,
} from './support.js';

describe('FOUNDATION first run in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('AUTH-01 fresh data dir -> create workspace -> signed in on home; a second page sees a realtime event', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Create your workspace' }).waitFor();

    // The form checks with the shared contract before anything is sent.
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await expect(page.getByText('Company name is required.').isVisible()).resolves.toBe(true);

    await page.getByLabel('Company name').fill('Acme Support');
    await page.getByLabel('Your name').fill('Ann Admin');
    await page.getByLabel('Username', { exact: true }).fill('ann');
    await page.getByLabel('E-mail').fill('ann@example.com');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await screenshot(page, 'first-run-light');
    await page.getByRole('button', { name: 'Create workspace' }).click();

    await page.getByTestId('welcome').waitFor();
    expect(await page.getByTestId('welcome').textContent()).toBe('Welcome, Ann Admin');
    await waitConnected(page);

    // The session is an HttpOnly cookie: scripts cannot read it.
    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === 'parley_token');
    expect(session?.httpOnly).toBe(true);
    expect(await page.evaluate(() => document.cookie)).not.toContain('parley_token');

    // A second tab of the same user (same cookies) receives what the first one does.
    const page2 = await ctx.newPage();
    await page2.goto(server.url);
    await page2.getByTestId('welcome').waitFor();
    await waitConnected(page2);

    await setMyStatus(page, 'Busy');
    const update = page.getByRole('button', { name: 'Update' });
    expect(await update.isDisabled()).toBe(true); // Busy needs a reason
    await page.getByLabel('Reason').fill('In a meeting');
    await update.click();

    const item = page2.getByTestId('activity-item').first();
    await item.waitFor({ timeout: 10_000 });
    expect(await item.textContent()).toContain('Ann Admin is busy: In a meeting');
    await screenshot(page2, 'home-second-tab-light');
    await ctx.close();
  });

  it('AUTH-01 AUTH-03 AUTH-04 AUTH-09 sign-in form after first run: empty fields, wrong password, then success (dark)', async () => {
    const ctx = await newContext(browser, 'dark');
    const page = await ctx.newPage();
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Username is required.').waitFor();
    await page.getByText('Password is required.').waitFor();

    await page.getByLabel('Username', { exact: true }).fill('ann');
    await page.getByLabel('Password', { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Invalid username or password.').waitFor();
    await screenshot(page, 'sign-in-dark');

    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('welcome').waitFor();
    await screenshot(page, 'home-dark');

    await logOut(page);
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    await ctx.close();
  });

  it('unknown paths: signed out they lead to sign-in, signed in they show the 404 page', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(`${server.url}/no/such/page`);
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByLabel('Username', { exact: true }).fill('ann');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('welcome').waitFor();
    await page.goto(`${server.url}/no/such/page`);
    await page.getByText('Error 404').waitFor();
    expect(await page.getByText('The page you have requested was not found.').isVisible()).toBe(true);
    await ctx.close();
  });
});
