import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, axe, newContext, type RunningServer, screenshot, startDemo, waitConnected } from './support.js';

interface Ticket {
  id: number;
  ticket_number: number;
  closed: number;
}

describe('the Kanban board in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';
  let adminToken = '';
  let agentToken = '';
  let customCode = 0;

  const token = async (client: string) =>
    ((await apiJson(`${server.url}/api/auth2`, 'POST', { client, password })) as { token: string }).token;
  const info = async (id: number): Promise<Ticket> =>
    ((await apiJson(`${server.url}/ticket/info/${adminToken}/${id}`, 'GET')) as { data: Ticket }).data;

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 40 }));
    adminToken = await token('demo-admin');
    agentToken = await token('demo-agent1');
    const made = await apiJson(
      `${server.url}/api/ticketstatus`,
      'POST',
      { name: 'Waiting on parts', alternate: '0' },
      adminToken,
    );
    customCode = made.data.status_code;
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
  const column = (page: Page, code: number) => page.locator(`[data-testid="kanban-column"][data-status="${code}"]`);
  const card = (page: Page, id: number) => page.locator(`[data-testid="kanban-card"][data-ticket="${id}"]`);
  const columnOf = async (page: Page, id: number) =>
    Number(await card(page, id).locator('xpath=ancestor::section[1]').getAttribute('data-status'));

  it('TICKET-22 TICKET-24 TICKET-27 NAV-10 columns by status with the custom one; a drag changes the status', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.getByRole('link', { name: 'Kanban' }).first().click();
    await page.waitForURL(/\/kanban$/);
    await column(page, 0).getByTestId('kanban-card').first().waitFor();
    // The account's statuses come by their own request: the custom column joins once they have.
    await column(page, customCode).waitFor();
    const names = await page.locator('[data-testid="kanban-column"] > div:first-child p').allTextContents();
    expect(names).toEqual(['Open', 'Pending', 'Resolved', 'Closed', 'Waiting on parts']);

    // Drag the newest Open card onto Pending.
    const first = column(page, 0).getByTestId('kanban-card').first();
    const id = Number(await first.getAttribute('data-ticket'));
    const pendingBefore = Number(await column(page, 1).getByTestId('kanban-count').textContent());
    await first.dragTo(column(page, 1));
    await expect.poll(() => columnOf(page, id)).toBe(1);
    await expect.poll(async () => (await info(id)).closed).toBe(1);
    await expect
      .poll(async () => Number(await column(page, 1).getByTestId('kanban-count').textContent()))
      .toBe(pendingBefore + 1);
    await page.getByText(/moved to Pending/).waitFor();

    // Then onto the custom status, and back to Open through the card's menu (the keyboard way).
    // The custom column is right of the window on a narrow screen: bring it in first.
    await column(page, customCode).scrollIntoViewIfNeeded();
    await card(page, id).dragTo(column(page, customCode));
    await expect.poll(async () => (await info(id)).closed).toBe(customCode);
    await expect.poll(() => columnOf(page, id)).toBe(customCode);
    const number = (await info(id)).ticket_number;
    await page.getByRole('button', { name: `Move ticket #${number}` }).click();
    await page.getByRole('menuitem', { name: 'Open' }).click();
    await expect.poll(async () => (await info(id)).closed).toBe(0);
    await expect.poll(() => columnOf(page, id)).toBe(0);
    await screenshot(page, 'kanban-light');
    expect(await axe(page)).toEqual([]);
    // Leaving the board through the navigation shows the next screen (the board's cache watch once re-rendered
    // forever and the router never moved on).
    await page.getByRole('link', { name: 'Tickets' }).first().click();
    await page.waitForURL(/\/ticket/);
    await page.getByTestId('ticket-list-area').waitFor({ timeout: 10_000 });
    await ctx.close();
  });

  it('TICKET-27 RT-23 a status change by another agent moves the card live', async () => {
    const ctx = await newContext(browser, 'dark');
    const page = await ctx.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/kanban`);
    await waitConnected(page);
    const first = column(page, 0).getByTestId('kanban-card').first();
    await first.waitFor();
    const id = Number(await first.getAttribute('data-ticket'));
    const r = await apiJson(`${server.url}/api/ticket/status`, 'POST', { id, status: 2 }, agentToken);
    expect(r.data.closed).toBe(2);
    await expect.poll(() => columnOf(page, id), { timeout: 10_000 }).toBe(2);
    await screenshot(page, 'kanban-dark');
    expect(await axe(page)).toEqual([]);
    await ctx.close();
  });

  it('NAV-24 TICKET-28 agents are sent home from /kanban; a refused move puts the card back', async () => {
    const ctx = await newContext(browser);
    const agentPage = await ctx.newPage();
    await signIn(agentPage, 'demo-agent1');
    await agentPage.goto(`${server.url}/kanban`);
    await expect.poll(() => new URL(agentPage.url()).pathname, { timeout: 15_000 }).toBe('/');
    expect(await agentPage.getByTestId('kanban-board').count()).toBe(0);
    await ctx.close();

    const admin = await newContext(browser);
    const page = await admin.newPage();
    await signIn(page, 'demo-admin');
    await page.goto(`${server.url}/kanban`);
    const first = column(page, 0).getByTestId('kanban-card').first();
    await first.waitFor();
    const id = Number(await first.getAttribute('data-ticket'));
    // The server refuses every status change for a moment (as if the ticket were gone).
    await page.route('**/api/ticket/status', (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/json',
        body: JSON.stringify({ result: 'failed', description: 'Ticket not found.' }),
      }),
    );
    await first.dragTo(column(page, 1));
    await page.getByRole('alert').filter({ hasText: 'Ticket not found.' }).waitFor();
    await expect.poll(() => columnOf(page, id)).toBe(0);
    expect((await info(id)).closed).toBe(0);
    await admin.close();
  });
});
