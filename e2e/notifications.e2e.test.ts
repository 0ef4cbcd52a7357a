import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
// @ts-expect-error http_ece (a web-push dependency) ships no types.
import ece from 'http_ece';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  cli,
  launchBrowser,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  startServer,
  waitConnected,
} from './support.js';

// The Web Push endpoint stand-in (the same as the server's push test uses; e2e cannot import server files).
/** A self-signed certificate for 127.0.0.1, made with openssl. */
export function selfSigned(): { key: string; cert: string; certFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-push-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
}

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A stand-in push service speaking the Web Push protocol over HTTPS: it answers 201 and keeps each request.
 * `subscription()` makes a browser-like key pair and auth secret; `decrypt()` opens an aes128gcm body with them.
 */
export async function startPushEndpoint() {
  const tls = selfSigned();
  const received: Received[] = [];
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const gone = (req.url ?? '').includes('/gone/');
      res.writeHead(gone ? 410 : 201).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = crypto.randomBytes(16);
  return {
    received,
    certFile: tls.certFile,
    agent: new https.Agent({ ca: tls.cert }),
    subscription: (name: string) => ({
      endpoint: `https://127.0.0.1:${port}/push/${name}`,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') },
    }),
    decrypt: (body: Buffer): string =>
      ece
        .decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: authSecret.toString('base64url') })
        .toString('utf8'),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('notifications in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let push: Awaited<ReturnType<typeof startPushEndpoint>>;
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
    push = await startPushEndpoint();
    [server, browser] = await Promise.all([startServer({ NODE_EXTRA_CA_CERTS: push.certFile }), launchBrowser()]);
    await cli(server, 'demo', '--tickets', '5', '--password', PASSWORD);
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    sqlite?.close();
    await browser?.close();
    await server?.stop();
    await push?.close();
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

  it('NOTIF-35 NOTIF-36 a Web Push reaches a real service worker (CDP) after the stand-in decrypts it', async () => {
    const agent = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-agent2', password: PASSWORD });
    const sub = push.subscription('agent2');
    const reg = await apiJson(
      `${server.url}/api/fcm/token`,
      'POST',
      { token: JSON.stringify(sub), type: 'web', domain: 'e2e' },
      agent.token,
    );
    expect(reg).toEqual({ result: 'success' });
    const admin = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password: PASSWORD });
    const ticket = sqlite
      .prepare(
        "select id, ticket_number from tickets where channel <> 'chat' and assignee not like '%demo-agent2%' order by id desc limit 1",
      )
      .get() as {
      id: number;
      ticket_number: number;
    };
    await apiJson(`${server.url}/api/ticket/assign`, 'POST', { id: ticket.id, assignee: ['demo-agent2'] }, admin.token);
    await expect.poll(() => push.received.filter((x) => x.path === '/push/agent2').length, { timeout: 10_000 }).toBe(1);
    const got = push.received.find((x) => x.path === '/push/agent2')!;
    const payload = JSON.parse(push.decrypt(got.body));
    expect(payload).toMatchObject({ title: `Assigned to you: #${ticket.ticket_number}`, category: 'system' });

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(server.url);
    await page.evaluate(async () => {
      await navigator.serviceWorker.register('/sw.js');
      await navigator.serviceWorker.ready;
    });
    await ctx.grantPermissions(['notifications'], { origin: server.url });
    const cdp = await ctx.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: typeof registrations }) =>
      registrations.push(...e.registrations),
    );
    await cdp.send('ServiceWorker.enable');
    await expect.poll(() => registrations.length).toBeGreaterThan(0);
    const shown = () =>
      page.evaluate(async () => {
        const r = await navigator.serviceWorker.ready;
        return (await r.getNotifications()).map((n) => `${n.title}|${n.body}`);
      });
    // A push delivered while a loaded machine is still starting the worker can be dropped by Chromium before
    // the worker runs: deliver it again until it shows (the notification's tag makes a repeat replace it).
    for (let attempt = 0; attempt < 5 && (await shown()).length === 0; attempt++) {
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: server.url,
        registrationId: registrations.at(-1)!.registrationId,
        data: push.decrypt(got.body),
      });
      await expect
        .poll(shown, { timeout: 4_000 })
        .not.toEqual([])
        .catch(() => undefined);
    }
    expect(await shown()).toEqual([`${payload.title}|${payload.body}`]);
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
      // Records each notification the page asks the service worker to show, and how the browser answered.
      await ctx.addInitScript(() => {
        const calls: string[] = [];
        (window as unknown as { shownCalls: string[] }).shownCalls = calls;
        const original = ServiceWorkerRegistration.prototype.showNotification;
        ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
          const call = `${title}|${options?.body}|${options?.tag}`;
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
      await signIn(page, 'demo-agent1');
      await page.goto(`${server.url}/settings/appearance`);
      const card = page.getByTestId('notification-settings');
      await card.waitFor();
      expect(await page.getByTestId('notification-permission').textContent()).toBe(
        'Allowed in this browser: new messages show while Parley is in the background.',
      );
      await page.waitForTimeout(300);
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
      await send(on.id, 'While you look');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await page.evaluate(() => (window as unknown as { shownCalls: string[] }).shownCalls)).toHaveLength(1);
      expect(await shown()).toHaveLength(1);
      await ctx.close();
    }
  });
  it('NOTIF-35 NOTIF-37 NOTIF-38 the subscription is sent with the channels turned off, and again on each change', async () => {
    const sub = push.subscription('agent1-choices');
    const ctx = await newContext(browser);
    await ctx.grantPermissions(['notifications'], { origin: server.url });
    // Headless Chromium has no push service: the browser's subscription is a stand-in one.
    await ctx.addInitScript((s) => {
      PushManager.prototype.getSubscription = async () => ({ toJSON: () => s }) as unknown as PushSubscription;
    }, sub);
    const page = await ctx.newPage();
    const sent: unknown[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/fcm/token')) sent.push(r.postDataJSON());
    });
    await signIn(page, 'demo-agent1');
    await page.goto(`${server.url}/settings/appearance`);
    await page.getByTestId('notification-settings').waitFor();
    const stored = () =>
      (
        sqlite.prepare('select channels_off from push_subscriptions where endpoint = ?').get(sub.endpoint) as
          | { channels_off: string | null }
          | undefined
      )?.channels_off ?? 'no row';
    // Registered on load with every channel on.
    await expect.poll(stored, { timeout: 10_000 }).toBe('[]');
    await page.getByTestId('message-pref-EMAIL').click({ force: true });
    await page.getByTestId('message-pref-SMS').click({ force: true });
    await expect.poll(stored, { timeout: 10_000 }).toBe('["EMAIL","SMS"]');
    await page.getByTestId('message-pref-EMAIL').click({ force: true });
    await expect.poll(stored, { timeout: 10_000 }).toBe('["SMS"]');
    // The last request carries the last choice, and nothing older lands after it (registrations are queued).
    await expect
      .poll(() => sent.at(-1), { timeout: 5_000 })
      .toMatchObject({ type: 'web', token: sub, channels_off: ['SMS'] });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(stored()).toBe('["SMS"]');
    await ctx.close();
  });
});
