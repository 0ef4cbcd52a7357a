import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsSettled,
  apiJson,
  launchBrowser,
  liveChatToken,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  tokenOf,
  waitConnected,
} from './support.js';

const WAIT = { timeout: 15_000 };
/** Tickets with the VIP label, open: more than the list's page of 30. */
const BULK = 35;
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/**
 * A day of an agent's work in Chromium, over one workspace: the ticket list's bulk bar on a page and on every
 * ticket matching the filter, a live chat visitor's details, people shown by name, and a macro's reply refused
 * on an e-mail ticket that has no way to be mailed.
 */
describe("an agent's day in Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  let amy = '';
  let sqlite: Database.Database;
  let vip = 0;
  let billing = 0;
  const contexts: BrowserContext[] = [];
  const sockets: Socket[] = [];
  const ids: Record<string, number> = {};

  const create = async (body: Record<string, unknown>) =>
    (await apiJson(`${server.url}/api/ticket/create`, 'POST', body, admin)).data as {
      id: number;
      ticket_number: number;
    };

  beforeAll(async () => {
    // A short presence grace: an agent who closes the app shows as gone within a second.
    [server, browser] = await Promise.all([startServer({ PRESENCE_GRACE_MS: '1000' }), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    amy = await tokenOf(server.url, 'amy');
    await apiJson(
      `${server.url}/api/label/update`,
      'POST',
      {
        labelArray: [{ isNew: true, name: 'VIP', color: '#224488', colorDark: '#88AAFF', level: 0, sla: 30 }],
        delete: [],
      },
      admin,
    );
    billing = (await apiJson(`${server.url}/api/departments`, 'POST', { name: 'Billing' }, admin)).data.id;
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
    vip = sqlite.prepare("select id from labels where name = 'VIP'").pluck().get() as number;
    for (let i = 1; i <= BULK; i++) await create({ title: `Bulk ${i}`, name: 'Bulk customer', label: [vip] });
    // Closed VIP tickets: outside the Open list's filter, so "all matching" must leave them alone.
    for (const title of ['Closed VIP 1', 'Closed VIP 2']) {
      ids[title] = (await create({ title, name: 'Old customer', label: [vip] })).id;
      sqlite.prepare('update tickets set closed = 3 where id = ?').run(ids[title]);
    }
    ids.assigned = (await create({ title: 'Boiler service visit', name: 'Bob', assignee: ['amy'] })).id;
    // An e-mail ticket that came in through no mailbox (made by hand, then marked as e-mail).
    const mail = await create({ title: 'Order by e-mail', name: 'Mia Mail', email: 'mia@example.com' });
    ids.mail = mail.id;
    ids.mailNumber = mail.ticket_number;
    sqlite.prepare("update tickets set channel = 'EMAIL' where id = ?").run(mail.id);
  }, 180_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  async function open(who: string, to: string, o: { scheme?: 'light' | 'dark'; phone?: boolean } = {}): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: o.phone ? { width: 390, height: 844 } : { width: 1440, height: 900 },
      colorScheme: o.scheme ?? 'light',
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[page] ${e.message}`));
    await signInAs(page, server.url, who);
    if (to !== '/') await page.goto(`${server.url}${to}`);
    return page;
  }
  const row = (page: Page, title: string) =>
    page.getByTestId('ticket-row').filter({ has: page.getByText(title, { exact: true }) });
  const labelsOf = (id: number) =>
    JSON.parse(sqlite.prepare('select label from tickets where id = ?').pluck().get(id) as string) as number[];
  const vipOpen = () =>
    sqlite
      .prepare(
        'select count(*) from tickets where closed = 0 and exists (select 1 from json_each(label) where value = ?)',
      )
      .pluck()
      .get(vip) as number;

  // First: the bulk changes below move other tickets above this one in the list.
  it('TICKET-61 RT-37 STATUS-04 people by name: the assignee in the list and the panel; team activity as sentences', async () => {
    const list = await open('ann', '/ticket');
    const r = row(list, 'Boiler service visit');
    await r.waitFor(WAIT);
    await expect.poll(() => r.textContent()).toContain('→ Amy Agent');
    expect(await r.textContent()).not.toContain('→ amy');
    await list.goto(`${server.url}/ticket/${ids.assigned}`);
    const field = list.getByTestId('ticket-info-assignees-field');
    await field.getByText('Amy Agent (amy)', { exact: true }).waitFor(WAIT);

    const home = await open('ann', '/', { scheme: 'dark' });
    await home.getByTestId('team-activity').waitFor({ state: 'attached' });
    const items = home.getByTestId('activity-item');
    // Amy signs in, sets a status with a reason, and leaves (offline once the short grace has passed).
    const amyPage = await open('amy', '/');
    await items.filter({ hasText: 'Amy Agent came online' }).waitFor(WAIT);
    await apiJson(`${server.url}/api/online_status/update`, 'POST', { status: 'BUSY', reason: 'Lunch' }, amy);
    await items.filter({ hasText: 'Amy Agent is busy: Lunch' }).waitFor(WAIT);
    await amyPage.context().close();
    await items.filter({ hasText: 'Amy Agent went offline' }).waitFor(WAIT);
    // Never the bare username.
    expect(await home.getByTestId('team-activity').textContent()).not.toMatch(/\bamy\b/);
    await screenshot(home, 'agentday-team-activity-1440-dark');
  });

  it(
    'TICKET-58 TICKET-59 the bulk bar: select the page, then all matching across pages, remove a label from them; a department on the page only',
    { timeout: 180_000 },
    async () => {
      const openTotal = sqlite.prepare('select count(*) from tickets where closed = 0').pluck().get() as number;
      expect(openTotal).toBeGreaterThan(30);
      expect(vipOpen()).toBe(BULK);
      const page = await open('ann', '/ticket');
      await row(page, `Bulk ${BULK}`).waitFor(WAIT);
      await expect.poll(() => page.getByTestId('ticket-row').count()).toBe(30);
      const bar = page.getByTestId('selection-bar');

      // The page's box ticks the 30 rows shown; then the bar offers every ticket the filter matches.
      await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
      await expect.poll(() => bar.textContent()).toContain('30 selected');
      await bar
        .getByTestId('select-all-matching')
        .filter({ hasText: `Select all ${openTotal} matching` })
        .click();
      await expect.poll(() => bar.textContent()).toContain(`All ${openTotal} matching tickets are selected.`);
      await screenshot(page, 'agentday-bulk-all-matching-1440-light');
      await page.getByRole('combobox', { name: 'Remove a label from the selected tickets' }).click();
      await page.getByRole('option', { name: 'VIP', exact: true }).click();
      await page.getByText(`Label removed from ${openTotal} tickets.`).waitFor(WAIT);
      // Every open ticket lost it, the 5 beyond the page too; the closed ones, outside the filter, kept it.
      expect(vipOpen()).toBe(0);
      expect(labelsOf(ids['Closed VIP 1']!)).toEqual([vip]);
      expect(labelsOf(ids['Closed VIP 2']!)).toEqual([vip]);
      await expect.poll(() => page.getByTestId('ticket-list-area').textContent()).not.toContain('VIP');
      await bar.waitFor({ state: 'detached' });

      // The page's box again: the department goes on the 30 rows shown and on no other ticket.
      const shown = (await page
        .getByTestId('ticket-row')
        .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-ticket'))))) as number[];
      expect(shown).toHaveLength(30);
      await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
      await expect.poll(() => bar.textContent()).toContain('30 selected');
      await page.getByRole('combobox', { name: 'Move the selected tickets to a department' }).click();
      await page.getByRole('option', { name: 'Billing', exact: true }).click();
      await page.getByText('Department set on 30 tickets.').waitFor(WAIT);
      const inBilling = sqlite
        .prepare('select id from tickets where department_id = ? order by id')
        .pluck()
        .all(billing) as number[];
      expect(inBilling).toEqual([...shown].sort((a, b) => a - b));
      await bar.waitFor({ state: 'detached' });
    },
  );

  it("a live chat visitor's details show the phone, IC, the page they came from, the browser, earlier chats and the contact's tickets", async () => {
    // The contact's ticket from before, found by the same e-mail written another way.
    await create({ title: 'Invoice question', name: 'Rosa', email: 'ROSA@example.com' });
    const liveToken = await liveChatToken(server.url, admin);
    const { csrf } = await apiJson(`${server.url}/api/livechat/info`, 'POST', { token: liveToken });
    const socket = io(`${server.url}/visitor`, {
      transports: ['websocket'],
      auth: { token: liveToken, csrf },
      extraHeaders: { 'user-agent': UA },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const queue = async (message: string) => {
      const r = await socket.emitWithAck('registerQueue', {
        token: liveToken,
        csrf,
        name: 'Rosa',
        phone: '+60 12-345 6789',
        email: 'rosa@example.com',
        ic: '900101-14-5678',
        page: 'https://shop.example/pricing?plan=pro',
        message,
      });
      if (!r.ok) throw new Error(`registerQueue: ${r.error}`);
      return (await apiJson(`${server.url}/api/livechat/accept`, 'POST', { id: null }, amy)).ticket_id as number;
    };
    // A first chat, taken and ended; then the same visitor comes back.
    const first = await queue('Do you ship abroad?');
    await apiJson(`${server.url}/api/livechat/end`, 'POST', { id: first }, amy);
    const second = await queue('Back again about shipping');
    const firstNumber = sqlite.prepare('select ticket_number from tickets where id = ?').pluck().get(first) as number;

    const page = await open('amy', `/livechat/${second}`);
    await waitConnected(page);
    const details = page.getByTestId('visitor-details');
    await details.getByTestId('visitor-phone').filter({ hasText: '+60 12-345 6789' }).waitFor(WAIT);
    await details.getByText('900101-14-5678', { exact: true }).waitFor();
    const came = details.getByRole('link', { name: 'https://shop.example/pricing?plan=pro' });
    expect(await came.getAttribute('href')).toBe('https://shop.example/pricing?plan=pro');
    const browserText = details.getByText('Chrome 120 on Windows', { exact: true });
    expect(await browserText.getAttribute('title')).toBe(UA);
    const chat = details.getByTestId('visitor-past-chat');
    await expect.poll(() => chat.count()).toBe(1);
    // The earlier chat: its number, when (today: the time), its state and its agent by name.
    expect(await chat.textContent()).toMatch(new RegExp(`^#${firstNumber} \\d{2}:\\d{2} · Ended · Amy Agent$`));
    const tickets = details.getByTestId('visitor-past-ticket');
    await tickets.filter({ hasText: 'Invoice question' }).waitFor();
    // The earlier chat's ticket is the contact's too.
    expect(await tickets.filter({ hasText: `#${firstNumber} ` }).count()).toBe(1);
    await screenshot(page, 'agentday-visitor-details-1440-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'agentday-visitor-details-1440-dark');
  }, 120_000);

  it('MACROS a macro with a reply on an e-mail ticket with no mailbox is refused with a clear notice and changes nothing', async () => {
    const macro = (
      await apiJson(
        `${server.url}/api/macros`,
        'POST',
        {
          name: 'Thank and tag VIP',
          actions: [
            { type: 'reply', text: 'Thanks {{customer.name}}, we are on it.' },
            { type: 'add_labels', labels: [vip] },
          ],
        },
        admin,
      )
    ).data;
    expect(macro.id).toBeGreaterThan(0);
    const messages = () =>
      sqlite.prepare("select count(*) from messages where ticket_id = ? and type != 'system'").pluck().get(ids.mail);
    const before = { labels: labelsOf(ids.mail!), messages: messages() };

    const page = await open('amy', `/ticket/${ids.mail}`);
    await page.getByTestId('conversation-pane').waitFor(WAIT);
    await page.getByTestId('macro-menu').click();
    await page.getByTestId('macro-item').filter({ hasText: 'Thank and tag VIP' }).click();
    const notice = page.getByTestId('macro-error');
    await notice.waitFor(WAIT);
    expect(await notice.textContent()).toBe(
      `Ticket #${ids.mailNumber} is an e-mail ticket with no mailbox to send from or no customer address: a macro cannot e-mail it a reply. Reply to it from the ticket.`,
    );
    await page.getByText('Macro not run', { exact: true }).waitFor();
    expect(await page.getByTestId('macro-toast').count()).toBe(0);
    await screenshot(page, 'agentday-macro-refused-1440-light');
    // One transaction: neither the reply nor the label went on.
    expect({ labels: labelsOf(ids.mail!), messages: messages() }).toEqual(before);

    // The same notice on a phone, dark: whole and inside the screen.
    const phone = await open('amy', `/ticket/${ids.mail}`, { phone: true, scheme: 'dark' });
    await phone.getByTestId('macro-menu').click();
    await phone.getByTestId('macro-item').filter({ hasText: 'Thank and tag VIP' }).click();
    const small = phone.getByTestId('macro-error');
    await small.waitFor(WAIT);
    // The notice slides in: measured once it stands.
    await animationsSettled(phone);
    const box = await small.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await screenshot(phone, 'agentday-macro-refused-390-dark');
    expect({ labels: labelsOf(ids.mail!), messages: messages() }).toEqual(before);
  });
});
