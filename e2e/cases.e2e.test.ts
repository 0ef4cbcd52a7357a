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

/** Case management in Chromium: a case is opened, takes two tickets, moves stage, gets a note; the list shows it. */
describe('case management in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    for (const title of ['Parcel lost', 'Refund please'])
      await apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name: 'Pat', email: 'pat@example.org' }, admin);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1440, height: 900 },
      colorScheme: scheme,
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'amy');
    return page;
  }

  it('CASE a case takes two tickets, a stage and a note; each is on its timeline; the list shows it', async () => {
    const page = await open('light');
    await page.goto(`${server.url}/case`);
    await page.getByText('No cases yet. Make one to follow a customer matter across its tickets.').waitFor(WAIT);
    await page.getByTestId('case-new').click();
    const dialog = page.getByRole('dialog');
    await modalSettled(page);
    await dialog.getByLabel('Title').fill('Lost parcel claim');
    await dialog.getByLabel('Type').fill('Claim');
    await dialog.getByTestId('case-create').click();
    await page.waitForURL(/\/case\/\d+$/, WAIT);
    await page.getByRole('heading', { name: 'Lost parcel claim' }).waitFor(WAIT);
    for (const n of ['1', '2']) {
      await page.getByTestId('case-ticket-number').fill(n);
      await page.getByTestId('case-ticket-add').click();
      await page
        .getByTestId('case-ticket')
        .filter({ hasText: `#${n} ` })
        .waitFor(WAIT);
    }
    await page.getByTestId('case-stage').click();
    await page.getByRole('option', { name: 'Investigating' }).click();
    await page.getByTestId('case-event').filter({ hasText: 'Stage: Investigating' }).waitFor(WAIT);
    await page.getByLabel('Note').fill('Courier says it was left at the door.');
    await page.getByTestId('case-note-add').click();
    await page.getByTestId('case-event').filter({ hasText: 'Courier says it was left at the door.' }).waitFor(WAIT);
    expect(await page.getByTestId('case-event').count()).toBe(5);
    const violations = await axe(page, '[data-testid="case-page"]');
    expect(violations, violations.join('\n')).toEqual([]);
    await screenshot(page, 'case-page-light');
    await page.getByRole('link', { name: 'All cases' }).click();
    // The list may first show what it held before the stage changed, then its refetch brings the new stage.
    const row = page.getByTestId('case-row').filter({ hasText: 'Lost parcel claim' });
    await row.filter({ hasText: 'Investigating' }).waitFor(WAIT);
    expect(await row.count()).toBe(1);
  });

  it('CASE the list on a phone, dark', async () => {
    const page = await open('dark', true);
    await page.goto(`${server.url}/case`);
    await page.getByTestId('case-row').first().waitFor(WAIT);
    await screenshot(page, 'cases-phone-dark');
  });
});
