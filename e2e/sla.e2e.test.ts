import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  toastsGone,
} from './support.js';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/*
 * Business hours and SLA policies (design, docs/sla.md): an admin sets the hours in Settings -> Business
 * hours & SLA (a bad interval is refused with the server's words, nothing saved), adds a policy, and the
 * ticket's info panel shows the time left for its first response.
 */
describe('business hours and SLA policies in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let token = '';
  let ticketId = 0;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    token = await seedWorkspace(server.url);
    const t = await apiJson(`${server.url}/api/ticket/create`, 'POST', { title: 'Printer on fire' }, token);
    ticketId = Number(t.data?.id ?? t.id);
    expect(ticketId).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(width: number, height: number, scheme: 'light' | 'dark' = 'light') {
    const ctx = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    return { ctx, page };
  }
  const settings = () => apiJson(`${server.url}/api/sla/settings`, 'GET', undefined, token);

  async function setDay(page: Page, day: string, from: string, to: string) {
    const row = page.getByTestId(`sla-day-${day}`);
    const on = row.getByRole('switch');
    if (!(await on.isChecked())) await on.check({ force: true });
    await page.getByLabel(`${day} From`, { exact: true }).fill(from);
    await page.getByLabel(`${day} To`, { exact: true }).fill(to);
  }

  it('SLA business hours set in the settings screen (bad interval refused), a policy added, time left on the ticket', async () => {
    const { ctx, page } = await open(1440, 900);
    await page.goto(`${server.url}/settings/sla`);
    await page.getByText('No business hours yet: targets count calendar time.').waitFor();
    const zone = page.getByTestId('sla-timezone');
    await zone.fill('UTC');
    await zone.press('Escape');

    // End before start: the server's words, nothing saved.
    await setDay(page, 'Monday', '18:00', '09:00');
    await page.getByTestId('sla-hours-save').click();
    await expect
      .poll(() => page.getByTestId('sla-hours-error').textContent())
      .toBe('Monday: the end (09:00) must be after the start (18:00).');
    expect((await settings()).data.businessHours).toEqual([]);

    // Open around the clock every day, so the time left does not depend on when the test runs.
    for (const d of DAYS) await setDay(page, d, '00:00', '24:00');
    await page.getByTestId('sla-hours-save').click();
    await expect.poll(async () => (await settings()).data.businessHours.length).toBe(1);
    const stored = (await settings()).data.businessHours[0];
    expect(stored.timezone).toBe('UTC');
    expect(stored.days.every((d: unknown[]) => d.length === 1)).toBe(true);
    await expect.poll(() => page.getByTestId('sla-hours-error').count()).toBe(0);

    await toastsGone(page);
    await page.getByRole('button', { name: 'Add policy' }).click();
    const policy = page.getByTestId('sla-policy');
    await policy.getByLabel('Name', { exact: true }).fill('Standard');
    await policy.getByLabel('First response (min)', { exact: true }).fill('1440');
    await page.getByTestId('sla-policies-save').click();
    await expect
      .poll(async () => (await settings()).data.policies.map((p: { name: string }) => p.name))
      .toEqual(['Standard']);
    await screenshot(page, 'sla-settings-1440-light');

    await page.goto(`${server.url}/ticket/${ticketId}`);
    const sla = page.getByTestId('ticket-sla');
    await sla.waitFor();
    expect(await sla.textContent()).toContain('SLA: Standard');
    const row = sla.getByTestId('ticket-sla-row').first();
    expect(await row.textContent()).toMatch(/^First response23 h 5\d min left$/);
    await screenshot(page, 'sla-ticket-1440-light');
    await ctx.close();
  }, 90_000);

  it('SLA the settings screen and the ticket panel at 1440 px and 390x844, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const)
      for (const [w, h] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        const { ctx, page } = await open(w, h, scheme);
        await page.goto(`${server.url}/settings/sla`);
        await page.getByTestId('sla-day-Monday').waitFor();
        await screenshot(page, `sla-settings-${w}-${scheme}`);
        await page.goto(`${server.url}/ticket/${ticketId}`);
        if (w < 800) {
          await page.getByTestId('ticket-info-toggle').click();
        }
        await page.getByTestId('ticket-sla').waitFor();
        await screenshot(page, `sla-ticket-${w}-${scheme}`);
        await ctx.close();
      }
  }, 400_000);

  it("SLA a first response past its due time shows Breached on the ticket once the engine's run finds it", async () => {
    // A policy of its own when the earlier tests did not run (a filtered run): a day, in calendar time.
    if ((await settings()).data.policies.length === 0)
      await apiJson(
        `${server.url}/api/sla/policies`,
        'POST',
        {
          policies: [
            {
              name: 'Standard',
              priority: null,
              channel: null,
              labelId: null,
              departmentId: null,
              firstResponse: 1440,
              nextResponse: null,
              resolution: null,
              calendar: true,
            },
          ],
        },
        token,
      );
    const t = await apiJson(`${server.url}/api/ticket/create`, 'POST', { title: 'Waiting far too long' }, token);
    const id = Number(t.data?.id ?? t.id);
    const { ctx, page } = await open(1440, 900);
    await page.goto(`${server.url}/ticket/${id}`);
    const row = page.getByTestId('ticket-sla').getByTestId('ticket-sla-row').first();
    await row.getByText(/left$/).waitFor();
    // Two days pass for this ticket: its facts and its timer move back together, as if it had been waiting
    // since then; the engine's next run (every 10 s) finds the first response late.
    const db = new Database(path.join(server.dataDir, 'parley.db'));
    try {
      db.pragma('busy_timeout = 5000');
      const back = 2 * 86_400_000;
      db.prepare(
        'update tickets set created_at = created_at - ?, updated_at = updated_at - ?, last_message_at = last_message_at - ? where id = ?',
      ).run(back, back, back, id);
      db.prepare(
        'update sla_timers set started_at = started_at - ?, warn_at = warn_at - ?, due_at = due_at - ?, next_at = next_at - ? where ticket_id = ?',
      ).run(back, back, back, back, id);
    } finally {
      db.close();
    }
    await expect
      .poll(
        async () =>
          (await apiJson(`${server.url}/api/sla/ticket/${id}`, 'GET', undefined, token)).data.firstResponse.state,
        {
          timeout: 30_000,
        },
      )
      .toBe('breached');
    await page.reload();
    await row.getByText(/^Breached/).waitFor();
    expect(await row.textContent()).toMatch(/^First responseBreached · /);
    await screenshot(page, 'sla-ticket-breached-1440-light');
    await ctx.close();
  }, 90_000);
});
