import path from 'node:path';
import { SCHEDULED_STRINGS } from '@parley/contracts';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/**
 * "Send later" in Chromium: an agent schedules the text in the composer for a time, sees it listed above the
 * composer, cancels one, and the other goes at its time as their message (the time moved close in the
 * database, so the test does not wait for a real minute).
 */
describe('scheduled messages in Chromium', () => {
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

  async function open(where: string, scheme: 'light' | 'dark', width = 1440): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width, height: width < 500 ? 844 : 900 },
      colorScheme: scheme,
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'amy');
    await page.goto(`${server.url}${where}`);
    return page;
  }
  const newTicket = async (title: string) =>
    (await apiJson(`${server.url}/api/ticket/create`, 'POST', { title }, admin)).data.id as number;
  const schedule = async (page: Page, text: string) => {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('schedule-open').click();
    const when = page.getByTestId('schedule-when');
    await when.waitFor();
    // Tomorrow at 09:00 is offered first.
    expect(await when.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}T09:00$/);
    await page.getByTestId('schedule-save').click();
    await page.getByTestId('scheduled-item').filter({ hasText: text }).waitFor();
  };

  it('SCHEDULED an agent schedules two replies, cancels one; the other goes at its time as theirs (light, 1440)', async () => {
    const ticket = await newTicket('Follow-up needed');
    const page = await open(`/ticket/${ticket}`, 'light');
    await page.getByTestId('composer-input').waitFor();
    await schedule(page, 'Checking in on your order.');
    expect(await page.getByTestId('composer-input').inputValue()).toBe('');
    await schedule(page, 'Never mind this one.');
    expect(await page.getByTestId('scheduled-item').count()).toBe(2);
    expect(await page.getByTestId('scheduled-item').first().textContent()).toContain('Scheduled for');
    await screenshot(page, 'scheduled-list-light');
    expect(await axe(page, '[data-testid="scheduled-list"]')).toEqual([]);

    await page.getByTestId('scheduled-item').filter({ hasText: 'Never mind' }).getByTestId('scheduled-cancel').click();
    await page.getByText(SCHEDULED_STRINGS.cancelled).first().waitFor();
    await expect.poll(() => page.getByTestId('scheduled-item').count()).toBe(1);

    const d = new Database(path.join(server.dataDir, 'parley.db'));
    d.pragma('busy_timeout = 5000');
    d.prepare("update scheduled_messages set send_at = ? where state = 'pending' and ticket_id = ?").run(
      Date.now() + 500,
      ticket,
    );
    d.close();
    const sent = page.getByTestId('message').filter({ hasText: 'Checking in on your order.' });
    await sent.waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('scheduled-item').count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByTestId('message').filter({ hasText: 'Never mind this one.' }).count()).toBe(0);
    const history = await apiJson(`${server.url}/api/ticket/data3/${ticket}/0`, 'GET', undefined, admin);
    const mine = history.data.filter((m: { message: string }) => m.message === 'Checking in on your order.');
    expect(mine.map((m: { sender: string; senderName: string }) => [m.sender, m.senderName])).toEqual([
      ['amy', 'Amy Agent'],
    ]);
  });

  it('SCHEDULED a time in the past is refused in the popover with the server words; on a phone in dark', async () => {
    const ticket = await newTicket('Phone check');
    const page = await open(`/ticket/${ticket}`, 'dark', 390);
    await page.getByTestId('composer-input').waitFor();
    await page.getByTestId('composer-input').fill('Too late for this');
    await page.getByTestId('schedule-open').click();
    await page.getByTestId('schedule-when').fill('2020-01-01T09:00');
    await page.getByTestId('schedule-save').click();
    await page.getByRole('alert').filter({ hasText: SCHEDULED_STRINGS.inPast }).waitFor();
    await screenshot(page, 'scheduled-past-phone-dark');
    expect(await page.getByTestId('scheduled-item').count()).toBe(0);
    expect(await page.getByTestId('composer-input').inputValue()).toBe('Too late for this');
  });
});
