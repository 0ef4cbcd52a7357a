import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

const day = (n: number) => {
  const d = new Date();
  d.setDate(d.getDate() + n);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** The ticket screen's modes, tabs, pickers and search in Chromium, over a small workspace made through the API. */
describe('the ticket screen: action and select modes, paging, appointment and search filters', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin: string;
  let sqlite: Database.Database;
  const contexts: BrowserContext[] = [];
  let encrypted = 0;
  let withAppointment = 0;
  let openTotal = 0;

  async function create(body: Record<string, unknown>): Promise<{ id: number; ticket_number: number }> {
    openTotal++;
    return (await apiJson(`${server.url}/api/ticket/create`, 'POST', body, admin)).data;
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url);
    const dep = (await apiJson(`${server.url}/api/departments`, 'POST', { name: 'Field service' }, admin)).data;
    for (let i = 1; i <= 12; i++)
      await create({ title: `Field visit ${i}`, department_id: dep.id, name: `Visitor ${i}` });
    for (const [title, name, email, phone, appt] of [
      ['Fridge is warm', 'Nadia Rahman', 'nadia@coldmail.example', '+60111222333', day(1)],
      ['Oven door broken', 'Omar Sato', 'omar@ovens.example', '+60199988877', day(9)],
      ['Dishwasher noise', 'Priya Nair', 'priya@dish.example', '+60155500011', ''],
    ] as const) {
      await create({ title, name, email, phone, other: appt ? { 'Preferred Appointment Date': appt } : {} });
      if (appt) withAppointment++;
    }
    await create({ title: 'Call about the warranty', channel: 'CALL', call_direction: 'inbound', phone: '+60123' });
    encrypted = (await create({ title: 'Private contract talk' })).id;
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
    sqlite.prepare("update tickets set encryption_method = 'aes' where id = ?").run(encrypted);
    const accountId = sqlite.prepare('select id from accounts').pluck().get() as number;
    const insert = sqlite.prepare('insert into campaigns (account_id, name, created_at) values (?, ?, ?)');
    for (let i = 1; i <= 7; i++) insert.run(accountId, `Campaign ${i}`, Date.now());
    const first = sqlite.prepare("select id from campaigns where name = 'Campaign 1'").pluck().get() as number;
    for (const t of ['Fridge is warm', 'Oven door broken'])
      sqlite.prepare('update tickets set campaign_id = ? where title = ?').run(first, t);
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  async function openTickets(scheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/ticket`);
    await page.getByTestId('ticket-row').first().waitFor();
    return page;
  }
  const count = async (page: Page) => Number(await page.getByTestId('ticket-count').textContent());
  const row = (page: Page, title: string) => page.getByTestId('ticket-row').filter({ hasText: title });
  const area = (page: Page) => page.getByTestId('ticket-list-area');

  it('SHELL-62 TICKET-60 CRYPT-10 holding Alt is the action mode: a click pops the ticket up, an encrypted one only says why', async () => {
    const page = await openTickets();
    expect(await area(page).getAttribute('data-mode')).toBe('open');
    await page.keyboard.down('Alt');
    await expect.poll(() => area(page).getAttribute('data-mode')).toBe('action');
    expect(await page.getByRole('checkbox', { name: 'Quick view' }).isChecked()).toBe(true);
    await row(page, 'Oven door broken').click();
    const popup = page.getByTestId('ticket-popup');
    await popup.waitFor();
    expect(await page.getByRole('dialog').textContent()).toContain('Oven door broken');
    expect(new URL(page.url()).pathname).toBe('/ticket');
    await screenshot(page, 'tickets-action-popup-light');
    await popup.getByRole('button', { name: 'Close' }).click();
    await popup.waitFor({ state: 'detached' });

    await row(page, 'Private contract talk').click();
    await page.getByText('This ticket is encrypted and cannot be opened here.').waitFor();
    expect(await page.getByTestId('ticket-popup').count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe('/ticket');

    // Letting go of Alt ends it: a click opens the ticket again.
    await page.keyboard.up('Alt');
    await expect.poll(() => area(page).getAttribute('data-mode')).toBe('open');
    await row(page, 'Oven door broken').click();
    await page.waitForURL(/\/ticket\/\d+$/);
  });

  it('TICKET-58 select mode: the count of selected tickets and of the calls among them', async () => {
    const page = await openTickets('dark');
    await page
      .locator('label')
      .filter({ hasText: /^Select$/ })
      .click();
    for (const t of ['Fridge is warm', 'Call about the warranty', 'Dishwasher noise']) await row(page, t).click();
    const bar = page.getByTestId('selection-bar');
    await expect.poll(() => bar.textContent()).toContain('3 selected');
    expect(await bar.textContent()).toContain('1 calls');
    await screenshot(page, 'tickets-select-mode-dark');
    await row(page, 'Call about the warranty').click();
    await expect.poll(() => bar.textContent()).toContain('2 selected');
    expect(await bar.textContent()).not.toContain('calls');
    // Still on the list: select mode never opens a ticket.
    expect(new URL(page.url()).pathname).toBe('/ticket');
  });

  it('TICKET-25 a failed fetch of the custom ticket statuses alerts and reloads the page', async () => {
    const ctx = await newContext(browser);
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    let documents = 0;
    page.on('request', (r) => {
      if (r.resourceType() === 'document') documents++;
    });
    let down = true;
    await page.route('**/api/ticketstatus/get', (r) =>
      down ? r.fulfill({ status: 500, body: 'down' }) : r.continue(),
    );
    const dialog = page.waitForEvent('dialog');
    // Not awaited: the app's own reload after the alert may interrupt this navigation.
    const going = page.goto(`${server.url}/ticket`).catch(() => undefined);
    const alert = await dialog;
    expect(alert.message()).toBe('Failed to fetch custom status. Reload page to fix it.');
    expect(documents).toBe(1);
    down = false;
    await alert.accept();
    await expect.poll(() => documents, { timeout: 15_000 }).toBe(2);
    await going;
    await waitConnected(page);
    await page.getByTestId('ticket-row').first().waitFor();
    await page.unroute('**/api/ticketstatus/get');
  });

  it('TICKET-10 the campaign picker pages 5 at a time, newest first, and filters the list', async () => {
    const page = await openTickets();
    await page.getByTestId('ticket-filters').click();
    const picker = page.getByTestId('campaign-picker');
    await expect.poll(() => picker.textContent()).toContain('1 / 2');
    await picker.getByRole('combobox', { name: 'Campaign' }).click();
    const options = async () =>
      (await page.getByRole('option').allTextContents()).filter((t) => t.startsWith('Campaign'));
    await expect.poll(options).toEqual(['Campaign 7', 'Campaign 6', 'Campaign 5', 'Campaign 4', 'Campaign 3']);
    // Close the options inside the panel (Escape would close the panel too): the field toggles them.
    await picker.getByRole('combobox', { name: 'Campaign' }).click();
    await expect.poll(() => page.getByRole('option', { name: 'Campaign 7' }).count()).toBe(0);
    await picker.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => picker.textContent()).toContain('2 / 2');
    expect(await picker.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await picker.getByRole('combobox', { name: 'Campaign' }).click();
    await expect.poll(options).toEqual(['Campaign 2', 'Campaign 1']);
    await page.getByRole('option', { name: 'Campaign 1', exact: true }).click();
    await expect.poll(() => count(page)).toBe(2);
    const titles = (await page.getByTestId('ticket-row').allTextContents()).join(' ');
    expect(titles).toContain('Fridge is warm');
    expect(titles).toContain('Oven door broken');
    await picker.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => picker.textContent()).toContain('1 / 2');
  });

  it('TICKET-33 TICKET-35 the Department tab shows 10 tickets of a department, then 10 more', async () => {
    const page = await openTickets();
    await page.getByRole('tab', { name: 'Department' }).click();
    const group = page.getByTestId('department-group').filter({ hasText: 'Field service' });
    await group.getByTestId('ticket-row').first().waitFor();
    expect(await group.locator('.mantine-Badge-root').first().textContent()).toBe('12');
    expect(await group.getByTestId('ticket-row').count()).toBe(10);
    await group.getByRole('button', { name: 'Show More' }).click();
    await expect.poll(() => group.getByTestId('ticket-row').count()).toBe(12);
    expect(await group.getByRole('button', { name: 'Show More' }).count()).toBe(0);
    const titles = await group.getByTestId('ticket-row').allTextContents();
    expect(titles.filter((t) => t.includes('Field visit'))).toHaveLength(12);
  });

  it('TICKET-05 TICKET-62 the appointment filter: has one, has none, and never both "has none" and a day range', async () => {
    const page = await openTickets();
    expect(await count(page)).toBe(openTotal);
    await page.getByTestId('ticket-filters').click();
    const panel = page.getByRole('dialog', { name: 'Filters' });
    const has = page.waitForRequest((r) => r.url().includes('appt=1'));
    await panel
      .locator('label')
      .filter({ hasText: /^Has one$/ })
      .click();
    await has;
    await expect.poll(() => count(page)).toBe(withAppointment);
    await panel
      .locator('label')
      .filter({ hasText: /^Has none$/ })
      .click();
    await expect.poll(() => count(page)).toBe(openTotal - withAppointment);
    expect((await page.getByTestId('ticket-row').allTextContents()).join(' ')).not.toContain('Fridge is warm');
    expect(await page.getByTestId('ticket-filters').textContent()).toBe('Filters (1)');
    await screenshot(page, 'tickets-filter-appointment-light');
    // Under 2 days needs a date: it switches "has none" back to any (the server would refuse both).
    await panel.getByLabel('Appointment in under 2 days').check();
    await expect.poll(() => count(page)).toBe(1);
    expect(await page.getByTestId('ticket-row').textContent()).toContain('Fridge is warm');
    expect(
      await panel.getByRole('radiogroup', { name: 'Appointment date' }).getByRole('radio', { name: 'Any' }).isChecked(),
    ).toBe(true);
    expect(await axe(page, '[aria-label="Filters"]')).toEqual([]);
  });

  it('TICKET-30 search by name, e-mail or phone as well as title and number', async () => {
    const page = await openTickets('dark');
    const search = page.getByLabel('Search tickets');
    const field = async (name: string) => {
      await page.getByRole('combobox', { name: 'Search in' }).click();
      await page.getByRole('option', { name, exact: true }).click();
    };
    await field('Email');
    const byEmail = page.waitForRequest((r) => r.url().includes('field=email'));
    await search.fill('OVENS.example');
    await byEmail;
    await expect.poll(() => count(page)).toBe(1);
    expect(await page.getByTestId('ticket-row').textContent()).toContain('Oven door broken');
    await screenshot(page, 'tickets-search-email-dark');
    await field('Phone');
    await search.fill('55500');
    await expect
      .poll(() => page.getByTestId('ticket-row').allTextContents())
      .toEqual([expect.stringContaining('Dishwasher noise')]);
    await field('Name');
    await search.fill('nadia');
    await expect
      .poll(() => page.getByTestId('ticket-row').allTextContents())
      .toEqual([expect.stringContaining('Fridge is warm')]);
    // The title search does not read names.
    await field('Title or #');
    await expect.poll(() => count(page)).toBe(0);
    await search.fill('dishwasher');
    await expect.poll(() => count(page)).toBe(1);
    expect(await axe(page, '[data-testid="ticket-list-area"]')).toEqual([]);
  });
});
