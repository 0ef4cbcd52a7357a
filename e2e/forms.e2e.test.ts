import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  modalSettled,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const WAIT = { timeout: 15_000 };

/**
 * Forms in Chromium: a customer sends the public new-ticket form (signed out) and the ticket shows live in an
 * agent's list; the entry is on the Forms page's Main tab; an admin builds a custom form with a choice and
 * its tab appears.
 */
describe('forms in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function page(o: { scheme?: 'light' | 'dark'; phone?: boolean; user?: string } = {}): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: o.phone ? { width: 390, height: 844 } : { width: 1440, height: 900 },
      colorScheme: o.scheme ?? 'light',
    });
    contexts.push(ctx);
    const p = await ctx.newPage();
    if (o.user) await signInAs(p, server.url, o.user);
    return p;
  }

  it('CONTACT-01 CONTACT-02 a customer sends the public form: the ticket shows live in the agent list; the entry on the Main tab', async () => {
    const agent = await page({ user: 'amy' });
    await agent.goto(`${server.url}/ticket`);
    await agent.getByTestId('ticket-list').or(agent.getByText('No tickets')).first().waitFor(WAIT);
    const token = (await apiJson(`${server.url}/api/forms/settings`, 'GET', undefined, admin)).data[0].token as string;

    const customer = await page({ phone: true });
    await customer.goto(`${server.url}/new_ticket/${token}`);
    const form = customer.getByTestId('new-ticket-page');
    await form.getByRole('heading', { name: 'Contact us' }).waitFor(WAIT);
    await form.getByLabel('Your name').fill('Noor Aziz');
    await form.getByLabel('E-mail').fill('noor@example.org');
    await form.getByLabel('How can we help?').fill('The zipper of my bag broke after a week.');
    await customer.getByTestId('new-ticket-send').click();
    await customer.getByTestId('new-ticket-error').getByText('Subject is required.').waitFor(WAIT);
    await screenshot(customer, 'new-ticket-error-phone');
    await form.getByLabel('Subject').fill('Broken zipper');
    await customer.getByTestId('new-ticket-send').click();
    await customer
      .getByTestId('new-ticket-sent')
      .getByText('Thank you! Your request was received. We will get back to you soon.')
      .waitFor(WAIT);
    expect(await axe(customer)).toEqual([]);
    await screenshot(customer, 'new-ticket-sent-phone');

    // Live in the agent's list, without a reload.
    await agent.getByTestId('ticket-row').filter({ hasText: 'Broken zipper' }).waitFor(WAIT);

    await agent.goto(`${server.url}/forms`);
    const entry = agent.getByTestId('forms-entry');
    await entry.first().waitFor(WAIT);
    expect(await entry.count()).toBe(1);
    const text = (await entry.textContent()) ?? '';
    for (const v of ['Noor Aziz', 'noor@example.org', 'Broken zipper', 'The zipper of my bag broke'])
      expect(text).toContain(v);
    expect(await agent.getByTestId('forms-manage').count()).toBe(0);
    await screenshot(agent, 'forms-main-light');
    await entry.getByRole('link', { name: '1' }).click();
    await agent.waitForURL(/\/ticket\/\d+$/, WAIT);
  });

  it('CONTACT-03 CONTACT-06 an admin builds a custom form with a choice and a date; its tab shows what customers send, the date as D/M/YYYY (dark)', async () => {
    const ann = await page({ user: 'ann', scheme: 'dark' });
    await ann.goto(`${server.url}/forms`);
    await ann.getByTestId('forms-manage').click();
    await modalSettled(ann);
    await ann.getByTestId('form-new').click();
    const builder = ann.getByTestId('form-builder');
    await builder.getByLabel('Form name').fill('Returns');
    for (const label of ['E-mail', 'Reason', 'Bought on']) {
      await builder.getByTestId('form-field-new').fill(label);
      await builder.getByTestId('form-field-add').click();
    }
    const fields = builder.getByTestId('form-field');
    await fields.nth(0).getByLabel('Kind').click();
    await ann.getByRole('option', { name: 'E-mail address' }).click();
    await fields.nth(0).getByLabel('Required').check();
    await fields.nth(1).getByLabel('Kind').click();
    await ann.getByRole('option', { name: 'Choice' }).click();
    await fields.nth(1).getByLabel('Options, one a line').fill('Too small\nBroken');
    await fields.nth(2).getByLabel('Kind').click();
    await ann.getByRole('option', { name: 'Date', exact: true }).click();
    await screenshot(ann, 'form-builder-dark');
    await builder.getByTestId('form-save').click();
    const row = ann.getByTestId('form-row').filter({ hasText: 'Returns' });
    await row.waitFor(WAIT);
    const link = (await row.getByTestId('form-link').textContent()) ?? '';
    expect(link).toMatch(/\/new_ticket\/[A-Za-z0-9_-]+$/);
    await ann.keyboard.press('Escape');
    await ann.getByTestId('forms-tab').filter({ hasText: 'Returns' }).click();
    await ann.getByText("No entries yet. Share the form's link and what people send shows here.").waitFor(WAIT);

    const customer = await page();
    await customer.goto(link);
    await customer.getByRole('heading', { name: 'Returns' }).waitFor(WAIT);
    await customer.getByLabel('E-mail').fill('omar@example.org');
    await customer.getByLabel('Reason').first().click();
    await customer.getByRole('option', { name: 'Broken' }).click();
    await customer.getByLabel('Bought on').fill('2026-03-05');
    await customer.getByTestId('new-ticket-send').click();
    await customer.getByTestId('new-ticket-sent').waitFor(WAIT);

    await ann.reload();
    await ann.getByTestId('forms-tab').filter({ hasText: 'Returns' }).click();
    const entry = ann.getByTestId('forms-entry');
    await entry.first().waitFor(WAIT);
    // The date answer, stored YYYY-MM-DD, reads D/M/YYYY like every date shown.
    expect(await entry.textContent()).toContain('omar@example.orgBroken5/3/2026');
    await screenshot(ann, 'forms-entries-dark');
    // The e-mail field took the key `email`: the ticket is the customer's, named by it.
    await ann.goto(`${server.url}/ticket`);
    await ann.getByTestId('ticket-row').filter({ hasText: 'Returns: omar@example.org' }).waitFor(WAIT);
    await screenshot(ann, 'forms-custom-dark');
  });

  it('CONTACT the agent makes a ticket survey link; the customer rates it; the rating is the ticket CSAT in the report', async () => {
    // Surveys come with Basic and up.
    const sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
    sqlite.prepare('update accounts set plan = 2').run();
    sqlite.close();
    const ticket = (
      await apiJson(
        `${server.url}/api/ticket/create`,
        'POST',
        { title: 'Late delivery', name: 'Lee', email: 'lee@example.org' },
        admin,
      )
    ).data;
    const ann = await page({ user: 'ann' });
    await ann.goto(`${server.url}/ticket/${ticket.id}`);
    await ann.getByTestId('ticket-survey-link').click();
    const url = await ann.getByTestId('ticket-survey-url').inputValue();
    expect(url).toMatch(/\/survey\/[A-Za-z0-9_-]+$/);

    const customer = await page({ phone: true, scheme: 'dark' });
    await customer.goto(url);
    await customer
      .getByRole('heading', { name: `How did we do with your request #${ticket.ticket_number}?` })
      .waitFor(WAIT);
    await customer.getByRole('radio', { name: '4: Good' }).click();
    await customer.getByLabel('Anything you would like to tell us? (optional)').fill('Quick and kind.');
    await screenshot(customer, 'survey-phone-dark');
    await customer.getByTestId('survey-send').click();
    await customer.getByTestId('survey-done').getByText('Thank you! Your answer helps us get better.').waitFor(WAIT);
    expect(await axe(customer)).toEqual([]);
    await customer.reload();
    await customer.getByTestId('survey-done').getByText('This survey was answered already. Thank you!').waitFor(WAIT);

    await ann.goto(`${server.url}/report/all/all`);
    const row = ann.locator(`[data-testid="report-row"][data-ticket="${ticket.ticket_number}"]`);
    await row.waitFor(WAIT);
    expect(await row.getByTestId('report-rating').textContent()).toBe('4');
  });
});
