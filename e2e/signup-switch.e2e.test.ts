import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newContext, type RunningServer, startServer } from './support.js';

describe('SIGNUP_ENABLED=false in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ SIGNUP_ENABLED: 'false' }), launchBrowser()]);
    const r = await fetch(`${server.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        company: 'Acme',
        name: 'Ann Admin',
        username: 'ann',
        email: 'ann@example.com',
        password: 'correct horse battery',
      }),
    });
    expect(r.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const path = (page: Page) => new URL(page.url()).pathname;

  it('SHELL-01 SHELL-02 the signed-out pages offer no sign-up, and /signup goes to the sign-in page', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    // The other link of the footer is there: the page has finished drawing it.
    await page.getByRole('link', { name: 'Forgot your password?' }).waitFor();
    expect(await page.getByRole('link', { name: 'New to Parley? Start a free trial' }).count()).toBe(0);

    await page.goto(`${server.url}/pricing`);
    await page.getByRole('heading', { name: 'Pricing' }).waitFor();
    expect(await page.getByRole('link', { name: 'Start free trial' }).count()).toBe(0);

    await page.goto(`${server.url}/signup`);
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    expect(path(page)).toBe('/');
    expect(await page.getByRole('heading', { name: 'Start your free trial' }).count()).toBe(0);
    await ctx.close();
  });
});
