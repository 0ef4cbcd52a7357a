import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, PASSWORD, type RunningServer, screenshot, signInAs, startDemo } from './support.js';

/**
 * The omnichannel report in Chromium over the demo workspace (300 conversations over 30 days, their facts built
 * by the demo's backfill): a supervisor reads the chart, the totals and the tables, changes the step, and
 * downloads the workbook; an agent is told they cannot.
 */
describe('omnichannel report in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password: string;
  const contexts: BrowserContext[] = [];
  // A loopback stand-in of an analytics page (ANALYTICS_URL): it shows the query it was opened with.
  const analytics = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Analytics</title><p id="feature">${q.get('feature')}</p><p id="dark">${q.get('dark')}</p><p id="token">${q.get('token')}</p>`,
    );
  });

  beforeAll(async () => {
    await new Promise<void>((r) => analytics.listen(0, '127.0.0.1', r));
    const analyticsUrl = `http://127.0.0.1:${(analytics.address() as AddressInfo).port}/embed`;
    ({ server, browser, password } = await startDemo({ tickets: 300, env: { ANALYTICS_URL: analyticsUrl } }));
    const admin = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password })).token;
    await apiJson(
      `${server.url}/api/users`,
      'POST',
      { username: 'sue', name: 'Sue Supervisor', email: 'sue@example.com', type: 'supervisor', password: PASSWORD },
      admin,
    );
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.stop();
    analytics.close();
  });

  const as = async (username: string, viewport: { width: number; height: number }, scheme: 'light' | 'dark') => {
    const context = await browser.newContext({ viewport, colorScheme: scheme, acceptDownloads: true });
    contexts.push(context);
    const page = await context.newPage();
    await signInAs(page, server.url, username, username === 'sue' ? PASSWORD : password);
    return page;
  };
  /** The chart has drawn at least one bar with a height (a bucket with conversations). */
  const barsDrawn = (page: Page) =>
    page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="report-chart"] .recharts-bar-rectangle')].some(
        (b) => b.getBoundingClientRect().height > 0,
      ),
    );
  const figure = (page: Page, i: number) => page.getByTestId('report-figure').nth(i).textContent();

  it('REPORT-03 REPORT-13 REPORT-16 REPORT-18 REPORT-21 a supervisor reads the chart, totals and tables; the step changes the chart', async () => {
    const page = await as('sue', { width: 1440, height: 900 }, 'light');
    await page.goto(`${server.url}/report/omnichannel`);
    const chart = page.getByTestId('report-chart');
    await barsDrawn(page);
    // The demo's last seven days hold conversations of several channel groups: the legend names them.
    const legend = (await chart.textContent()) ?? '';
    expect(legend).toContain('Mobile Messaging');
    expect(legend).toContain('Social Media');
    const conversations = Number(await figure(page, 0));
    expect(conversations).toBeGreaterThan(20);
    // First response p50 reads as a duration (the demo's agents answer 10 minutes after each message).
    expect(await figure(page, 1)).toBe('10 min');
    // The tables: by channel group, by agent (display names), by team.
    const groups = page.getByTestId('report-groups').getByTestId('report-performance-row');
    expect(await groups.count()).toBeGreaterThan(1);
    const total = (await groups.evaluateAll((rows) => rows.map((r) => Number(r.children[1]?.textContent)))).reduce(
      (a, b) => a + b,
      0,
    );
    expect(total).toBe(conversations);
    expect(await page.getByTestId('report-agents').textContent()).toMatch(/Agent|Unassigned/);
    // REPORT-25: the analytics page in its frame, opened with the feature, the light flag and a token that reads
    // the report's export.
    const frame = page.frameLocator('[data-testid="report-analytics"] iframe');
    expect(await frame.locator('#feature').textContent()).toBe('omnichannel');
    expect(await frame.locator('#dark').textContent()).toBe('0');
    const token = (await frame.locator('#token').textContent()) ?? '';
    const today = new Date().toISOString().slice(0, 10);
    expect((await fetch(`${server.url}/api/report/export/${token}/${today}/${today}/60/intervals.csv`)).status).toBe(
      200,
    );
    await screenshot(page, 'omnichannel-1440-light');

    // Hourly over seven days is 168 bars' slots; a day step draws seven.
    const hourly = await chart.locator('.recharts-xAxis .recharts-cartesian-axis-tick').count();
    await page.getByTestId('report-interval').click();
    await page.getByRole('option', { name: 'Day' }).click();
    await page.waitForFunction(
      (before) =>
        document.querySelectorAll('[data-testid="report-chart"] .recharts-xAxis .recharts-cartesian-axis-tick')
          .length !== before,
      hourly,
    );
    expect(await chart.locator('.recharts-xAxis .recharts-cartesian-axis-tick').count()).toBeLessThanOrEqual(7);

    // REPORT-23: the workbook downloads through the export link (token, dates and step in its path).
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      (async () => {
        await page.getByTestId('report-export').click();
        await page.getByRole('menuitem', { name: 'Excel (XLSX)' }).click();
      })(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.xlsx$/);
    expect(download.url()).toMatch(
      /\/api\/report\/export\/[\w-]+\/\d{4}-\d{2}-\d{2}\/\d{4}-\d{2}-\d{2}\/1440\/report\.xlsx/,
    );
  });

  it('REPORT-01 dark at 1440 and on a phone; an agent is told only admins and view_report may read it', async () => {
    const dark = await as('sue', { width: 1440, height: 900 }, 'dark');
    await dark.goto(`${server.url}/report/omnichannel`);
    await barsDrawn(dark);
    await dark.getByTestId('report-aux').waitFor();
    expect(await dark.frameLocator('[data-testid="report-analytics"] iframe').locator('#dark').textContent()).toBe('1');
    await screenshot(dark, 'omnichannel-1440-dark');

    const phone = await as('sue', { width: 390, height: 844 }, 'dark');
    await phone.goto(`${server.url}/report/omnichannel`);
    await barsDrawn(phone);
    // Nothing wider than the screen: tables scroll inside their own box.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(phone, 'omnichannel-390-dark');

    const agent = await as('demo-agent1', { width: 1440, height: 900 }, 'light');
    await agent.goto(`${server.url}/report/omnichannel`);
    await agent.getByText('Only admins and users with the view_report permission can read reports.').waitFor();
    expect(await agent.getByTestId('omnichannel-report').count()).toBe(0);
  });
  it('SHELL-07 SHELL-08 a supervisor shares a public dashboard; signed out it shows the figures with no way in; removed it stops', async () => {
    const page = await as('sue', { width: 1440, height: 900 }, 'light');
    await page.goto(`${server.url}/report/omnichannel`);
    await page.getByTestId('dashboard-open').click();
    await page.getByTestId('dashboard-name').fill('Lobby wallboard');
    await page.getByRole('button', { name: 'Create link' }).click();
    const link = (await page.getByTestId('dashboard-link').textContent()) ?? '';
    expect(link).toMatch(/\/dashboard\/[\w-]{40,}$/);
    await page.getByTestId('dashboard-row').filter({ hasText: 'Lobby wallboard' }).waitFor();

    // A browser with no session: the figures, the chart, no navigation and no link into the workspace.
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
    contexts.push(context);
    const visitor = await context.newPage();
    await visitor.goto(link);
    await visitor.getByTestId('public-dashboard').waitFor();
    await visitor.getByRole('heading', { name: 'Lobby wallboard' }).waitFor();
    await barsDrawn(visitor);
    expect(Number(await figure(visitor, 0))).toBeGreaterThan(0);
    expect(await visitor.getByRole('navigation').count()).toBe(0);
    expect(await visitor.locator('a[href]').count()).toBe(0);
    // No agent's name is on it.
    expect(await visitor.locator('body').textContent()).not.toMatch(/Alex Agent|Kim Agent|Sam Supervisor/);
    await screenshot(visitor, 'dashboard-public-1440-light');
    await visitor.setViewportSize({ width: 390, height: 844 });
    // The chart follows the new width once its resize observer has run: then nothing is wider than the screen.
    await visitor.waitForFunction(() => document.documentElement.scrollWidth <= 390);
    await screenshot(visitor, 'dashboard-public-390-light');

    await page.getByRole('button', { name: 'Remove Lobby wallboard' }).click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="dashboard-row"]'));
    await visitor.reload();
    await visitor.getByTestId('dashboard-missing').waitFor();
    expect(await visitor.getByTestId('dashboard-missing').textContent()).toBe(
      'This dashboard link is not valid or was removed.',
    );
  });
});
