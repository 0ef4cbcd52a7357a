import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newContext, PASSWORD, type RunningServer, screenshot, signInAs, startDemo } from './support.js';

/** The new-ticket dialog is the generic input dialog (SHELL-42 .. SHELL-47) on a real screen. */
describe('the new-ticket dialog, built on the generic input dialog, in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let sqlite: Database.Database;

  beforeAll(async () => {
    ({ server, browser } = await startDemo({ tickets: 5, password: PASSWORD }));
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  const tickets = () => (sqlite.prepare('select count(*) as n from tickets').get() as { n: number }).n;
  const localDay = (offset: number) => {
    const d = new Date();
    d.setDate(d.getDate() + offset);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  };

  it('SHELL-42 SHELL-43 SHELL-44 SHELL-45 SHELL-46 SHELL-47 RT-21 text, select, date and id inputs; errors shown in the dialog', async () => {
    const ctx = await newContext(browser, 'dark');
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'demo-admin');
    await page.goto(`${server.url}/ticket`);
    await page.getByTestId('ticket-row').first().waitFor();
    const before = tickets();
    await page.getByRole('button', { name: 'New ticket', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New ticket' });
    await dialog.waitFor();
    await dialog.getByText('Only the title is needed.', { exact: false }).waitFor();

    // A required input left empty: the dialog says which, and nothing is sent.
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Title: This cannot be empty.' }).waitFor();
    expect(tickets()).toBe(before);

    // The server's refusal shows in the same place (a title over 200 characters).
    await dialog.getByLabel('Title').fill('x'.repeat(201));
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Title is too long.' }).waitFor();
    expect(tickets()).toBe(before);

    await dialog.getByLabel('Title').fill('Boiler visit');
    await dialog.getByLabel('Name').fill('Mei Ling');
    await dialog.getByLabel('Priority').click();
    await page.getByRole('option', { name: 'High', exact: true }).click();
    await dialog.getByLabel('Preferred Appointment Date').fill(localDay(1));

    // The id input: the ID types of SHELL-45; the number only for a type other than None, not refused.
    const number = dialog.getByLabel('Identity number');
    expect(await number.count()).toBe(0);
    await dialog.getByLabel('Customer ID: ID type').click();
    const types = await page.getByRole('option').allTextContents();
    expect(types).toEqual([
      'None',
      'MyKad ID',
      'MyKid ID',
      'PR MyKad',
      'Passport No.',
      'Army ID',
      'Police ID',
      'Baby of (B/O)',
    ]);
    await page.getByRole('option', { name: 'Passport No.', exact: true }).click();
    await number.fill('A1234567');
    await dialog.getByLabel('Refuses to provide').check({ force: true });
    expect(await number.count()).toBe(0);
    await dialog.getByLabel('Refuses to provide').uncheck({ force: true });
    await number.fill('A1234567');
    await screenshot(page, 'new-ticket-dialog-dark');
    await dialog.getByRole('button', { name: 'Create' }).click();

    await page.waitForURL(/\/ticket\/\d+$/);
    // The conversation screen (a lazy route) has replaced the list screen, dialog and all.
    await page.getByTestId('conversation-pane').waitFor();
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const row = sqlite.prepare('select title, name, priority, channel, other from tickets where id = ?').get(id) as {
      title: string;
      name: string;
      priority: string;
      channel: string;
      other: string;
    };
    expect(row).toMatchObject({ title: 'Boiler visit', name: 'Mei Ling', priority: 'H', channel: 'MANUAL' });
    expect(JSON.parse(row.other)).toEqual({
      'Preferred Appointment Date': `${localDay(1)} 00:00:00`,
      'ID type': 'Passport No.',
      'ID number': 'A1234567',
    });
    expect(tickets()).toBe(before + 1);
    // The appointment reads back in the list: tomorrow, under 2 days, so red (TICKET-62).
    const listed = page.locator(`[data-ticket="${id}"]`).first();
    await listed.getByTestId('appointment-days').waitFor();
    expect(await listed.getByTestId('appointment-days').textContent()).toContain('1 day');

    // A refused identity is kept as "Refuses to provide"; Close leaves without creating. From the list again.
    await page.goto(`${server.url}/ticket`);
    await page.getByTestId('ticket-row').first().waitFor();
    await page.getByRole('button', { name: 'New ticket', exact: true }).click();
    await dialog.waitFor();
    await dialog.getByLabel('Title').fill('Callback');
    await dialog.getByLabel('Refuses to provide').check({ force: true });
    await dialog.getByLabel('Title').press('Enter');
    await page.waitForURL((u) => /^\/ticket\/\d+$/.test(u.pathname) && u.pathname !== `/ticket/${id}`);
    await page.getByTestId('conversation-pane').waitFor();
    const refused = sqlite.prepare('select other from tickets order by id desc limit 1').get() as { other: string };
    expect(JSON.parse(refused.other)).toEqual({ 'ID type': 'None', 'ID number': 'Refuses to provide' });
    await page.getByRole('button', { name: 'New ticket', exact: true }).click();
    await dialog.getByLabel('Title').fill('Never sent');
    await dialog.locator('button', { hasText: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(tickets()).toBe(before + 2);
    await ctx.close();
  });
});
