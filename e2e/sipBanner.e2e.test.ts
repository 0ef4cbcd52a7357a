import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  CHROMIUM,
  cli,
  launchBrowser,
  newContext,
  PASSWORD,
  painted,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInUi,
  startServer,
} from './support.js';

const BLOCKED =
  'Your phone line is on, but this browser blocks the microphone. Allow the microphone for this site, then reload.';
const NO_MIC = 'Your phone line is on, but no microphone was found. Connect one to take or make calls.';
const INSECURE =
  'Your phone line is on, but calls cannot work on this address: browsers allow the microphone only on a secure (https) address.';

/** A loaded machine is slow to paint: wait up to 15 s for a state. */
const WAIT = { timeout: 15_000 };

/**
 * The page's own microphone check has been answered and drawn: the browser answers a page's permission and
 * device questions in the order they are asked, so the same questions asked now come back after the page's,
 * and two frames later what the page made of them (a banner or none) is on screen.
 */
async function micChecked(p: Page): Promise<void> {
  await p.evaluate(() =>
    navigator.permissions
      .query({ name: 'microphone' as PermissionName })
      .then(() => navigator.mediaDevices.enumerateDevices()),
  );
  await painted(p);
}

/** CALL-02 .. CALL-05: the SIP message banner with Dismiss, in Chromium. */
describe('the SIP message banner in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  /** Debian's Chromium with a fake microphone, and with `sip.test` resolving to this machine (not secure). */
  let other: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer().catch(() => startServer()), launchBrowser()]);
    other = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--use-fake-device-for-media-stream',
        '--host-resolver-rules=MAP sip.test 127.0.0.1',
      ],
    });
    const admin = await seedWorkspace(server.url, [{ username: 'bob', name: 'Bo Agent' }]);
    const { accountId } = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, admin);
    // CALL-02: the SIP line is set with the CLI; only Bo's line is active.
    await cli(
      server,
      'user:sip',
      '--account',
      String(accountId),
      '--username',
      'BOB',
      '--active',
      '1',
      '--number',
      '1001',
    );
    await cli(server, 'user:sip', '--account', String(accountId), '--username', 'ann', '--number', '1000');
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await other?.close();
    await browser?.close();
    await server?.stop();
  });

  async function page(b: Browser, mic: 'denied' | 'granted' | 'prompt', base = server.url): Promise<Page> {
    const ctx = b === browser ? await newContext(b) : await b.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(ctx);
    if (mic === 'granted') await ctx.grantPermissions(['microphone'], { origin: base });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => console.error(e.message));
    if (mic === 'denied') {
      // Playwright only grants; Chromium's own protocol denies, for this context only.
      const cdp = await ctx.newCDPSession(p);
      const { targetInfo } = await cdp.send('Target.getTargetInfo');
      await cdp.send('Browser.setPermission', {
        permission: { name: 'microphone' },
        setting: 'denied',
        origin: base,
        browserContextId: targetInfo.browserContextId,
      });
    }
    return p;
  }
  const banner = (p: Page) => p.getByTestId('banner-sip');

  it('CALL-02 CALL-03 the auth check reports the line set by the CLI; no line, no banner even with the microphone blocked', async () => {
    const bo = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'bob', password: PASSWORD })).token;
    const check = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, bo);
    expect(check.sip).toMatchObject({ active: true, sip_number: '1001' });

    const p = await page(browser, 'denied');
    await signInUi(p, server.url, 'ann');
    expect(
      await p.evaluate(() =>
        navigator.permissions.query({ name: 'microphone' as PermissionName }).then((s) => s.state),
      ),
    ).toBe('denied');
    await micChecked(p);
    expect(await banner(p).count()).toBe(0);
  }, 120_000);

  it('CALL-04 CALL-05 the line is on and the microphone is blocked: the banner says so; Dismiss hides it for the session', async () => {
    const p = await page(browser, 'denied');
    await signInUi(p, server.url, 'bob');
    await banner(p).waitFor();
    expect(await banner(p).innerText()).toContain(BLOCKED);
    await screenshot(p, 'sip-banner-blocked-light');
    await banner(p).getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => banner(p).count(), WAIT).toBe(0);
    // Dismissed for this browser session: a reload keeps it hidden.
    await p.reload();
    await p.getByTestId('welcome').waitFor();
    await micChecked(p);
    expect(await banner(p).count()).toBe(0);
    // A new session (another browser context) shows it again.
    const again = await page(browser, 'denied');
    await signInUi(again, server.url, 'bob');
    await banner(again).waitFor();
  }, 120_000);

  it('CALL-05 allowed but no microphone: the banner says to connect one; with a microphone there is no banner', async () => {
    const p = await page(browser, 'granted');
    await signInUi(p, server.url, 'bob');
    await banner(p).waitFor();
    expect(await banner(p).innerText()).toContain(NO_MIC);

    const withMic = await page(other, 'granted');
    await signInUi(withMic, server.url, 'bob');
    expect(
      await withMic.evaluate(() =>
        navigator.mediaDevices.enumerateDevices().then((d) => d.some((x) => x.kind === 'audioinput')),
      ),
    ).toBe(true);
    await micChecked(withMic);
    expect(await banner(withMic).count()).toBe(0);
  }, 120_000);

  it('CALL-05 on an http address other than localhost the browser has no microphone API: the banner says why', async () => {
    const base = server.url.replace('127.0.0.1', 'sip.test');
    const p = await page(other, 'prompt', base);
    await signInUi(p, base, 'bob');
    expect(await p.evaluate(() => window.isSecureContext)).toBe(false);
    await banner(p).waitFor();
    expect(await banner(p).innerText()).toContain(INSECURE);
    await screenshot(p, 'sip-banner-insecure-light');
  }, 120_000);
});
