import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgent,
  animationsSettled,
  apiJson,
  axe,
  newContext,
  PASSWORD,
  painted,
  type RunningServer,
  receivedEvents,
  screenshot,
  signInAs,
  startDemo,
  waitConnected,
} from './support.js';

describe('notifications in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let sqlite: Database.Database;

  const user = (username: string) =>
    sqlite.prepare('select id, account_id from users where username = ?').get(username) as {
      id: number;
      account_id: number;
    };
  const seed = (username: string, category: string, n: number, from = 0) => {
    const u = user(username);
    const ins = sqlite.prepare(
      `insert into notifications (account_id, user_id, category, type, channel, title, body, img, ticket_id,
        ticket_number, seen, source, created_at) values (?, ?, ?, ?, 'ticket', ?, ?, null, null, ?, 0, null, ?)`,
    );
    for (let i = from + 1; i <= from + n; i++)
      ins.run(
        u.account_id,
        u.id,
        category,
        category === 'trade' ? 'Bullish' : 'warning',
        `${category} ${i}`,
        `body ${i}`,
        i,
        Date.now() - 60_000,
      );
  };

  beforeAll(async () => {
    ({ server, browser } = await startDemo({ tickets: 5, password: PASSWORD }));
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  async function signIn(page: Page, username: string) {
    await page.goto(server.url);
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('welcome').waitFor();
    await waitConnected(page);
  }

  it('NOTIF-01 NOTIF-02 NOTIF-03 NOTIF-04 NOTIF-05 NOTIF-12 NOTIF-14 NOTIF-15 NOTIF-17 NOTIF-21 NOTIF-30 panel, tabs, dots, paging', async () => {
    seed('demo-agent1', 'sla', 13);
    seed('demo-agent1', 'system', 2);
    for (const scheme of ['light', 'dark'] as const) {
      const ctx = await newContext(browser, scheme);
      const page = await ctx.newPage();
      await signIn(page, 'demo-agent1');
      const bell = page.getByTestId('notification-bell');
      // NOTIF-18: the bell shows a dot while some tab has unread notifications.
      if (scheme === 'light')
        await expect
          .poll(() => page.locator('[data-testid="notification-bell-dot"] .mantine-Indicator-indicator').count())
          .toBe(1);
      await bell.click();
      const panel = page.getByTestId('notifications-panel');
      await panel.waitFor();
      const box = await panel.boundingBox();
      expect(Math.round(box!.width)).toBe(400);
      expect(Math.round(box!.height)).toBe(600);
      await expect.poll(() => panel.getByRole('tab').allTextContents()).toEqual(['SLA', 'Trade', 'System']);
      expect(await page.getByTestId('notification-tab-sla').getAttribute('aria-selected')).toBe('true');
      await expect.poll(() => page.getByTestId('notification-item').count()).toBe(10);
      if (scheme === 'light') {
        expect(await page.getByTestId('notification-item').first().getAttribute('data-seen')).toBe('0');
        expect(await page.getByTestId('notification-time').first().textContent()).toBe('1 minute ago');
        // System still carries its dot; SLA's was cleared by the first open.
        expect(await page.locator('[data-testid="notification-dot-system"] .mantine-Indicator-indicator').count()).toBe(
          1,
        );
        expect(await page.locator('[data-testid="notification-dot-sla"] .mantine-Indicator-indicator').count()).toBe(0);
      }
      await screenshot(page, `notifications-panel-${scheme}`);
      await page.getByTestId('notification-more').click();
      await expect.poll(() => page.getByTestId('notification-item').count()).toBe(13);
      expect(await page.getByTestId('notification-more').count()).toBe(0);
      await page.getByTestId('notification-tab-trade').click();
      await expect.poll(() => panel.getByText('No Notification').count()).toBe(1);
      await page.getByTestId('notification-tab-system').click();
      await expect.poll(() => page.getByTestId('notification-item').count()).toBe(2);
      await expect
        .poll(() => page.locator('[data-testid="notification-dot-system"] .mantine-Indicator-indicator').count())
        .toBe(0);
      // Remove one (NOTIF-13), then Escape closes and marks the rest read (NOTIF-12, NOTIF-21).
      await page.getByTestId('notification-item').first().getByRole('button', { name: 'Close' }).click();
      await expect.poll(() => page.getByTestId('notification-item').count()).toBe(1);
      await page.keyboard.press('Escape');
      await expect.poll(() => panel.isVisible()).toBe(false);
      await ctx.close();
      if (scheme === 'light') {
        const left = sqlite
          .prepare("select count(*) as c from notifications where user_id = ? and category = 'system' and seen = 0")
          .get(user('demo-agent1').id) as { c: number };
        expect(left.c).toBe(0);
        seed('demo-agent1', 'system', 1, 10);
      }
    }
  });

  it('NOTIF-16 NOTIF-17 NOTIF-10 a pushed notification joins the open tab or dots another tab, with its avatar', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'demo-agent3');
    await page.getByTestId('notification-bell').click();
    await page.getByText('No Notification').waitFor();
    // An admin assigns a ticket to agent3: a System notification arrives live.
    const admin = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password: PASSWORD });
    // NOTIF-10: the admin has a profile picture, so the notice carries it as its avatar.
    const png = await sharp({ create: { width: 120, height: 120, channels: 3, background: '#1c7ed6' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('attachment', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    const up = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}` },
      body: form,
    });
    expect(up.status).toBe(200);
    const file = ((await up.json()) as { file: string[] }).file[0];
    await apiJson(`${server.url}/api/user/photo`, 'PUT', { file }, admin.token);
    const ticket = sqlite
      .prepare(
        "select id from tickets where channel <> 'chat' and assignee not like '%demo-agent3%' order by id limit 1",
      )
      .get() as {
      id: number;
    };
    const r = await apiJson(
      `${server.url}/api/ticket/assign`,
      'POST',
      { id: ticket.id, assignee: ['demo-agent3'] },
      admin.token,
    );
    expect(r.result).toBe('success');
    await expect
      .poll(() => page.locator('[data-testid="notification-dot-system"] .mantine-Indicator-indicator').count())
      .toBe(1);
    await page.getByTestId('notification-tab-system').click();
    await expect.poll(() => page.getByTestId('notification-item').count()).toBe(1);
    expect(await page.getByTestId('notification-item').first().textContent()).toContain('Assigned to you');
    // The avatar is the admin's picture, loaded through /cdn/avatar (50x50).
    const avatar = page.getByTestId('notification-item').first().locator('img');
    await expect
      .poll(() => avatar.evaluate((i: HTMLImageElement) => (i.complete ? i.naturalWidth : 0)).catch(() => 0))
      .toBeGreaterThan(0);
    expect(await avatar.getAttribute('src')).toMatch(/^\/cdn\/avatar\/demo-admin\/[A-Za-z0-9_-]+\?w=50&h=50$/);
    const box = await avatar.boundingBox();
    expect(Math.round(box?.width ?? 0)).toBe(50);
    await screenshot(page, 'notification-avatar');
    await ctx.close();
  });

  it('NOTIF-06 NOTIF-12 NOTIF-14 NOTIF-16 NOTIF-17 NOTIF-18 NOTIF-21 the open tab takes a new notification on top, unseen, without a reload or a dot; an outside click closes and marks read; reopening reloads the last tab; View opens the ticket', async () => {
    const admin = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password: PASSWORD });
    const username = `panel-${Date.now().toString(36)}`;
    await addAgent(server.url, admin.token, username, 'Pia Panel');
    const me = user(username);
    const unseen = () =>
      (
        sqlite
          .prepare("select count(*) as c from notifications where user_id = ? and category = 'system' and seen = 0")
          .get(me.id) as { c: number }
      ).c;
    const [t1, t2] = sqlite
      .prepare("select id, ticket_number from tickets where channel not in ('chat', 'LIVECHAT') order by id limit 2")
      .all() as { id: number; ticket_number: number }[];
    const assign = async (t: { id: number }) =>
      expect(
        (await apiJson(`${server.url}/api/ticket/assign`, 'POST', { id: t.id, assignee: [username] }, admin.token))
          .result,
      ).toBe('success');
    seed(username, 'system', 2);

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const loads: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/notification/get') loads.push(new URL(r.url()).search);
    });
    await signInAs(page, server.url, username);
    const panel = page.getByTestId('notifications-panel');
    const items = page.getByTestId('notification-item');
    const dot = (where: string) => page.locator(`[data-testid="${where}"] .mantine-Indicator-indicator`);
    const background = (i: number) => items.nth(i).evaluate((e) => getComputedStyle(e).backgroundColor);
    await page.getByTestId('notification-bell').click();
    await panel.getByText('No Notification').waitFor(); // SLA first (NOTIF-14)
    await page.getByTestId('notification-tab-system').click();
    await expect.poll(() => items.count()).toBe(2);

    // NOTIF-16: a notification of the open tab arrives: on top, unseen, no reload, no dot anywhere.
    const loaded = loads.length;
    await assign(t1!);
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(3);
    expect(await items.first().textContent()).toContain(`Assigned to you: #${t1!.ticket_number}`);
    expect(await items.first().getAttribute('data-seen')).toBe('0');
    expect(await dot('notification-dot-system').count()).toBe(0);
    expect(await dot('notification-bell-dot').count()).toBe(0);
    expect(loads.length).toBe(loaded);
    const highlighted = await background(0);

    // NOTIF-21: a click outside closes the panel and marks the tab read, the live one too (read-pending).
    await page.getByTestId('welcome').click({ position: { x: 5, y: 5 } });
    await expect.poll(() => panel.isVisible()).toBe(false);
    await expect.poll(unseen).toBe(0);

    // Reopening selects the last tab (System) and loads it again from the start: a notification stored
    // meanwhile without an event shows, unseen on top; the ones seen on close are no longer highlighted.
    seed(username, 'system', 1, 50);
    await page.getByTestId('notification-bell').click();
    await expect.poll(() => items.count()).toBe(4);
    expect(await page.getByTestId('notification-tab-system').getAttribute('aria-selected')).toBe('true');
    expect(loads.at(-1)).toBe('?type=system&offset=0');
    expect(await items.evaluateAll((l) => l.map((e) => e.getAttribute('data-seen')))).toEqual(['0', '1', '1', '1']);
    expect(await items.first().textContent()).toContain('system 51');
    expect(await background(0)).toBe(highlighted);
    expect(await background(1)).not.toBe(highlighted);

    // NOTIF-06: View on a new one opens its ticket, closes the panel and marks everything shown read.
    await assign(t2!);
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(5);
    expect(unseen()).toBe(2);
    await items.first().getByRole('button', { name: 'View' }).click();
    await page.waitForURL(`${server.url}/ticket/${t2!.id}`);
    await page.locator(`[data-testid="conversation-pane"][data-ticket="${t2!.id}"]`).waitFor();
    await expect.poll(() => panel.isVisible()).toBe(false);
    await expect.poll(unseen).toBe(0);
    await screenshot(page, 'notification-view');
    await ctx.close();
  });

  it('NOTIF-19 NOTIF-37 NOTIF-38 choices kept locally; a message while the tab is hidden notifies on a chosen channel only', async () => {
    const admin = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password: PASSWORD });
    // Two tickets of two channels, both assigned to agent1: one channel stays on, the other is turned off.
    const tickets = sqlite
      .prepare(
        "select min(id) as id, channel from tickets where channel not in ('chat', 'CALL', 'GRAPH_EMAIL') group by channel order by channel limit 2",
      )
      .all() as { id: number; channel: string }[];
    expect(tickets).toHaveLength(2);
    const [on, off] = tickets as [{ id: number; channel: string }, { id: number; channel: string }];
    for (const t of tickets)
      expect(
        (await apiJson(`${server.url}/api/ticket/assign`, 'POST', { id: t.id, assignee: ['demo-agent1'] }, admin.token))
          .result,
      ).toBe('success');
    const numberOf = (id: number) =>
      (sqlite.prepare('select ticket_number from tickets where id = ?').get(id) as { ticket_number: number })
        .ticket_number;

    for (const scheme of ['light', 'dark'] as const) {
      const ctx = await newContext(browser, scheme);
      await ctx.grantPermissions(['notifications'], { origin: server.url });
      // Records each notification the page asks the service worker to show (at once in `askedCalls`), and how
      // the browser answered.
      await ctx.addInitScript(() => {
        const calls: string[] = [];
        const asked: string[] = [];
        (window as unknown as { shownCalls: string[] }).shownCalls = calls;
        (window as unknown as { askedCalls: string[] }).askedCalls = asked;
        const original = ServiceWorkerRegistration.prototype.showNotification;
        ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
          const call = `${title}|${options?.body}|${options?.tag}`;
          asked.push(call);
          return original.call(this, title, options).then(
            () => void calls.push(`${call}|shown`),
            (err: Error) => {
              calls.push(`${call}|${err.message}`);
              throw err;
            },
          );
        };
      });
      const page = await ctx.newPage();
      const events = receivedEvents(page);
      await signIn(page, 'demo-agent1');
      await page.goto(`${server.url}/settings/appearance`);
      const card = page.getByTestId('notification-settings');
      await card.waitFor();
      expect(await page.getByTestId('notification-permission').textContent()).toBe(
        'Allowed in this browser: new messages show while Parley is in the background.',
      );
      await animationsSettled(page); // colours are checked as painted
      expect(await axe(page)).toEqual([]);
      // Every channel is on and the sound off until chosen.
      expect(await page.getByTestId(`message-pref-${off.channel}`).isChecked()).toBe(true);
      expect(await page.getByTestId('notification-settings-sound').isChecked()).toBe(false);
      if (scheme === 'dark') {
        await card.scrollIntoViewIfNeeded();
        await screenshot(page, 'notification-settings-dark');
        await ctx.close();
        continue;
      }
      await page.getByTestId('notification-settings-sound').click({ force: true });
      await page.getByTestId(`message-pref-${off.channel}`).click({ force: true });
      const stored = () =>
        page.evaluate(
          (ch) => [localStorage.getItem('TicketNotificationSound'), localStorage.getItem(`MessageNotification_${ch}`)],
          off.channel,
        );
      expect(await stored()).toEqual(['yes', 'no']);
      await page.reload();
      await card.waitFor();
      expect(await page.getByTestId(`message-pref-${off.channel}`).isChecked()).toBe(false);
      expect(await page.getByTestId(`message-pref-${on.channel}`).isChecked()).toBe(true);
      expect(await page.getByTestId('notification-settings-sound').isChecked()).toBe(true);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, 'notification-settings-light');
      // The bell's sound switch follows the same choice.
      await page.getByTestId('notification-bell').click();
      expect(await page.getByTestId('notification-sound').isChecked()).toBe(true);
      await page.keyboard.press('Escape');

      // The tab goes to the background (headless Chromium keeps pages visible, so the page is told so).
      await waitConnected(page);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      });
      const shown = () =>
        page.evaluate(async () => {
          const r = await navigator.serviceWorker.ready;
          return (await r.getNotifications()).map((n) => `${n.title}|${n.body}|${n.tag}`);
        });
      const send = (ticketId: number, message: string) =>
        apiJson(
          `${server.url}/api/ticket/message`,
          'POST',
          { ticket_id: ticketId, message, type: 'text' },
          admin.token,
        );
      const skipped = await send(off.id, 'On the channel that is off');
      expect(skipped.result).toBe('success');
      const sent = await send(on.id, 'Hello from the admin');
      const expected = `${numberOf(on.id)}\\)\\|Hello from the admin\\|message-${sent.data.id}`;
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { shownCalls: string[] }).shownCalls), {
          timeout: 10_000,
        })
        .toEqual([expect.stringMatching(new RegExp(`^.+ \\(#${expected}\\|shown$`))]);
      await expect
        .poll(shown, { timeout: 10_000 })
        .toEqual([
          expect.stringMatching(
            new RegExp(`^.+ \\(#${numberOf(on.id)}\\)\\|Hello from the admin\\|message-${sent.data.id}$`),
          ),
        ]);
      // A message while the tab is visible again shows nothing more.
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      });
      const from = events.length;
      const looked = await send(on.id, 'While you look');
      // The page has had the message and then its ticket's update (the pair a notification is raised on) and
      // handled them: a notification would have been asked for by now.
      const handled = () => {
        const later = events.slice(from);
        const m = later.findIndex((e) => e.name === 'newMessage' && (e.data as { id: number }).id === looked.data.id);
        return (
          m >= 0 && later.slice(m).some((e) => e.name === 'updateTicket' && (e.data as { id: number }).id === on.id)
        );
      };
      await expect.poll(handled, { timeout: 10_000 }).toBe(true);
      await painted(page);
      expect(await page.evaluate(() => (window as unknown as { askedCalls: string[] }).askedCalls)).toHaveLength(1);
      expect(await page.evaluate(() => (window as unknown as { shownCalls: string[] }).shownCalls)).toHaveLength(1);
      expect(await shown()).toHaveLength(1);
      await ctx.close();
    }
  }, 90_000);
});
