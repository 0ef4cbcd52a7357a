import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const BOT = 'I am a bot. I help send messages, manage tickets and can do much more.';
const VISITOR = 'This is a visitor who is using live chat from external websites.';

/** PROFILE: the profile modal opened from a message sender, in Chromium. */
describe('the profile modal in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let emailTicket = 0;
  let chatTicket = 0;

  beforeAll(async () => {
    // A loaded machine can miss the 30 s start-up deadline once: try a second time.
    [server, browser] = await Promise.all([startServer().catch(() => startServer()), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [{ username: 'bob', name: 'Bo Agent' }]);
    const { accountId } = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, admin);
    const db = new Database(path.join(server.dataDir, 'parley.db'));
    db.pragma('busy_timeout = 5000');
    const now = Date.now();
    const ticket = db.prepare(
      `insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
         assignee, name, email, phone, created_at, updated_at)
       values (?, ?, ?, ?, ?, '', '[]', null, ?, ?, ?, '', ?, ?) returning id`,
    );
    const message = db.prepare(
      `insert into messages (account_id, ticket_id, type, message, sender, sender_name, client_id, created_at)
       values (?, ?, 'text', ?, ?, ?, null, ?)`,
    );
    const ids: number[] = [];
    // The two oldest: one updated yesterday, one on a day long past (the list's date formats).
    const yesterday = new Date(new Date().getFullYear(), new Date().getMonth(), new Date().getDate() - 1, 12).getTime();
    const when = (i: number) =>
      i === 11 ? yesterday : i === 12 ? new Date(2026, 2, 5, 12).getTime() : now - i * 60_000;
    for (let i = 1; i <= 12; i++) {
      const r = ticket.get(
        accountId,
        i,
        `Refund request ${i}`,
        'EMAIL',
        i <= 4 ? 2 : 0,
        'bob',
        'Pat Lee',
        'pat@example.net',
        when(i),
        when(i),
      ) as { id: number };
      ids.push(r.id);
    }
    emailTicket = ids[0]!;
    chatTicket = (
      ticket.get(accountId, 13, 'Where is my parcel?', 'LIVECHAT', 0, 'bob', 'Web visitor', '', now, now) as {
        id: number;
      }
    ).id;
    for (let i = 0; i < 3; i++)
      message.run(accountId, emailTicket, `My order ${i} never came`, 'visitor', 'Pat Lee', now + i);
    message.run(accountId, emailTicket, 'Translated: hello', 'translatebot', 'translatebot', now + 10);
    message.run(accountId, chatTicket, 'Hi, anyone there?', 'visitor', 'Visitor', now + 20);
    db.close();
    const bo = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'bob', password: PASSWORD })).token;
    for (let i = 0; i < 7; i++)
      await apiJson(
        `${server.url}/api/ticket/message`,
        'POST',
        {
          ticket_id: emailTicket,
          message: `We are on it (${i})`,
          type: 'text',
        },
        bo,
      );
  }, 180_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function signedIn(scheme: 'light' | 'dark'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, server.url, 'ann');
    return page;
  }
  async function open(page: Page, ticketId: number) {
    await page.goto(`${server.url}/ticket/${ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await page.getByTestId('message-count').waitFor();
  }
  const sender = (page: Page, name: string) => page.getByTestId('message-sender').filter({ hasText: name }).last();
  const modal = (page: Page) => page.getByRole('dialog', { name: 'Profile' });

  const SLOW = 180_000;

  it(
    'PROFILE-01 PROFILE-02 PROFILE-03 PROFILE-07 PROFILE-08 PROFILE-11 TICKET-63 an agent: name, uid, activity 5 a page, tickets 10 a page (dates as lists read), level and exp',
    async () => {
      const page = await signedIn('light');
      await open(page, emailTicket);
      await sender(page, 'Bo Agent').click();
      const m = modal(page);
      await m.getByTestId('profile-name').waitFor();
      expect(await m.getByTestId('profile-name').textContent()).toBe('Bo Agent');
      expect(await m.getByTestId('profile-uid').textContent()).toBe('UID bob');
      // 4 resolved tickets (40) and 7 messages: exp 47, level 1.
      await m.getByTestId('profile-exp').waitFor();
      expect(await m.getByTestId('profile-exp').textContent()).toContain('Level 1');
      expect(await m.getByTestId('profile-exp').textContent()).toContain('Exp 47');
      await expect.poll(() => m.getByTestId('profile-activity-item').count()).toBe(5);
      expect(await m.getByTestId('profile-activity-item').first().textContent()).toContain('We are on it (6)');
      await expect.poll(() => m.getByTestId('profile-ticket').count()).toBe(10);
      await screenshot(page, 'profile-agent-light');
      await m.getByLabel('Activity').getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => m.getByTestId('profile-activity-item').count()).toBe(2);
      await m.getByLabel('Tickets').getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => m.getByTestId('profile-ticket').count()).toBe(2);
      // TICKET-63 CONST-02: the profile's list reads as every list: "Yesterday", else D/M/YYYY.
      const older = await m.getByTestId('profile-ticket').allTextContents();
      expect(older[0]).toMatch(/ · Yesterday$/);
      expect(older[1]).toMatch(/ · 5\/3\/2026$/);
      await m.getByRole('tab', { name: 'Live Chats' }).click();
      await expect.poll(() => m.getByTestId('profile-ticket').count()).toBe(1);
      expect(await m.getByTestId('profile-ticket').textContent()).toContain('Where is my parcel?');
    },
    SLOW,
  );

  it(
    'PROFILE-09 PROFILE-10 a customer on an e-mail ticket: the contact, its activity and tickets',
    async () => {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await signedIn(scheme);
        await open(page, emailTicket);
        await sender(page, 'Pat Lee').click();
        const m = modal(page);
        await m.getByTestId('profile-name').waitFor();
        expect(await m.getByTestId('profile-name').textContent()).toBe('Pat Lee');
        expect(await m.getByTestId('profile-uid').textContent()).toBe('UID email:pat@example.net');
        await expect.poll(() => m.getByTestId('profile-activity-item').count()).toBe(3);
        await expect.poll(() => m.getByTestId('profile-ticket').count()).toBe(10);
        expect(await m.getByTestId('profile-exp').textContent()).toContain('Exp 43');
        await screenshot(page, `profile-contact-${scheme}`);
        if (scheme === 'dark') {
          // A ticket of the list opens that conversation.
          await m.getByTestId('profile-ticket').nth(1).click();
          await page.waitForURL(/\/ticket\/\d+$/);
          expect(page.url()).toMatch(new RegExp(`/ticket/${emailTicket + 1}$`));
        }
      }
    },
    SLOW,
  );

  it(
    'PROFILE-04 PROFILE-05 PROFILE-06 the translation bot and the live chat visitor read their fixed texts',
    async () => {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await signedIn(scheme);
        await open(page, emailTicket);
        await page.getByTestId('message-sender').filter({ hasText: 'Translation' }).last().click();
        const m = modal(page);
        await m.getByTestId('profile-fixed').waitFor();
        expect(await m.getByTestId('profile-fixed').textContent()).toBe(BOT);
        await screenshot(page, `profile-bot-${scheme}`);
        await page.keyboard.press('Escape');
        await m.waitFor({ state: 'hidden' });

        await open(page, chatTicket);
        // A customer's message stored with the placeholder name "Visitor" shows as "Customer" (lib/people).
        await sender(page, 'Customer').click();
        await m.getByTestId('profile-fixed').waitFor();
        expect(await m.getByTestId('profile-fixed').textContent()).toBe(VISITOR);
        expect(await m.getByTestId('profile-header').count()).toBe(0);
        await screenshot(page, `profile-visitor-${scheme}`);
      }
    },
    SLOW,
  );

  it(
    'PROFILE-01 PROFILE-03 the online users list opens a colleague with activity, tickets and exp',
    async () => {
      const page = await signedIn('dark');
      await page.getByTestId('online-users-toggle').click();
      await page.getByTestId('online-users').getByTestId('online-user').filter({ hasText: 'Bo Agent' }).click();
      const m = modal(page);
      await m.getByTestId('profile-sections').waitFor();
      await expect.poll(() => m.getByTestId('profile-exp').textContent()).toContain('Exp 47');
      await expect.poll(() => m.getByTestId('profile-activity-item').count()).toBe(5);
      await expect.poll(() => m.getByTestId('profile-ticket').count()).toBe(10);
      await screenshot(page, 'profile-online-list-dark');
    },
    SLOW,
  );
});
