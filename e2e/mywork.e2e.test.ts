import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/**
 * An agent's "my work" in Chromium: the views Mine, Unassigned and All with live counts, Home's queue, bulk
 * actions on ticked tickets and merging two tickets, over a workspace made through the API.
 */
describe('my work: views, bulk actions and merge', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin: string;
  let sqlite: Database.Database;
  const contexts: BrowserContext[] = [];
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'dana', name: 'Dana Agent' }]);
    await apiJson(
      `${server.url}/api/label/update`,
      'POST',
      {
        labelArray: [{ isNew: true, name: 'VIP', color: '#224488', colorDark: '#88AAFF', level: 0, sla: 30 }],
        delete: [],
      },
      admin,
    );
    for (const title of [
      'Printer jams on every page',
      'Wifi drops in the meeting room',
      'Refund request for order 1182',
      'Late delivery of the spare parts for the warehouse',
      'Late delivery: customer writes again about the spare parts',
      'Screen flickers after the update',
    ])
      ids[title] = (
        await apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name: 'Casey Customer' }, admin)
      ).data.id;
    const mine = (
      await apiJson(`${server.url}/api/ticket/create`, 'POST', { title: 'Already with Dana', name: 'Lee' }, admin)
    ).data.id;
    await apiJson(`${server.url}/api/ticket/assign`, 'POST', { id: mine, assignee: ['dana'] }, admin);
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
    const accountId = sqlite.prepare('select id from accounts').pluck().get() as number;
    const say = sqlite.prepare(
      `insert into messages (account_id, ticket_id, type, message, sender, sender_name, client_id, created_at)
       values (?, ?, 'text', ?, 'visitor', 'Casey Customer', null, ?)`,
    );
    say.run(accountId, ids['Late delivery of the spare parts for the warehouse'], 'Where are my parts?', Date.now());
    say.run(
      accountId,
      ids['Late delivery: customer writes again about the spare parts'],
      'Still nothing arrived.',
      Date.now(),
    );
  }, 180_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  async function open(
    who: string,
    to: string,
    o: { scheme?: 'light' | 'dark'; width?: number; height?: number } = {},
  ): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width: o.width ?? 1440, height: o.height ?? 900 },
      colorScheme: o.scheme ?? 'light',
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    await signInAs(page, server.url, who);
    await page.goto(`${server.url}${to}`);
    return page;
  }
  const count = (page: Page, view: string) => page.getByTestId(`view-count-${view}`).textContent();
  const row = (page: Page, title: string) => page.getByTestId('ticket-row').filter({ hasText: title });
  const assignees = (titles: string[]) =>
    titles.map((t) => sqlite.prepare('select assignee from tickets where id = ?').pluck().get(ids[t]) as string);

  it(
    'VIEWS an agent works from Mine: takes a ticket from Unassigned, sees the counts move, opens it from Mine and Home',
    { timeout: 120_000 },
    async () => {
      const page = await open('dana', '/ticket?view=unassigned');
      await row(page, 'Printer jams on every page').waitFor();
      await expect.poll(() => count(page, 'mine')).toBe('1');
      expect(await count(page, 'unassigned')).toBe('6');
      expect(await count(page, 'all')).toBe('7');
      expect(await page.getByTestId('view-unassigned').getAttribute('aria-pressed')).toBe('true');
      expect(await row(page, 'Already with Dana').count()).toBe(0);

      // Someone else (the admin) takes a ticket meanwhile: Dana's counts follow without a reload.
      await apiJson(
        `${server.url}/api/ticket/assign`,
        'POST',
        { id: ids['Wifi drops in the meeting room'], assignee: ['ann'] },
        admin,
      );
      await expect.poll(() => count(page, 'unassigned')).toBe('5');

      // Dana ticks a ticket and assigns it to herself.
      await page.getByLabel(`Select #${await ticketNumber('Printer jams on every page')}`).check();
      await page.getByTestId('selection-bar').waitFor();
      await page.getByRole('combobox', { name: 'Assign the selected tickets' }).click();
      await page.getByRole('option', { name: 'Me', exact: true }).click();
      await expect.poll(() => assignees(['Printer jams on every page'])).toEqual(['dana']);
      await expect.poll(() => count(page, 'mine')).toBe('2');
      expect(await count(page, 'unassigned')).toBe('4');
      await expect.poll(() => row(page, 'Printer jams on every page').count()).toBe(0);

      // Mine lists it; the choice is in the address, and opening the ticket keeps it.
      await page.getByTestId('view-mine').click();
      await page.waitForURL(/view=mine/);
      await row(page, 'Printer jams on every page').click();
      await page.waitForURL(/\/ticket\/\d+\?view=mine$/);
      expect(new URL(page.url()).pathname).toBe(`/ticket/${ids['Printer jams on every page']}`);
      await page.getByTestId('ticket-list-area').waitFor();
      expect(await page.getByTestId('view-mine').getAttribute('aria-pressed')).toBe('true');
      await expect.poll(() => page.getByTestId('ticket-row').count()).toBe(2);
      await screenshot(page, 'mywork-mine-open-1440-light');

      // Home: my open and waiting counts, what is at SLA risk, and the Mine view from there. A resolution
      // clock past its warning (written as the SLA engine would) is listed as such.
      const now = Date.now();
      sqlite
        .prepare(
          `insert into sla_resolution_timers (ticket_id, account_id, sla_minutes, started_at, warn_at, due_at, updated_at)
           select id, account_id, 240, ?, ?, ?, ? from tickets where title = 'Already with Dana'`,
        )
        .run(now - 3_600_000, now - 60_000, now + 3_600_000, now);
      await page.goto(server.url);
      await expect.poll(() => page.getByTestId('queue-open').textContent(), { timeout: 20_000 }).toContain('2');
      expect(await page.getByTestId('queue-waiting').textContent()).toContain('0');
      const risk = page.getByTestId('queue-risk').filter({ hasText: 'Already with Dana' });
      await risk.waitFor();
      expect(await risk.getByTestId('queue-risk-target').textContent()).toBe('resolution');
      await screenshot(page, 'mywork-home-1440-light');
      await page.getByTestId('queue-open').click();
      await page.waitForURL(/\/ticket\?view=mine$/);
      await row(page, 'Already with Dana').waitFor();
    },
  );

  it('BULK ticks three tickets, assigns them and labels them in one go each', { timeout: 150_000 }, async () => {
    const page = await open('dana', '/ticket', { scheme: 'dark' });
    const three = [
      'Refund request for order 1182',
      'Screen flickers after the update',
      'Wifi drops in the meeting room',
    ];
    for (const t of three) await row(page, t).getByRole('checkbox').check();
    const bar = page.getByTestId('selection-bar');
    await expect.poll(() => bar.textContent()).toContain('3 selected');
    await screenshot(page, 'mywork-bulk-bar-1440-dark');
    await page.getByRole('combobox', { name: 'Assign the selected tickets' }).click();
    await page.getByRole('option', { name: 'Me', exact: true }).click();
    await expect.poll(() => assignees(three)).toEqual(['dana', 'dana', 'dana']);
    await page.getByText('Assigned 3 tickets.').waitFor();

    for (const t of three) await row(page, t).getByRole('checkbox').check();
    await page.getByRole('combobox', { name: 'Add a label to the selected tickets' }).click();
    await page.getByRole('option', { name: 'VIP', exact: true }).click();
    const vip = sqlite.prepare("select id from labels where name = 'VIP'").pluck().get() as number;
    await expect
      .poll(() =>
        three.map((t) =>
          JSON.parse(sqlite.prepare('select label from tickets where id = ?').pluck().get(ids[t]) as string),
        ),
      )
      .toEqual([[vip], [vip], [vip]]);
    // Each ticket got its own system note, like the one-ticket calls.
    const notes = sqlite
      .prepare(
        `select count(*) from messages where type = 'system' and message like '%added the labels VIP.' and ticket_id in (${three.map((t) => ids[t]).join(',')})`,
      )
      .pluck()
      .get();
    expect(notes).toBe(3);
    await expect.poll(() => row(page, 'Refund request for order 1182').textContent()).toContain('VIP');
  });

  it(
    'MERGE two tickets: the primary keeps both conversations, the other is closed with a pointer; an open conversation shows the moved messages at once',
    { timeout: 150_000 },
    async () => {
      const primary = 'Late delivery of the spare parts for the warehouse';
      const other = 'Late delivery: customer writes again about the spare parts';
      // A colleague has the primary open while the merge happens.
      const watcher = await open('ann', `/ticket/${ids[primary]}`);
      await watcher.getByText('Where are my parts?').waitFor();
      const page = await open('dana', '/ticket');
      await row(page, primary).getByRole('checkbox').check();
      await row(page, other).getByRole('checkbox').check();
      await page.getByTestId('bulk-merge').click();
      const dialog = page.getByRole('dialog', { name: 'Merge tickets' });
      await dialog.getByLabel(new RegExp(`^#\\d+ ${primary}$`)).check();
      await screenshot(page, 'mywork-merge-1440-light');
      await dialog.getByTestId('merge-confirm').click();
      await page.getByText('Merged 2 tickets.').waitFor();
      const [p, o] = [ids[primary]!, ids[other]!];
      expect(sqlite.prepare('select closed from tickets where id = ?').pluck().get(o)).toBe(3);
      const texts = (id: number) =>
        sqlite.prepare('select message from messages where ticket_id = ? order by id').pluck().all(id) as string[];
      expect(texts(p).slice(0, 2)).toEqual(['Where are my parts?', 'Still nothing arrived.']);
      expect(texts(p).at(-1)).toMatch(/^Dana Agent merged #\d+ into this ticket\.$/);
      expect(texts(o)).toEqual([expect.stringMatching(/^Dana Agent merged this ticket into #\d+\.$/)]);
      // Without a reload, the open conversation shows the other ticket's message above the note.
      await watcher.getByText('Still nothing arrived.').waitFor();
      await watcher.getByText(/merged #\d+ into this ticket/).waitFor();
      // The closed one leaves the Open list once it loads again; the primary stays.
      await page.reload();
      await row(page, primary).waitFor();
      expect(await row(page, other).count()).toBe(0);
      // The primary's conversation shows both customers' messages and the note.
      await row(page, primary).click();
      await page.getByText('Still nothing arrived.').waitFor();
      await page.getByText(/merged #\d+ into this ticket/).waitFor();
    },
  );

  it(
    'VIEWS the list beside an open ticket stays readable at 1440 px and on a phone, light and dark',
    { timeout: 300_000 },
    async () => {
      for (const scheme of ['light', 'dark'] as const) {
        const wide = await open('dana', `/ticket/${ids['Refund request for order 1182']}`, { scheme });
        const area = wide.getByTestId('ticket-list-area');
        await wide.getByTestId('ticket-row').first().waitFor();
        expect(await area.getAttribute('data-compact')).toBe('true');
        // The long title keeps most of its words (two lines at most), and the Updated date shows whole.
        const title = row(wide, 'Late delivery of the spare parts for the warehouse');
        const box = await title.locator('p').first().boundingBox();
        expect(box?.width ?? 0).toBeGreaterThan(180);
        // Every row's date shows whole in the ticket format (time today, Yesterday, else D/M/YYYY).
        const dates = await area
          .locator('[title^="Received "]')
          .evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', cut: e.scrollWidth > e.clientWidth })));
        expect(dates.length).toBeGreaterThan(3);
        for (const d of dates) {
          expect(d.text).toMatch(/^(\d{2}:\d{2}|Yesterday|\d{1,2}\/\d{1,2}\/\d{4})$/);
          expect(d.cut, d.text).toBe(false);
        }
        await screenshot(wide, `mywork-list-beside-ticket-1440-${scheme}`);
        const phone = await open('dana', '/ticket', { scheme, width: 390, height: 844 });
        await phone.getByTestId('ticket-row').first().waitFor();
        expect(await phone.getByTestId('ticket-list-area').getAttribute('data-compact')).toBe('true');
        await screenshot(phone, `mywork-list-390-${scheme}`);
      }
    },
  );

  async function ticketNumber(title: string): Promise<number> {
    return sqlite.prepare('select ticket_number from tickets where id = ?').pluck().get(ids[title]) as number;
  }
});
