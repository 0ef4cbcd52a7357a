import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  PASSWORD,
  type RunningServer,
  screenshot,
  signInAs,
  startServer,
  tokenOf,
} from './support.js';

/**
 * The call report in Chromium: calls made through the softphone's API (start and end) show in the figures,
 * the chart and the tables of a supervisor's report; an agent without view_report cannot read it.
 */
describe('call report in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const setup = await apiJson(`${server.url}/api/setup`, 'POST', {
      company: 'Acme Calls',
      name: 'Ann Admin',
      username: 'ann',
      email: 'ann@example.com',
      password: PASSWORD,
    });
    const admin = setup.token as string;
    for (const [username, type] of [
      ['sue', 'supervisor'],
      ['amy', 'agent'],
    ] as const)
      await apiJson(
        `${server.url}/api/users`,
        'POST',
        {
          username,
          name: `${username[0]!.toUpperCase()}${username.slice(1)}`,
          email: `${username}@example.com`,
          type,
          password: PASSWORD,
        },
        admin,
      );
    const amy = await tokenOf(server.url, 'amy');
    await apiJson(`${server.url}/api/call/did`, 'POST', { did: '+6560001111', description: 'Sales line' }, admin);
    // Amy: two answered inbound calls (90 s, 150 s), one missed, one outbound of 60 s; Ann: one outbound of 30 s.
    const calls: [string, 'inbound' | 'outbound', number, string][] = [
      [amy, 'inbound', 90, '+6560001111'],
      [amy, 'inbound', 150, '+6560001111'],
      [amy, 'inbound', 0, '+6560002222'],
      [amy, 'outbound', 60, '+6560001111'],
      [admin, 'outbound', 30, ''],
    ];
    let n = 0;
    for (const [token, direction, duration, did] of calls) {
      const call_id = `e2e-call-${++n}`;
      await apiJson(
        `${server.url}/api/call/start`,
        'POST',
        { call_id, direction, number: `+659100000${n}`, did },
        token,
      );
      await apiJson(`${server.url}/api/call/end`, 'POST', { call_id, duration }, token);
    }
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function as(username: string, viewport: { width: number; height: number }, colorScheme: 'light' | 'dark') {
    const ctx = await browser.newContext({ viewport, colorScheme });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, server.url, username);
    return page;
  }
  it('NAV-18 REPORT-03 a supervisor reads the calls of today: figures, the chart and the tables, at 1440 light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await as('sue', { width: 1440, height: 900 }, scheme);
      await page.goto(`${server.url}/report/call`);
      await page.getByRole('heading', { name: 'Call Report' }).waitFor();
      await page.getByTestId('call-report-chart').locator('.recharts-bar-rectangle path').first().waitFor();
      const totals = await page.getByTestId('call-report-totals').innerText();
      // 5 calls: 3 inbound, 2 outbound, 4 answered, 1 missed, average (90 + 150 + 60 + 30) / 4 = 82.5 s.
      expect(totals).toMatch(/Calls\s+5/i);
      expect(totals).toMatch(/Inbound\s+3/i);
      expect(totals).toMatch(/Outbound\s+2/i);
      expect(totals).toMatch(/Answered\s+4/i);
      expect(totals).toMatch(/Missed\s+1/i);
      const agents = page.getByTestId('call-report-agents').getByTestId('call-report-row');
      expect(await agents.count()).toBe(2);
      expect(await agents.first().innerText()).toMatch(
        /Amy[\s\S]*amy[\s\S]*\b4\b[\s\S]*\b3\b[\s\S]*\b1\b[\s\S]*\b3\b[\s\S]*\b1\b/,
      );
      const dids = await page.getByTestId('call-report-dids').innerText();
      expect(dids).toContain('Sales line');
      expect(dids).toContain('No DID');
      await screenshot(page, `call-report-1440-${scheme}`);
    }
  });

  it('REPORT-03 at 390x844 the figures stack and the tables scroll; the export link downloads the calls', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await as('ann', { width: 390, height: 844 }, scheme);
      await page.goto(`${server.url}/report/call`);
      await page.getByTestId('call-report-chart').locator('.recharts-bar-rectangle path').first().waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
      await screenshot(page, `call-report-390-${scheme}`);
      if (scheme === 'light') {
        const download = page.waitForEvent('download');
        await page.getByTestId('call-report-export').click();
        const file = await download;
        expect(file.suggestedFilename()).toMatch(/^calls-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
        const text = await (await fetch(file.url())).text();
        expect(text.trim().split('\r\n')).toHaveLength(6);
      }
    }
  });

  it('REPORT-01 NAV-18 an agent without view_report gets the sentence', async () => {
    const page = await as('amy', { width: 1440, height: 900 }, 'light');
    await page.goto(`${server.url}/report/call`);
    await page.getByText('Only admins and users with the view_report permission can read reports.').waitFor();
  });
});
