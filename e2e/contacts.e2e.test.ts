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
 * Contacts in Chromium: the list finds a customer, their page shows every conversation; an agent merges a
 * duplicate in and undoes it; a contact is made by hand (a phone without its country code is refused in
 * the dialog); a CSV import is checked, shows its bad rows, and imports the good ones.
 */
describe('contacts in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    const ticket = (title: string, name: string, email: string) =>
      apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name, email }, admin);
    await ticket('Refund for order 1182', 'Pat Lee', 'pat@example.org');
    await ticket('Where is my parcel?', 'Pat Lee', 'PAT@example.org');
    await ticket('Invoice copy', 'Patricia L.', 'pat.home@example.org');
    await ticket('Password help', 'Sam Ortiz', 'sam@example.org');
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(o: { scheme?: 'light' | 'dark'; phone?: boolean } = {}): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: o.phone ? { width: 390, height: 844 } : { width: 1440, height: 900 },
      colorScheme: o.scheme ?? 'light',
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'amy');
    return page;
  }
  const rows = (page: Page) => page.getByTestId('contact-row');

  it('CONTACT-10 the list finds a customer; their page shows every conversation; merge a duplicate and undo it', async () => {
    const page = await open();
    await page.goto(`${server.url}/contacts`);
    await page.getByTestId('contacts-table').waitFor(WAIT);
    // One contact per address: Pat's two tickets (one address in two cases) are one contact.
    await expect.poll(() => rows(page).count(), WAIT).toBe(3);
    await page.getByTestId('contacts-search').fill('pat');
    await expect.poll(() => rows(page).count(), WAIT).toBe(2);
    await screenshot(page, 'contacts-list-light');
    expect(await axe(page, '[data-testid="contacts"]')).toEqual([]);
    await page.getByTestId('contacts-filter').click();
    await page.getByRole('option', { name: 'Without any address' }).click();
    await page.getByTestId('contacts-empty').getByText('No contact matches this search.').waitFor(WAIT);
    await page.getByTestId('contacts-filter').click();
    await page.getByRole('option', { name: 'All contacts' }).click();

    await rows(page).getByRole('link', { name: 'Pat Lee' }).click();
    await page.getByTestId('contact-name').getByText('Pat Lee').waitFor(WAIT);
    await expect.poll(() => page.getByTestId('contact-conversation').count(), WAIT).toBe(2);
    const address = page.getByTestId('contact-address');
    expect(await address.textContent()).toContain('pat@example.org');

    // Merge Patricia (the same person, another address) into Pat.
    await page.getByTestId('contact-merge-search').fill('Patricia');
    await page.getByTestId('contact-merge-option').filter({ hasText: 'Patricia L.' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Merge Patricia L. into Pat Lee?').waitFor(WAIT);
    await modalSettled(page);
    await dialog.getByTestId('contact-merge-confirm').click();
    await expect.poll(() => page.getByTestId('contact-conversation').count(), WAIT).toBe(3);
    await expect.poll(() => address.count(), WAIT).toBe(2);
    await page.getByTestId('contact-merge').getByText('Patricia L.: 1 address, 1 conversation').waitFor(WAIT);
    await screenshot(page, 'contact-merged-light');
    expect(await axe(page, '[data-testid="contact-page"]')).toEqual([]);

    await page.getByTestId('contact-merge-undo').click();
    await expect.poll(() => page.getByTestId('contact-conversation').count(), WAIT).toBe(2);
    await expect.poll(() => address.count(), WAIT).toBe(1);
    expect(await page.getByTestId('contact-merge').count()).toBe(0);
    await page.getByRole('link', { name: 'All contacts' }).click();
    await page.getByTestId('contacts-search').fill('pat');
    await expect.poll(() => rows(page).count(), WAIT).toBe(2);

    // A conversation on the page opens it.
    await rows(page).getByRole('link', { name: 'Patricia L.' }).click();
    await page
      .getByTestId('contact-conversation')
      .getByRole('link', { name: /Invoice copy/ })
      .click();
    await page.waitForURL(/\/ticket\/\d+$/, WAIT);
    // The ticket's panel leads back to its contact.
    const back = page.getByTestId('ticket-info-contact');
    await back.getByText('Contact page · 1 conversation').waitFor(WAIT);
    await back.click();
    await page.getByTestId('contact-name').getByText('Patricia L.').waitFor(WAIT);
  });

  it('CONTACT a contact made by hand: a phone without its country code is refused in the dialog (dark)', async () => {
    const page = await open({ scheme: 'dark' });
    await page.goto(`${server.url}/contacts`);
    await page.getByTestId('contact-new').click();
    const dialog = page.getByRole('dialog');
    await modalSettled(page);
    await dialog.getByLabel('Name').fill('Lina Haddad');
    await dialog.getByLabel('Phone').fill('012 345 6789');
    await dialog.getByTestId('contact-save').click();
    await dialog
      .getByRole('alert')
      .getByText(
        'This phone number cannot be read. Write it with its country code, like +60 12 345 6789. (012 345 6789)',
      )
      .waitFor(WAIT);
    await screenshot(page, 'contact-new-error-dark');
    await dialog.getByLabel('Phone').fill('+60 12-345 6789');
    await dialog.getByLabel('ID type').click();
    await page.getByRole('option', { name: 'Passport No.' }).click();
    await dialog.getByLabel('Refuses to provide').check();
    await dialog.getByTestId('contact-save').click();
    await page.waitForURL(/\/contacts\/\d+$/, WAIT);
    await page.getByTestId('contact-name').getByText('Lina Haddad').waitFor(WAIT);
    await page.getByText('Passport No.: Refuses to provide').waitFor(WAIT);
    expect(await page.getByTestId('contact-address').textContent()).toContain('+60123456789');
    await screenshot(page, 'contact-page-dark');
  });

  it('CONTACT a CSV import is checked first: bad rows by number, then the good rows are imported (phone)', async () => {
    const page = await open({ phone: true });
    await page.goto(`${server.url}/contacts`);
    await page.getByTestId('contacts-total').waitFor(WAIT);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog');
    await modalSettled(page);
    const csv = [
      'name,email,phone',
      'Noor Aziz,noor@example.org,',
      'Bad Mail,not-an-address,',
      'Omar Said,,+44 20 7946 0958',
    ];
    await page.setInputFiles('input[type="file"]', {
      name: 'contacts.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv.join('\n')),
    });
    await dialog.getByTestId('contacts-import-check').click();
    await dialog.getByText('3 rows: 2 new, 0 to update.').waitFor(WAIT);
    await dialog.getByText('Row 3: This is not an e-mail address. (not-an-address)').waitFor(WAIT);
    await screenshot(page, 'contacts-import-phone-light');
    await dialog.getByTestId('contacts-import-run').click();
    await dialog.getByText('Imported: 2 new, 0 updated.').waitFor(WAIT);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', ...WAIT });
    await page.getByTestId('contacts-search').fill('Omar');
    await expect.poll(() => rows(page).count(), WAIT).toBe(1);
    await rows(page).getByRole('link', { name: 'Omar Said' }).waitFor(WAIT);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await screenshot(page, 'contacts-list-phone-light');
  });
});
