import fs from 'node:fs';
import path from 'node:path';
import { RETENTION_STRINGS as R } from '@parley/contracts';
import Database from 'better-sqlite3';
import JSZip from 'jszip';
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
const DAY = 24 * 3600 * 1000;

/**
 * Settings -> Data retention in Chromium: an admin adds a rule, sees what it would remove before saving and on
 * the list, runs it now and sees the run; then exports a contact's data (a ZIP) and erases the contact.
 */
describe('data retention in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  const contexts: BrowserContext[] = [];

  function run(sql: string, ...args: unknown[]) {
    const d = new Database(path.join(server.dataDir, 'parley.db'));
    d.pragma('busy_timeout = 5000');
    try {
      return d.prepare(sql).run(...args);
    } finally {
      d.close();
    }
  }
  function get<T>(sql: string, ...args: unknown[]): T | undefined {
    const d = new Database(path.join(server.dataDir, 'parley.db'));
    d.pragma('busy_timeout = 5000');
    try {
      return d.prepare(sql).get(...args) as T | undefined;
    } finally {
      d.close();
    }
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url);
    const ticket = (title: string, name: string, email: string) =>
      apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name, email }, admin);
    await ticket('Old refund', 'Pat Lee', 'pat@example.org');
    await ticket('Recent question', 'Sam Ortiz', 'sam@example.org');
    // Both closed; Pat's 40 days ago, Sam's yesterday (written straight into the database).
    run('update tickets set closed = 3, updated_at = ? where title = ?', Date.now() - 40 * DAY, 'Old refund');
    run('update tickets set closed = 3, updated_at = ? where title = ?', Date.now() - DAY, 'Recent question');
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark', width = 1440): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width, height: width < 500 ? 844 : 900 },
      colorScheme: scheme,
      acceptDownloads: true,
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    return page;
  }
  const pick = async (page: Page, testId: string, option: string) => {
    await page.getByTestId(testId).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  };

  it('RET-07 an admin adds a rule, sees the preview before saving and before the run, runs it now and sees the run', async () => {
    const page = await open('light');
    await page.goto(`${server.url}/settings/retention`);
    await page.getByTestId('retention-card').getByText(R.noRules).waitFor(WAIT);
    await page.getByTestId('retention-new').click();
    await modalSettled(page);
    await pick(page, 'retention-action', 'Delete');
    await page.getByTestId('retention-days').fill('30');
    // What the rule would remove now, before it is saved: Pat's old ticket only.
    const draft = page.getByTestId('retention-draft-preview');
    await expect.poll(() => draft.textContent(), WAIT).toContain('#1');
    expect(await draft.textContent()).not.toContain('#2');
    await screenshot(page, 'retention-form-light');
    // Bad input is refused with the server's words and nothing is saved.
    await page.getByTestId('retention-days').fill('0');
    await page.getByTestId('retention-save').click();
    await page.getByText(R.daysRange).first().waitFor(WAIT);
    expect(get<{ n: number }>('select count(*) as n from retention_rules')?.n).toBe(0);
    await page.getByTestId('retention-days').fill('30');
    await page.getByTestId('retention-save').click();
    const rule = page.getByTestId('retention-rule');
    await rule.waitFor(WAIT);
    await expect.poll(() => rule.getByTestId('retention-preview-count').textContent(), WAIT).toContain('#1');
    await screenshot(page, 'retention-1440-light');
    expect(await axe(page, '[data-testid="retention-card"]')).toEqual([]);

    await page.getByTestId('retention-run-now').click();
    await modalSettled(page);
    await page.getByTestId('retention-run-confirm').click();
    await expect.poll(() => page.getByTestId('retention-run').count(), WAIT).toBe(1);
    expect(await page.getByTestId('retention-run').textContent()).toContain(': 1');
    await expect.poll(() => rule.getByTestId('retention-preview-count').textContent(), WAIT).toBe(R.nothing);
    expect(get("select id from tickets where title = 'Old refund'")).toBeUndefined();
    expect(get("select id from tickets where title = 'Recent question'")).toBeTruthy();
  });

  it('RET-08 the screen on a phone and at 1440, light and dark (screenshots)', async () => {
    for (const [width, scheme] of [
      [390, 'light'],
      [390, 'dark'],
      [1440, 'dark'],
    ] as const) {
      const page = await open(scheme, width);
      await page.goto(`${server.url}/settings/retention`);
      await page.getByTestId('retention-rule').waitFor(WAIT);
      await page.getByTestId('retention-run').waitFor(WAIT);
      await screenshot(page, `retention-${width}-${scheme}`);
      expect(await axe(page, '[data-testid="retention-card"]')).toEqual([]);
    }
  });

  it('RET-09 an admin exports a contact (a ZIP with every message of it) and erases it after typing its name', async () => {
    const page = await open('light');
    await page.goto(`${server.url}/contacts`);
    await page.getByTestId('contact-row').getByRole('link', { name: 'Sam Ortiz' }).click();
    await page.getByTestId('contact-name').getByText('Sam Ortiz').waitFor(WAIT);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('contact-export-data').click(),
    ]);
    const zip = await JSZip.loadAsync(fs.readFileSync((await download.path())!));
    const data = JSON.parse(await zip.file('contact.json')!.async('string'));
    expect(data.contact.name).toBe('Sam Ortiz');
    expect(data.tickets.map((t: { title: string }) => t.title)).toEqual(['Recent question']);
    expect(JSON.stringify(data)).not.toContain('Pat');

    await page.getByTestId('contact-erase').click();
    await modalSettled(page);
    await page.getByTestId('contact-erase-typed').fill('Sam');
    await page.getByTestId('contact-erase-confirm').click();
    await page.getByText(R.eraseMismatch).waitFor(WAIT);
    await screenshot(page, 'retention-erase-light');
    await page.getByTestId('contact-erase-typed').fill('Sam Ortiz');
    await page.getByTestId('contact-erase-confirm').click();
    await page.waitForURL(/\/contacts$/, WAIT);
    expect(get("select id from tickets where title = 'Recent question'")).toBeUndefined();
    expect(get("select id from contacts where name = 'Sam Ortiz'")).toBeUndefined();
    expect(get("select id from audit_log where action = 'contact.erased'")).toBeTruthy();
  });
});
