import { APPOINTMENT_KEY } from '@parley/contracts';
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
const pad = (n: number) => String(n).padStart(2, '0');
/** A day of this month as YYYY-MM-DD in this process's (and the browser's) time zone. */
const thisMonth = (day: number) => {
  const d = new Date();
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(day)}`;
};
/** The same day as the app shows it, D/M/YYYY. */
const shownDay = (day: number) => {
  const d = new Date();
  return `${day}/${d.getMonth() + 1}/${d.getFullYear()}`;
};

/**
 * The calendar in Chromium: this month's grid shows a holiday, a customer's appointment and an event; an
 * event is made from the grid and opens its page; the phone shows the month as an agenda; the feed address is
 * offered.
 */
describe('calendar in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    await apiJson(
      `${server.url}/api/sla/holidays`,
      'POST',
      { departmentId: null, holidays: [{ date: thisMonth(12), name: 'Founders day' }] },
      admin,
    );
    await apiJson(
      `${server.url}/api/ticket/create`,
      'POST',
      { title: 'Boiler service', name: 'Lina', email: 'lina@example.org', other: { [APPOINTMENT_KEY]: thisMonth(14) } },
      admin,
    );
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

  it('SHELL-20 SHELL-21 the month shows a holiday and an appointment; an event made from a day opens its page', async () => {
    const page = await open();
    await page.goto(`${server.url}/calendar`);
    const day = (d: number) => page.locator(`[data-testid="calendar-day"][data-day="${thisMonth(d)}"]`);
    await day(12).getByTestId('calendar-holiday').getByText('Founders day').waitFor(WAIT);
    await day(14).getByTestId('calendar-appointment').getByText('Appointment: Lina #1').waitFor(WAIT);
    await day(20)
      .getByRole('button', { name: `New event on ${shownDay(20)}` })
      .click();
    const dialog = page.getByRole('dialog');
    await modalSettled(page);
    await dialog.getByLabel('Title').fill('Quarterly review');
    await dialog.getByLabel('Starts').fill('14:00');
    await dialog.getByLabel('Ends').fill('15:30');
    await dialog.getByTestId('event-save').click();
    await page.waitForURL(/\/calendar\/event\/\d+$/, WAIT);
    await page.getByRole('heading', { name: 'Quarterly review' }).waitFor(WAIT);
    await page.getByText(`${shownDay(20)} 14:00 – 15:30`).waitFor(WAIT);
    await page.getByRole('link', { name: 'Calendar' }).first().click();
    await day(20).getByTestId('calendar-event').getByText('14:00 Quarterly review').waitFor(WAIT);
    const violations = await axe(page, '[data-testid="calendar"]');
    expect(violations, violations.join('\n')).toEqual([]);
    await screenshot(page, 'calendar-month-light');

    await page.getByTestId('calendar-feed').click();
    // The feed's address comes by its own request after the click: read once it is there.
    const feed = page.getByTestId('calendar-feed-url');
    await expect.poll(() => feed.inputValue(), { timeout: 15_000 }).toMatch(/^https?:\/\//);
    const url = await feed.inputValue();
    const ics = await (await fetch(url)).text();
    expect(ics).toContain('SUMMARY:Quarterly review');
  });

  it('SHELL-21 on a phone the month is an agenda of the busy days (dark)', async () => {
    const page = await open({ phone: true, scheme: 'dark' });
    await page.goto(`${server.url}/calendar`);
    const agenda = page.getByTestId('calendar-agenda');
    await agenda.getByText('Founders day').waitFor(WAIT);
    await agenda.getByText('Appointment: Lina #1').waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'calendar-agenda-phone-dark');
  });
});
