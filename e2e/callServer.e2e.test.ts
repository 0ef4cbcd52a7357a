import net from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kamailio, type RunningKamailio } from './kamailio.js';
import {
  apiJson,
  axe,
  cli,
  freePort,
  launchBrowser,
  newContext,
  type RunningServer,
  requestsFlushed,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const CONNECTED = 'Connected to call server.';
const FAILED = 'Unable to connect to the call server. Click the icon to retry.';
const WAIT = { timeout: 15_000 };

/**
 * NAV-38, CALL-09 .. CALL-14, CALL-43: the call-server indicator of the navigation panel against a real SIP
 * registrar (Kamailio over WebSocket on loopback), and the account's own call server set on Call Configurations.
 */
describe('the call-server indicator in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let kam: RunningKamailio;
  /** Accepts TCP and never answers the WebSocket handshake: a call server that is still being reached. */
  let silent: net.Server;
  const sockets = new Set<net.Socket>();
  /** What the silent server has read on each connection: the handshakes it leaves unanswered. */
  const handshakes = new Map<net.Socket, string>();
  let silentPort = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    kam = await kamailio();
    silent = net.createServer((s) => {
      sockets.add(s);
      s.on('data', (d) => handshakes.set(s, (handshakes.get(s) ?? '') + d.toString()));
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as net.AddressInfo).port;
    // CALL-14: the installation's call server is SIP_WS_URL.
    [server, browser] = await Promise.all([startServer({ SIP_WS_URL: kam.wsUrl }), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [
      { username: 'bob', name: 'Bo Agent' },
      { username: 'cyd', name: 'Cyd Agent' },
    ]);
    const { accountId } = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, admin);
    const line = ['--account', String(accountId), '--active', '1', '--sip-password', 'line secret'];
    await cli(server, 'user:sip', ...line, '--username', 'bob', '--number', '1001');
    await cli(server, 'user:sip', '--account', String(accountId), '--username', 'cyd', '--number', '1002');
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
    await kam?.stop();
    for (const s of sockets) s.destroy();
    silent?.close();
  });

  async function signedIn(username: string, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, server.url, username);
    return page;
  }
  const indicator = (page: Page) => page.getByTestId('call-server');
  const stateOf = (page: Page, state: string) =>
    page.locator(`[data-testid="call-server"][data-state="${state}"]`).waitFor(WAIT);

  it('NAV-38 CALL-10 CALL-11 CALL-12 CALL-13 green once registered at the real registrar, red when it stops, Dismiss, a click retries', async () => {
    const page = await signedIn('bob');
    // The page's timers from here on are the test's clock: a reconnect the user agent scheduled would be one.
    await page.clock.install();
    const registrar: string[] = [];
    page.on('websocket', (ws) => {
      if (ws.url().startsWith(kam.wsUrl)) registrar.push(ws.url());
    });
    // CALL-10: green with the spec's words once the line is registered (Kamailio answered 200 to REGISTER).
    await stateOf(page, 'connected');
    await expect(indicator(page).getAttribute('aria-label')).resolves.toBe(CONNECTED);
    await indicator(page).hover();
    await page.getByRole('tooltip', { name: CONNECTED }).waitFor(WAIT);
    const green = await indicator(page).evaluate((e) => getComputedStyle(e).color);

    // CALL-11: the call server goes away: red, with the spec's words.
    await kam.stop();
    await stateOf(page, 'error');
    const opened = registrar.length;
    const alert = page.getByTestId('call-server-error');
    await alert.getByText(FAILED).waitFor(WAIT);
    expect(await indicator(page).evaluate((e) => getComputedStyle(e).color)).not.toBe(green);
    // CALL-13: the installation's own address has no Authenticate.
    await expect(alert.getByRole('button', { name: 'Dismiss' }).isVisible()).resolves.toBe(true);
    expect(await page.getByTestId('call-server-authenticate').count()).toBe(0);
    await screenshot(page, 'call-server-error');
    expect(await axe(page, '[data-testid="call-server-error"]')).toEqual([]);

    // CALL-12: Dismiss closes the message; the icon stays red.
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await alert.waitFor({ state: 'hidden', ...WAIT });
    await expect(indicator(page).getAttribute('data-state')).resolves.toBe('error');

    // CALL-11: it does not reconnect by itself; a click on the icon retries. A user agent left running would
    // have tried again within JsSIP's longest recovery interval (30 s), and its socket would show before the
    // sentinel's request.
    await kam.start();
    await page.clock.runFor(35_000);
    await requestsFlushed(page);
    expect(registrar.length).toBe(opened);
    await expect(indicator(page).getAttribute('data-state')).resolves.toBe('error');
    await indicator(page).click();
    await stateOf(page, 'connected');
    // The retry's socket is seen as a reconnect would have been.
    expect(registrar.length).toBe(opened + 1);
  });

  it('NAV-38 a user whose SIP line is not active has no indicator', async () => {
    const page = await signedIn('cyd');
    await page.getByRole('list', { name: 'Main navigation' }).waitFor(WAIT);
    expect(await indicator(page).count()).toBe(0);
  });

  it("CALL-43 CALL-44 CALL-09 CALL-13 CALL-14 the account's own call server: orange while reached, Authenticate opens its address", async () => {
    const ann = await signedIn('ann', 'dark');
    await ann.goto(`${server.url}/call_config`);
    await ann.getByRole('heading', { name: 'Call Configurations' }).waitFor(WAIT);
    await ann.getByText(kam.wsUrl).waitFor(WAIT);
    const address = ann.getByTestId('call-server-url');
    // A bad address is refused with its reason; nothing is saved.
    await address.fill('http://pbx.example');
    await ann.getByRole('button', { name: 'Save' }).click();
    await ann.getByText('The call server address must be a ws:// or wss:// address.').waitFor(WAIT);
    const before = await apiJson(`${server.url}/api/call/config`, 'GET', undefined, await tokenOf('ann'));
    expect(before.data.sip_ws_url).toBeNull();

    // CALL-09: an address that takes the connection but never completes it leaves the icon orange.
    await address.fill(`ws://127.0.0.1:${silentPort}/ws`);
    await ann.getByRole('button', { name: 'Save' }).click();
    await ann.getByText('Call server saved.').waitFor(WAIT);
    await screenshot(ann, 'call-config-dark');
    expect(await axe(ann)).toEqual([]);
    const bob = await signedIn('bob');
    await stateOf(bob, 'connecting');
    // The silent server has read this page's handshake (it carries Bob's session cookie) and never answers:
    // the page is waiting on the call server, with no timer of its own to give up.
    const cookie = (await bob.context().cookies(server.url)).find((c) => c.name === 'parley_token');
    expect(cookie).toBeDefined();
    await expect
      .poll(() => [...handshakes.values()].some((h) => h.includes(`parley_token=${cookie!.value}`)), WAIT)
      .toBe(true);
    await expect(indicator(bob).getAttribute('data-state')).resolves.toBe('connecting');

    // CALL-13, CALL-14: an address of the account's own that refuses: red, with Authenticate to open it.
    const closed = await freePort();
    await apiJson(
      `${server.url}/api/call/config`,
      'POST',
      { sip_ws_url: `ws://127.0.0.1:${closed}/ws` },
      await tokenOf('ann'),
    );
    await bob.reload();
    await stateOf(bob, 'error');
    const authenticate = bob.getByTestId('call-server-authenticate');
    await authenticate.waitFor(WAIT);
    expect(await authenticate.getAttribute('href')).toBe(`http://127.0.0.1:${closed}/`);
    expect(await authenticate.getAttribute('target')).toBe('_blank');
    await screenshot(bob, 'call-server-authenticate');

    // Emptying the address goes back to the installation's registrar.
    await address.fill('');
    await ann.getByRole('button', { name: 'Save' }).click();
    // The first save's notice may still be up, so the saved address is read back rather than the notice.
    const annToken = await tokenOf('ann');
    await expect
      .poll(
        async () => (await apiJson(`${server.url}/api/call/config`, 'GET', undefined, annToken)).data.sip_ws_url,
        WAIT,
      )
      .toBeNull();
    await bob.reload();
    await stateOf(bob, 'connected');
  });

  async function tokenOf(username: string): Promise<string> {
    return (await apiJson(`${server.url}/api/auth2`, 'POST', { client: username, password: 'correct horse battery' }))
      .token;
  }
});
