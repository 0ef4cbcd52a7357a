import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  newContext,
  type RunningServer,
  requestsFlushed,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/*
 * Shell screens and modals reached through their real triggers. Elsewhere: the removal modal (SHELL-57,
 * chat.e2e), the interaction-required modal (SHELL-56, sound.e2e, in a Chromium that blocks audio until a
 * gesture) and the generic input dialog (SHELL-42 .. SHELL-47, newTicket.e2e: the new-ticket dialog).
 */
describe('SHELL screens and modals in Chromium', () => {
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

  const open = async (): Promise<Page> => {
    const ctx = await newContext(browser);
    contexts.push(ctx);
    return ctx.newPage();
  };

  /**
   * Answers every auth check with 500, reloads, and lets the page clock run the 5 s retries; returns the
   * number of checks answered when the network-error screen showed. Asserts it is not shown before.
   */
  async function failAuthChecks(page: Page): Promise<number> {
    let answered = 0;
    let asked = 0;
    await page.route('**/api/auth/check', (r) => r.fulfill({ status: 500, body: 'down' }));
    const onResponse = (r: { url(): string; status(): number }) => {
      if (new URL(r.url()).pathname === '/api/auth/check' && r.status() === 500) answered++;
    };
    const onRequest = (r: { url(): string }) => {
      if (new URL(r.url()).pathname === '/api/auth/check') asked++;
    };
    page.on('response', onResponse);
    page.on('request', onRequest);
    const heading = page.getByRole('heading', { name: 'Network error' });
    await page.reload();
    for (let k = 1; k <= 5; k++) {
      await expect.poll(() => answered, { timeout: 15_000 }).toBe(k);
      await requestsFlushed(page);
      expect(await heading.count(), `after ${k} failed checks`).toBe(0);
      await page.clock.runFor(5_000);
    }
    await heading.waitFor({ timeout: 15_000 });
    const seen = answered;
    const requested = asked;
    // The loop stops on the error screen: no more checks.
    await page.clock.runFor(30_000);
    await requestsFlushed(page);
    expect(asked).toBe(requested);
    page.off('response', onResponse);
    page.off('request', onRequest);
    await page.unroute('**/api/auth/check');
    return seen;
  }

  it('SHELL-39 AUTH-24 after more than 5 failed auth checks the network-error screen offers Reload and Log Out', async () => {
    const page = await open();
    await page.clock.install();
    await signInAs(page, server.url, 'ann');

    expect(await failAuthChecks(page)).toBe(6);
    const reload = page.getByRole('button', { name: 'Reload' });
    const logOut = page.getByRole('button', { name: 'Log Out' });
    expect(await reload.isVisible()).toBe(true);
    expect(await logOut.isVisible()).toBe(true);
    expect(await page.getByTestId('user-menu').count()).toBe(0); // the whole screen, not the shell

    // Reload reloads the page: a mark left on the window is gone, and the session (still good) is back.
    await page.evaluate(() => {
      (window as unknown as { __beforeReload?: boolean }).__beforeReload = true;
    });
    const loaded = page.waitForEvent('load');
    await reload.click();
    await loaded;
    await page.getByTestId('welcome').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __beforeReload?: boolean }).__beforeReload)).toBe(
      undefined,
    );

    // Log Out ends the session: sign-in shows, and stays after a reload.
    expect(await failAuthChecks(page)).toBe(6);
    await logOut.click();
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    expect(await page.getByTestId('welcome').count()).toBe(0);
  });
});
