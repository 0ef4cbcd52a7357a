import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newContext, type RunningServer, screenshot, startDemo, waitConnected } from './support.js';

describe('the ticket list in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 80 }));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signIn(page: Page, username: string) {
    await page.goto(server.url);
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('welcome').waitFor();
    await waitConnected(page);
  }
  const count = async (page: Page) => Number(await page.getByTestId('ticket-count').textContent());

  it('TICKET-02 TICKET-03 TICKET-04 TICKET-38 columns, tabs, 30 a page and Show More', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/ticket`);
    await page.getByTestId('ticket-row').first().waitFor();
    const headers = (await page.getByRole('columnheader').allTextContents()).map((t) => t.trim());
    // The first column holds the row's selection checkbox; the status column shows badges. Neither header has text.
    expect(headers).toEqual(['', '#', 'Title', '', 'Received', 'Updated']);
    await page.getByRole('columnheader', { name: 'Status' }).waitFor();
    expect(await page.getByRole('tab').allTextContents()).toEqual(['All', 'Department', 'Label']);

    await page.locator('label').filter({ hasText: /^All$/ }).click();
    // Every status; the ticket list leaves out live chats and Workspace chats (their own screens).
    await expect.poll(() => count(page)).toBeGreaterThan(60);
    const total = await count(page);
    await expect.poll(() => page.getByTestId('ticket-row').count()).toBe(30);
    await page.getByRole('button', { name: 'Show More' }).click();
    await expect.poll(() => page.getByTestId('ticket-row').count()).toBe(60);
    await page.getByRole('button', { name: 'Show More' }).click();
    await expect.poll(() => page.getByTestId('ticket-row').count()).toBe(total);
    expect(await page.getByRole('button', { name: 'Show More' }).count()).toBe(0);
    await screenshot(page, 'tickets-all-light');
    await ctx.close();
  });

  it('TICKET-05 filter by label: every row carries it and the count drops', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/ticket`);
    await page.locator('label').filter({ hasText: /^All$/ }).click();
    await expect.poll(() => count(page)).toBeGreaterThan(60);
    const before = await count(page);
    await page.getByTestId('ticket-filters').click();
    await page
      .getByRole('dialog', { name: 'Filters' })
      .getByLabel('Label', { exact: true })
      .first()
      .click({ force: true });
    await page.getByRole('option', { name: 'Urgent' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(() => count(page)).toBeLessThan(before);
    const n = await count(page);
    expect(n).toBeGreaterThan(0);
    const rows = page.getByTestId('ticket-row');
    await expect.poll(() => rows.count()).toBe(Math.min(n, 30));
    for (const text of await rows.allTextContents()) expect(text).toContain('Urgent');
    await ctx.close();
  });

  it('TICKET-51 RT a priority change by another agent shows live in the list', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/ticket`);
    const first = page.getByTestId('ticket-row').first();
    await first.waitFor();
    const number = Number(await first.locator('td').nth(1).textContent());

    // Another agent, through the API with their own session.
    const signIn2 = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'demo-agent1', password }),
    });
    const { token } = (await signIn2.json()) as { token: string };
    const list = await fetch(`${server.url}/ticket/load/${token}/0/ticket/0?field=ticket_number&fieldValue=${number}`);
    const ticket = ((await list.json()) as { data: { id: number; severity: string }[] }).data[0];
    expect(ticket).toBeDefined();
    const next = ticket?.severity === 'H' ? 'L' : 'H';
    const res = await fetch(`${server.url}/api/ticket/priority`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ id: ticket?.id, priority: next, type: 'ticket' }),
    });
    expect(res.status).toBe(200);
    const row = page
      .getByTestId('ticket-row')
      .filter({ has: page.locator('td', { hasText: new RegExp(`^${number}$`) }) });
    await expect
      .poll(() => row.first().locator('.mantine-Badge-root').first().textContent(), { timeout: 10_000 })
      .toBe(next);
    await ctx.close();
  });

  it("TICKET-27 RT-23 a status change in one agent's list shows in a second agent's list", async () => {
    const adminCtx = await newContext(browser);
    const agentCtx = await newContext(browser, 'dark');
    const admin = await adminCtx.newPage();
    const agent = await agentCtx.newPage();
    await Promise.all([signIn(admin, 'demo-admin'), signIn(agent, 'demo-agent1')]);
    for (const page of [admin, agent]) {
      await page.goto(`${server.url}/ticket`);
      await waitConnected(page);
      await page.getByTestId('ticket-row').first().waitFor();
    }
    const number = Number(await admin.getByTestId('ticket-row').first().locator('td').nth(1).textContent());
    const status = (page: Page) => page.locator(`input[aria-label="Status of #${number}"]`);
    await status(agent).waitFor();
    expect(await status(agent).inputValue()).toBe('Open');

    await status(admin).click();
    await admin.getByRole('option', { name: 'Pending', exact: true }).click();
    await expect.poll(() => status(admin).inputValue()).toBe('Pending');
    await expect.poll(() => status(agent).inputValue(), { timeout: 10_000 }).toBe('Pending');
    await screenshot(agent, 'tickets-status-live-dark');
    await adminCtx.close();
    await agentCtx.close();
  });

  it('TICKET-05 TICKET-62 appointment filters: under 2 days (red) and the next 7 days', async () => {
    const signInApi = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'demo-admin', password }),
    });
    const { token } = (await signInApi.json()) as { token: string };
    const day = (n: number) => {
      const d = new Date();
      d.setDate(d.getDate() + n);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    for (const [title, n] of [
      ['Fit the new boiler', 1],
      ['Survey the garden', 5],
      ['Inspect the roof', 20],
    ] as const) {
      const res = await fetch(`${server.url}/api/ticket/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ title, name: 'Appointment customer', other: { 'Preferred Appointment Date': day(n) } }),
      });
      expect(res.status).toBe(200);
    }
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/ticket`);
    await page.getByTestId('ticket-row').first().waitFor();
    await page.getByTestId('ticket-filters').click();
    const panel = page.getByRole('dialog', { name: 'Filters' });
    await panel.getByLabel('Appointment in under 2 days').check();
    await expect.poll(() => count(page)).toBe(1);
    const row = page.getByTestId('ticket-row');
    expect(await row.textContent()).toContain('Fit the new boiler');
    const badge = row.getByTestId('appointment-days');
    expect(await badge.textContent()).toBe('1 day');
    expect(await badge.getAttribute('style')).toContain('red'); // TICKET-62: red under 2 days
    await screenshot(page, 'tickets-appointment-filter-light');

    await panel.getByLabel('Appointment in under 2 days').uncheck();
    await panel.getByRole('combobox', { name: 'Appointment' }).click();
    await page.getByRole('option', { name: 'Next 7 days' }).click();
    await expect.poll(() => count(page)).toBe(2);
    const titles = (await page.getByTestId('ticket-row').allTextContents()).join(' ');
    expect(titles).toContain('Survey the garden');
    expect(titles).not.toContain('Inspect the roof');
    await ctx.close();
  });

  it('TICKET-57 TICKET-41 the new-message highlight clears 5 s after the item is clicked', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/ticket`);
    const news = page.locator('[data-testid="ticket-row"][data-new]');
    await news.first().waitFor();
    const id = await news.first().getAttribute('data-ticket');
    await news.first().click();
    await page.waitForURL(new RegExp(`/ticket/${id}$`));
    const clicked = Date.now();
    const row = page.locator(`[data-testid="ticket-row"][data-ticket="${id}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-new')).not.toBeNull();
    await expect.poll(() => row.getAttribute('data-new'), { timeout: 12_000, interval: 250 }).toBeNull();
    expect(Date.now() - clicked).toBeGreaterThan(4_000);
    // Read on the server too: a reload shows it without news.
    await page.reload();
    await row.waitFor();
    expect(await row.getAttribute('data-new')).toBeNull();
    await ctx.close();
  });

  it('TICKET-07 TICKET-09 save a filter preset, reload, reopen it', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/ticket`);
    await page.locator('label').filter({ hasText: /^All$/ }).click();
    await expect.poll(() => count(page)).toBeGreaterThan(60);
    const all = await count(page);
    await page.getByTestId('ticket-filters').click();
    await page
      .getByRole('dialog', { name: 'Filters' })
      .getByLabel('Label', { exact: true })
      .first()
      .click({ force: true });
    await page.getByRole('option', { name: 'VIP' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(() => count(page)).toBeLessThan(all);
    const vip = await count(page);

    await page.getByRole('button', { name: 'Save filters' }).click();
    await page.getByLabel('Preset name').fill('VIP everything');
    await page.getByRole('button', { name: 'Save preset' }).click();

    await page.reload();
    await waitConnected(page);
    await expect.poll(() => count(page)).not.toBe(vip); // back to the default (open) list
    await page.getByTestId('ticket-presets').click();
    const item = page.getByRole('menuitem', { name: /VIP everything/ });
    expect(await item.textContent()).toContain(String(vip));
    await item.click();
    await expect.poll(() => count(page)).toBe(vip);
    for (const text of await page.getByTestId('ticket-row').allTextContents()) expect(text).toContain('VIP');
    await ctx.close();
  });
});
