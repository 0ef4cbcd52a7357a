import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, launchBrowser, PASSWORD, type RunningServer, screenshot, signInAs, startServer } from './support.js';

const DAY_MS = 86_400_000;
const pad = (n: number) => String(n).padStart(2, '0');
/** DD-MM-YYYY of a moment, in this process's (and the browser's) time zone. */
const picker = (ms: number) => {
  const d = new Date(ms);
  return `${pad(d.getDate())}-${pad(d.getMonth() + 1)}-${d.getFullYear()}`;
};
/** The report's heading of a moment: D/M/YYYY. */
const heading = (ms: number) => {
  const d = new Date(ms);
  return `${d.getDate()}/${d.getMonth() + 1}/${d.getFullYear()}`;
};

/**
 * The ticket summary in Chromium: a supervisor and an admin open it, pick a range, read tickets grouped by
 * day and load more; an agent cannot.
 */
describe('ticket summary report in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const now = Date.now();

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const setup = await apiJson(`${server.url}/api/setup`, 'POST', {
      company: 'Acme Support',
      name: 'Ann Admin',
      username: 'ann',
      email: 'ann@example.com',
      password: PASSWORD,
    });
    const admin = setup.token as string;
    for (const [username, type] of [
      ['sue', 'supervisor'],
      ['amy', 'agent'],
    ])
      await apiJson(
        `${server.url}/api/users`,
        'POST',
        { username, name: username, email: `${username}@example.com`, type, password: PASSWORD },
        admin,
      );
    const ids: number[] = [];
    for (let i = 1; i <= 33; i++)
      ids.push(
        (
          await apiJson(
            `${server.url}/api/ticket/create`,
            'POST',
            { title: `Report ticket ${i}`, name: 'Casey' },
            admin,
          )
        ).data.id,
      );
    // Spread over three days: 3 today, 28 yesterday, 2 three days ago; the newest is a rated live chat.
    const sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
    const set = sqlite.prepare('update tickets set created_at = ?, updated_at = ? where id = ?');
    ids.forEach((id, i) => {
      const at = i < 2 ? now - 3 * DAY_MS + i * 1000 : i < 30 ? now - DAY_MS + i * 1000 : now - (33 - i) * 60_000;
      set.run(at, at, id);
    });
    const chat = ids[32]!;
    const accountId = sqlite.prepare('select id from accounts').pluck().get() as number;
    sqlite.prepare(`update tickets set channel = 'LIVECHAT' where id = ?`).run(chat);
    const visitor = sqlite
      .prepare(`insert into livechat_visitors (account_id, csrf_hash, created_at) values (?, 'e2e-report', ?)`)
      .run(accountId, now).lastInsertRowid;
    sqlite
      .prepare(
        `insert into livechats (account_id, visitor_id, session_id, state, name, phone, email, message, ticket_id,
          queued_at, accepted_at, ended_at, rating, reason, rated_at)
         values (?, ?, 1, 'ended', 'Casey', '', '', 'hi', ?, ?, ?, ?, 5, 'Very helpful', ?)`,
      )
      .run(accountId, visitor, chat, now, now, now, now);
    sqlite.close();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function as(
    username: string,
    viewport: { width: number; height: number },
    colorScheme: 'light' | 'dark',
  ): Promise<Page> {
    const ctx = await browser.newContext({ viewport, colorScheme });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, server.url, username);
    return page;
  }

  const rows = (page: Page) => page.getByTestId('report-row');
  const headings = async (page: Page) => page.getByTestId('report-heading').allTextContents();

  it('REPORT-02 REPORT-05 REPORT-06 REPORT-07 REPORT-08 REPORT-12 a supervisor picks a range, reads groups by day and loads more', async () => {
    const page = await as('sue', { width: 1440, height: 900 }, 'light');
    await page.goto(`${server.url}/report/all/all`);
    await page.getByRole('heading', { name: 'Ticket Summary' }).waitFor();
    // REPORT-08: the range shows DD-MM-YYYY; by default the last seven days up to today.
    expect(await page.getByTestId('report-to').inputValue()).toBe(picker(now));
    expect(await page.getByTestId('report-from').inputValue()).toBe(picker(now - 6 * DAY_MS));
    await rows(page).first().waitFor();
    // REPORT-12: the first 30 (newest first): today's 3, then 27 of yesterday's 28.
    expect(await rows(page).count()).toBe(30);
    expect(await headings(page)).toEqual([heading(now), heading(now - DAY_MS)]);
    // REPORT-06 columns, and REPORT-07's rating and reason on the live chat.
    const header = await page.getByTestId('report-table').locator('thead th').allTextContents();
    expect(header).toEqual([
      'Ticket number',
      'Title',
      'Channel',
      'Label',
      'Closed status',
      'Assignee',
      'Department',
      'Created',
      'Updated',
      'SLA',
      'Rating',
      'Reason',
    ]);
    const chatRow = rows(page).first();
    expect(await chatRow.textContent()).toContain('Report ticket 33');
    expect(await chatRow.textContent()).toContain('Live Chat');
    expect(await chatRow.getByTestId('report-rating').textContent()).toBe('5');
    expect(await chatRow.textContent()).toContain('Very helpful');
    expect(await chatRow.textContent()).toContain('Open');
    await screenshot(page, 'report-1440-light');

    // Load more: the last 3 arrive (one more of yesterday's, joined to its group, and the day three days ago).
    await page.getByTestId('report-more').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="report-row"]').length === 33);
    expect(await headings(page)).toEqual([heading(now), heading(now - DAY_MS), heading(now - 3 * DAY_MS)]);
    // Fewer than 30 came: no more to load.
    expect(await page.getByTestId('report-more').count()).toBe(0);

    // REPORT-09: the end cannot be in the future; one day is a range (minimum nights 0).
    await page.getByTestId('report-to').fill(picker(now + 2 * DAY_MS));
    await page.getByText('The end cannot be in the future.').waitFor();
    await page.getByTestId('report-to').fill(picker(now - DAY_MS));
    await page.getByTestId('report-from').fill(picker(now - DAY_MS));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="report-row"]').length === 28);
    expect(await headings(page)).toEqual([heading(now - DAY_MS)]);

    // REPORT-04: type and status are the path; live chats alone show only the rated chat of today.
    await page.getByTestId('report-from').fill(picker(now - 6 * DAY_MS));
    await page.getByTestId('report-to').fill(picker(now));
    await page.getByTestId('report-type').click();
    await page.getByRole('option', { name: 'Live Chat' }).click();
    await page.waitForURL(/\/report\/livechat\/all$/);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="report-row"]').length === 1);
    await page.getByTestId('report-status').click();
    await page.getByRole('option', { name: 'Closed' }).click();
    await page.waitForURL(/\/report\/livechat\/closed$/);
    await page.getByTestId('report-empty').waitFor();
    expect(await rows(page).count()).toBe(0);
  });

  it('REPORT-01 REPORT-03 an admin reads it at 390x844 in the dark', async () => {
    const page = await as('ann', { width: 390, height: 844 }, 'dark');
    await page.goto(`${server.url}/report/ticket/open`);
    await rows(page).first().waitFor();
    // Tickets only: the live chat is left out, so 30 of the 32 e-mail tickets, then the last 2.
    expect(await rows(page).count()).toBe(30);
    expect(await page.getByTestId('report-table').locator('thead th').allTextContents()).not.toContain('Rating');
    await screenshot(page, 'report-390-dark');
    await page.getByTestId('report-more').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="report-row"]').length === 32);
    // The omnichannel report (where the navigation's Report goes) leads to the ticket summary.
    await page.goto(`${server.url}/report/omnichannel`);
    await page.getByRole('link', { name: 'Ticket summary' }).click();
    await page.waitForURL(/\/report\/all\/all$/);
    await rows(page).first().waitFor();
  });

  it('REPORT-27 a failed load shows no error: loading simply stops', async () => {
    const page = await as('sue', { width: 1440, height: 900 }, 'light');
    await page.goto(`${server.url}/report/all/all`);
    await rows(page).first().waitFor();
    // The next page's call fails: the rows stay, no error is shown, the loader goes and no Load more remains.
    await page.route('**/report/generate?*', (route) => route.fulfill({ status: 500, body: '{}' }));
    await page.getByTestId('report-more').click();
    await page.waitForFunction(() => !document.querySelector('[aria-label="Loading"]'));
    expect(await rows(page).count()).toBe(30);
    expect(await page.getByTestId('report-more').count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByText(/error|failed/i).count()).toBe(0);
    // A failed first load: nothing shown, and no claim that the range is empty.
    await page.getByTestId('report-from').fill(picker(now - 2 * DAY_MS));
    await page.waitForFunction(() => !document.querySelector('[data-testid="report-row"]'));
    await page.waitForFunction(() => !document.querySelector('[aria-label="Loading"]'));
    expect(await page.getByTestId('report-empty').count()).toBe(0);
    expect(await page.getByText(/error|failed/i).count()).toBe(0);
  });

  it('REPORT-01 an agent cannot read the report', async () => {
    const page = await as('amy', { width: 1440, height: 900 }, 'light');
    await page.goto(`${server.url}/report/all/all`);
    await page
      .getByTestId('empty-screen')
      .getByText('Only admins and users with the view_report permission can read reports.')
      .waitFor();
    expect(await rows(page).count()).toBe(0);
    // The server refuses the agent as well.
    const token = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'amy', password: PASSWORD })).token;
    const day = new Date(now).toISOString().slice(0, 10);
    const r = await fetch(`${server.url}/report/generate?type=all&status=all&startDate=${day}&endDate=${day}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(r.status).toBe(403);
  });
});
