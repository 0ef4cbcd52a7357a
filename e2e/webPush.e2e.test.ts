import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushEndpoint } from '../apps/server/src/testing/pushEndpoint.js';
import {
  addAgent,
  apiJson,
  newContext,
  PASSWORD,
  type RunningServer,
  requestsFlushed,
  signInAs,
  startDemo,
} from './support.js';

/**
 * Web Push in Chromium. Headless Chromium has no push service: the server sends each push, encrypted
 * with the real Web Push protocol (aes128gcm, VAPID), to a local push endpoint stand-in that decrypts it, and
 * CDP delivers the plain payload to the app's real service worker.
 */
describe('Web Push in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let push: Awaited<ReturnType<typeof startPushEndpoint>>;
  let sqlite: Database.Database;

  beforeAll(async () => {
    push = await startPushEndpoint();
    ({ server, browser } = await startDemo({
      tickets: 5,
      password: PASSWORD,
      env: { NODE_EXTRA_CA_CERTS: push.certFile, PUSH_ALLOWED_HOSTS: push.allowedHost },
    }));
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    sqlite?.close();
    await browser?.close();
    await server?.stop();
    await push?.close();
  });

  it('NOTIF-35 NOTIF-36 NOTIF-06 a Web Push reaches a real service worker (CDP) after the stand-in decrypts it; its click opens the ticket', async () => {
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
    await signInAs(page, server.url, 'demo-agent2');
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

    // The click (sw.js notificationclick), run in the real worker. CDP cannot click a notification, so the
    // worker dispatches the event on the notification it shows; a script's event may not extend its life
    // (waitUntil), so the test holds the promise the handler hands to it instead.
    expect(payload.url).toBe(`/ticket?number=${ticket.ticket_number}`);
    await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
    const [worker] = ctx.serviceWorkers();
    expect(worker?.url()).toBe(`${server.url}/sw.js`);
    const clicked = await worker!.evaluate(async () => {
      // The worker's globals (the page's DOM types do not name them).
      const sw = self as unknown as {
        registration: ServiceWorkerRegistration;
        dispatchEvent(e: Event): boolean;
        NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
      };
      const [n] = await sw.registration.getNotifications();
      const event = new sw.NotificationEvent('notificationclick', { notification: n! });
      let held: Promise<unknown> = Promise.resolve();
      Object.defineProperty(event, 'waitUntil', {
        value: (p: Promise<unknown>) => {
          held = p;
        },
      });
      sw.dispatchEvent(event);
      // Focusing a window needs a real click's activation; the tab is told where to go before that.
      await held.catch(() => undefined);
      return (await sw.registration.getNotifications()).length;
    });
    expect(clicked).toBe(0); // the click closed it
    // The open tab goes to the link, and the link opens that ticket's conversation.
    await page.waitForURL(`${server.url}/ticket/${ticket.id}`);
    await page.locator(`[data-testid="conversation-pane"][data-ticket="${ticket.id}"]`).waitFor();
    await ctx.close();
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
    let answered = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/fcm/token')) sent.push(r.postDataJSON());
    });
    page.on('requestfinished', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/fcm/token')) answered++;
    });
    await signInAs(page, server.url, 'demo-agent1');
    // The home page registers too: that one is answered before the page is left, or leaving would cancel it
    // in the browser (sent, never finished) while the server may still store it.
    await expect.poll(() => sent.length > 0 && answered === sent.length, { timeout: 10_000 }).toBe(true);
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
    // Every registration the page started has been sent (the sentinel's request comes after them) and
    // answered: none is left to land later.
    await requestsFlushed(page);
    await expect.poll(() => answered, { timeout: 10_000 }).toBe(sent.length);
    expect(stored()).toBe('["SMS"]');
    await ctx.close();
  });
  it('NOTIF-35 NOTIF-36 NOTIF-06 no Web Push of a new message while a tab of the agent has focus; sent once it blurs or closes; its link opens the live chat', async () => {
    const admin = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password: PASSWORD });
    const username = `focus-${Date.now().toString(36)}`;
    const agent = { token: await addAgent(server.url, admin.token, username, 'Fay Focus') };
    const userId = (sqlite.prepare('select id from users where username = ?').get(username) as { id: number }).id;
    const sub = push.subscription(username);
    await apiJson(`${server.url}/api/fcm/token`, 'POST', { token: sub, type: 'web', domain: 'e2e' }, agent.token);
    const pushed = () =>
      push.received
        .filter((r) => r.path === `/push/${username}`)
        .map((r) => JSON.parse(push.decrypt(r.body)) as { kind: string; body: string; url: string });
    const focused = () =>
      (
        sqlite.prepare('select focused from notification_focus where user_id = ?').all(userId) as {
          focused: number;
        }[]
      ).map((r) => r.focused);

    // The agent's tab. Playwright makes every headless page report focus; without that emulation, the page in
    // front has the focus and another page brought to front takes it (real focus and blur events).
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInAs(page, server.url, username);
    // After the last navigation: a new document gets the emulation again.
    await (await ctx.newCDPSession(page)).send('Emulation.setFocusEmulationEnabled', { enabled: false });
    await apiJson(`${server.url}/api/online_status/update`, 'POST', { status: 'ONLINE', reason: '' }, agent.token);
    await expect.poll(focused).toEqual([1]);

    // A visitor's live chat, accepted by the agent: the visitor's messages are a customer's, in a ticket
    // assigned to the agent.
    const live = (await apiJson(`${server.url}/api/livechat/settings`, 'GET', undefined, admin.token)).data.token;
    const visitorCtx = await newContext(browser);
    const visitor = await visitorCtx.newPage();
    await visitor.goto(
      `${server.url}/register/livechat/${live}?name=Vera&phone=555&email=vera%40example.com&reason=Hello%20there`,
    );
    await visitor.getByText(/Your queue number is/).waitFor();
    const accepted = await apiJson(`${server.url}/api/livechat/accept`, 'POST', { id: null }, agent.token);
    const ticketId = accepted.ticket_id as number;
    await visitor.waitForURL(new RegExp(`/start/livechat/${live}$`));
    const stored = (text: string) =>
      sqlite.prepare('select count(*) as c from messages where ticket_id = ? and message = ?').get(ticketId, text) as {
        c: number;
      };
    const say = async (text: string) => {
      await visitor.getByLabel('Type a message').fill(text);
      await visitor.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => stored(text).c).toBe(1);
    };
    // The relay has delivered the message's event: its Web Push, if it had one, reached the push endpoint
    // before that (the send waits for the endpoint's answer).
    const delivered = (text: string) =>
      expect
        .poll(
          () =>
            (
              sqlite
                .prepare(
                  `select e.delivered_at from events e join messages m on m.id = json_extract(e.payload, '$.id')
                   where e.type = 'message.created' and m.ticket_id = ? and m.message = ?`,
                )
                .get(ticketId, text) as { delivered_at: number | null } | undefined
            )?.delivered_at ?? null,
          { timeout: 15_000 },
        )
        .not.toBeNull();

    // Focused: nothing is pushed.
    await say('First, while you look');
    await delivered('First, while you look');
    expect(pushed()).toEqual([]);

    // Another page comes to the front: the agent's tab blurs and says so; the next message is pushed.
    const other = await ctx.newPage();
    await other.bringToFront();
    await expect.poll(focused).toEqual([0]);
    await say('Second, while you are away');
    await expect.poll(() => pushed().length, { timeout: 10_000 }).toBe(1);
    const number = (
      sqlite.prepare('select ticket_number from tickets where id = ?').get(ticketId) as {
        ticket_number: number;
      }
    ).ticket_number;
    expect(pushed()[0]).toMatchObject({
      kind: 'message',
      body: 'Second, while you are away',
      url: `/livechat?number=${number}`,
    });

    // Back in front: focused again, nothing pushed.
    await page.bringToFront();
    await expect.poll(focused).toEqual([1]);
    await say('Third, you are back');
    await delivered('Third, you are back');
    expect(pushed()).toHaveLength(1);

    // The push's link opens the live chat (NOTIF-06).
    await page.goto(`${server.url}${pushed()[0]!.url}`);
    await page.waitForURL(`${server.url}/livechat/${ticketId}`);

    // The tab is closed: its focus goes with its socket, and the next message is pushed.
    await page.close();
    await expect.poll(focused).toEqual([]);
    await say('Fourth, after you left');
    await expect.poll(() => pushed().length, { timeout: 10_000 }).toBe(2);
    await delivered('Fourth, after you left');
    expect(pushed().map((p) => p.body)).toEqual(['Second, while you are away', 'Fourth, after you left']);
    await visitorCtx.close();
    await ctx.close();
  }, 90_000);
});
