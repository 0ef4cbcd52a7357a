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

const WAIT = { timeout: 20_000 };

/*
 * Time tracking in Chromium (SHELL-12, SHELL-13 design; docs/timer.md): an agent starts and stops the timer
 * in a ticket's info panel, adds time by hand, and finds both on /timer with the totals.
 */
describe('time tracking in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let ticketId = 0;
  let otherId = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    const made = await apiJson(
      `${server.url}/api/ticket/create`,
      'POST',
      { title: 'Printer on fire', name: 'Pat', email: 'pat@example.org' },
      admin,
    );
    ticketId = made.data.id;
    otherId = (await apiJson(`${server.url}/api/ticket/create`, 'POST', { title: 'Refund please' }, admin)).data.id;
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark', phone = false, user = 'amy'): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1600, height: 1000 },
      colorScheme: scheme,
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, user);
    return page;
  }

  it('SHELL-12 the timer runs and stops on a ticket, time is added by hand, and /timer lists both with totals', async () => {
    const page = await open('light');
    await page.goto(`${server.url}/ticket/${ticketId}`);
    const time = page.getByTestId('ticket-time');
    await time.waitFor(WAIT);
    expect(await page.getByTestId('ticket-time-total').textContent()).toBe('0:00');

    await page.getByTestId('ticket-time-start').click();
    const clock = page.getByTestId('ticket-time-clock');
    await page.getByTestId('ticket-time-stop').waitFor(WAIT);
    expect(await clock.textContent()).toMatch(/^0:00:\d\d$/);
    // The clock ticks on its own: it shows a later second than the one it started with.
    const first = await clock.textContent();
    await page.waitForFunction(
      ([el, was]) => (el as HTMLElement).textContent !== was,
      [await clock.elementHandle(), first] as const,
      WAIT,
    );
    // On another ticket the panel says where the timer runs; starting there stops the first one.
    await page.goto(`${server.url}/ticket/${otherId}`);
    await page.getByTestId('ticket-time-elsewhere').filter({ hasText: '#1' }).waitFor(WAIT);
    await page.getByTestId('ticket-time-start').click();
    await page.getByText('Stopped the timer on #1.').waitFor(WAIT);
    await page.getByTestId('ticket-time-stop').click();
    await page.getByTestId('ticket-time-start').waitFor(WAIT);
    expect(await page.getByTestId('ticket-time-elsewhere').count()).toBe(0);

    await page.goto(`${server.url}/ticket/${ticketId}`);
    await page.getByTestId('ticket-time-entry').filter({ hasText: 'Amy Agent' }).waitFor(WAIT);
    expect(await clock.textContent()).toBe('No timer running');

    await page.getByTestId('ticket-time-add').click();
    await page.getByTestId('ticket-time-minutes').fill('90');
    await page.getByTestId('ticket-time-note').fill('Called the customer');
    await page.getByTestId('ticket-time-save').click();
    await page.getByTestId('ticket-time-entry').filter({ hasText: 'Called the customer' }).waitFor(WAIT);
    await expect.poll(() => page.getByTestId('ticket-time-total').textContent(), WAIT).toBe('1:30');
    expect(await page.getByTestId('ticket-time-entry').count()).toBe(2);
    const panel = await axe(page, '[data-testid="ticket-info"]');
    expect(panel, panel.join('\n')).toEqual([]);
    await screenshot(page, 'timer-ticket-panel-light');

    await page.goto(`${server.url}/timer`);
    const row = page.getByTestId('timer-row').filter({ hasText: 'Called the customer' });
    await row.waitFor(WAIT);
    expect(await row.textContent()).toContain('1:30');
    expect(await row.textContent()).toContain('Printer on fire');
    expect(await row.getByRole('link', { name: /^#\d+$/ }).getAttribute('href')).toBe(`/ticket/${ticketId}`);
    // The timers' own entries (a few seconds each, on both tickets) are listed too.
    expect(await page.getByTestId('timer-row').count()).toBe(3);
    const total = page.getByTestId('timer-total-agent').filter({ hasText: 'Amy Agent' });
    expect(await total.textContent()).toContain('1:30');
    expect(await total.textContent()).toContain('3 entries');
    expect(await page.getByTestId('timer-total-overall').textContent()).toBe('Overall: 1:30');
    // An agent sees their own time: no agent picker.
    expect(await page.getByTestId('timer-agent').count()).toBe(0);
    const screen = await axe(page, '[data-testid="timer"]');
    expect(screen, screen.join('\n')).toEqual([]);
    await screenshot(page, 'timer-screen-light');

    // The CSV of the range.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('timer-csv').click()]);
    expect(download.suggestedFilename()).toBe('time-entries.csv');
  });

  it('SHELL-12 /timer for an admin in dark, by agent; stacked on a phone', async () => {
    // The admin sees the team's time and picks one agent.
    const dark = await open('dark', false, 'ann');
    await dark.goto(`${server.url}/timer`);
    await dark.getByTestId('timer-row').first().waitFor(WAIT);
    await dark.getByTestId('timer-agent').click();
    await dark.getByRole('option', { name: 'Amy Agent', exact: true }).click();
    await dark.getByTestId('timer-total-agent').filter({ hasText: 'Amy Agent' }).waitFor(WAIT);
    expect(await dark.getByTestId('timer-total-overall').textContent()).toBe('Overall: 1:30');
    const violations = await axe(dark, '[data-testid="timer"]');
    expect(violations, violations.join('\n')).toEqual([]);
    await screenshot(dark, 'timer-screen-dark');

    const phone = await open('light', true);
    await phone.goto(`${server.url}/timer`);
    const card = phone.getByTestId('timer-card').filter({ hasText: 'Called the customer' });
    await card.waitFor(WAIT);
    expect(await phone.getByTestId('timer-table').isVisible()).toBe(false);
    const onPhone = await axe(phone, '[data-testid="timer"]');
    expect(onPhone, onPhone.join('\n')).toEqual([]);
    await screenshot(phone, 'timer-screen-phone');
  });
});
