import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kamailio, type RunningKamailio } from './kamailio.js';
import {
  apiJson,
  axe,
  cli,
  launchBrowser,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const WAIT = { timeout: 15_000 };
/** RECIPES.md: a fake microphone, no permission prompt, and WebRTC allowed on loopback. */
const MEDIA_FLAGS = [
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--allow-loopback-in-peer-connection',
];

/** What the caller's page reports about its call. */
interface CallerLog {
  events: string[];
  cause: string;
  originator: string;
  packetsReceived: number;
}

/**
 * NAV-16, NAV-17, CALL-15, CALL-16: a customer's softphone (a second JsSIP agent in its own browser page)
 * calls an agent's line through a real Kamailio; the call rings in the agent's navigation panel as the
 * Incoming Call entry, which declines or answers it with audio.
 */
describe('the Incoming Call entry with a real call in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let kam: RunningKamailio;
  let jssip = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    kam = await kamailio({ calls: true });
    [server, browser] = await Promise.all([startServer({ SIP_WS_URL: kam.wsUrl }), launchBrowser(MEDIA_FLAGS)]);
    const admin = await seedWorkspace(server.url, [{ username: 'bob', name: 'Bo Agent' }]);
    const { accountId } = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, admin);
    await cli(
      server,
      'user:sip',
      '--account',
      String(accountId),
      '--username',
      'bob',
      '--active',
      '1',
      '--number',
      '1001',
    );
    // JsSIP for the caller's page, as one script.
    const out = await build({
      stdin: { contents: "window.JsSIP = require('jssip');", resolveDir: import.meta.dirname },
      bundle: true,
      format: 'iife',
      write: false,
      logLevel: 'silent',
    });
    jssip = out.outputFiles[0]!.text;
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
    await kam?.stop();
  });

  const open = async (scheme: 'light' | 'dark' = 'light'): Promise<Page> => {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    return page;
  };

  /** The customer's phone: a page on a loopback (secure) address running JsSIP, connected to the call server. */
  async function callerPhone(): Promise<Page> {
    const page = await open();
    await page.goto(`${server.url}/healthz`);
    await page.evaluate(jssip);
    await page.evaluate(async (ws) => {
      const w = window as unknown as { JsSIP: any; ua: any };
      w.ua = new w.JsSIP.UA({
        sockets: [new w.JsSIP.WebSocketInterface(ws)],
        uri: 'sip:2001@127.0.0.1',
        display_name: 'Carol Caller',
        register: false,
        session_timers: false,
      });
      await new Promise<void>((resolve) => {
        w.ua.on('connected', () => resolve());
        w.ua.start();
      });
    }, kam.wsUrl);
    return page;
  }

  /** Dials the agent's line with a phone-menu choice in `X-Keypress`. */
  const dial = (phone: Page, keypress: string) =>
    phone.evaluate((key) => {
      const w = window as unknown as { ua: any; log: CallerLog; session: any };
      w.log = { events: [], cause: '', originator: '', packetsReceived: 0 };
      w.session = w.ua.call('sip:1001@127.0.0.1', {
        mediaConstraints: { audio: true, video: false },
        extraHeaders: [`X-Keypress: ${key}`],
        pcConfig: { iceServers: [] },
      });
      for (const e of ['progress', 'accepted', 'confirmed', 'failed', 'ended'])
        w.session.on(e, (d: { cause?: string; originator?: string }) => {
          w.log.events.push(e);
          if (d?.cause) w.log.cause = d.cause;
          if (d?.originator) w.log.originator = d.originator;
        });
    }, keypress);
  const log = (phone: Page) =>
    phone.evaluate(async () => {
      const w = window as unknown as { log: CallerLog; session: any };
      const pc: RTCPeerConnection | undefined = w.session?.connection;
      if (pc)
        for (const r of (await pc.getStats()).values())
          if (r.type === 'inbound-rtp' && r.kind === 'audio') w.log.packetsReceived = r.packetsReceived;
      return w.log;
    });

  it('NAV-16 NAV-17 CALL-15 CALL-16 CALL-23 CALL-27 a call rings as Incoming Call in place of Call; Decline refuses it; Accept answers with audio; Hang up', async () => {
    const agent = await open();
    await signInAs(agent, server.url, 'bob');
    await agent.locator('[data-testid="call-server"][data-state="connected"]').waitFor(WAIT);
    const entry = agent.getByTestId('incoming-call');
    expect(await agent.getByTestId('nav-call').count()).toBe(1);

    // The customer calls, having pressed 12 (English, Aircon).
    const phone = await callerPhone();
    await dial(phone, '12');
    await entry.waitFor(WAIT);
    expect(await entry.getByTestId('caller-name').textContent()).toBe('Carol Caller');
    expect(await entry.getByTestId('caller-keypress').textContent()).toBe('English · Aircon');
    expect(await entry.getByTestId('caller-number').textContent()).toBe('2001');
    expect(await entry.getByRole('link', { name: 'Incoming Call' }).getAttribute('href')).toBe('/call/ongoing');
    expect(await agent.getByTestId('nav-call').count()).toBe(0); // NAV-16
    await expect.poll(async () => (await log(phone)).events).toContain('progress'); // 180 Ringing
    await screenshot(agent, 'shell-incoming-call-light');
    expect(await axe(agent, '[data-testid="incoming-call"]')).toEqual([]);

    // Decline: the caller hears Busy; the entry goes and Call is back.
    await entry.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(async () => (await log(phone)).cause, WAIT).toBe('Busy');
    await entry.waitFor({ state: 'detached' });
    await agent.getByTestId('nav-call').waitFor();

    // Again, with a choice the menu does not have; collapsed panel this time, then Accept.
    await agent.getByTestId('nav-toggle').click();
    await dial(phone, '47');
    await entry.waitFor(WAIT);
    expect(await entry.getAttribute('aria-label')).toBe('Incoming Call: Carol Caller, 2001');
    await screenshot(agent, 'shell-incoming-call-collapsed-light');
    await agent.getByTestId('nav-toggle').click();
    expect(await entry.getByTestId('caller-keypress').textContent()).toBe('Unknown Keypress 47');
    await entry.getByRole('button', { name: 'Accept' }).click();
    await agent.waitForURL(`${server.url}/call/ongoing`);
    await expect.poll(async () => (await log(phone)).events, WAIT).toContain('confirmed');
    await entry.waitFor({ state: 'detached' });
    const active = agent.getByTestId('active-call');
    await active.getByText('On a call with Carol Caller').waitFor();
    // Audio flows from the agent's (fake) microphone to the caller.
    await expect.poll(async () => (await log(phone)).packetsReceived, WAIT).toBeGreaterThan(20);
    await screenshot(agent, 'shell-active-call-light');

    await active.getByRole('button', { name: 'Hang up' }).click();
    await expect.poll(async () => (await log(phone)).events, WAIT).toContain('ended');
    expect((await log(phone)).originator).toBe('remote');
    await active.waitFor({ state: 'detached' });
  });

  it('NAV-17 CALL-17 the caller hangs up while it rings: it rings at volume 1, again and again, until the entry goes (dark)', async () => {
    const agent = await open('dark');
    // The level each tone ramps to, recorded as the page's Web Audio plays it.
    await agent.addInitScript(() => {
      const w = window as unknown as { __levels: number[] };
      w.__levels = [];
      const Real = window.AudioContext;
      window.AudioContext = class extends Real {
        override createGain(): GainNode {
          const node = super.createGain();
          const ramp = node.gain.linearRampToValueAtTime.bind(node.gain);
          node.gain.linearRampToValueAtTime = (value: number, time: number) => {
            w.__levels.push(value);
            return ramp(value, time);
          };
          return node;
        }
      };
    });
    const rings = () =>
      agent.evaluate(() => (window as unknown as { __levels: number[] }).__levels.filter((v) => v === 1).length);
    await signInAs(agent, server.url, 'bob');
    await agent.locator('[data-testid="call-server"][data-state="connected"]').waitFor(WAIT);
    const phone = await callerPhone();
    await dial(phone, '3');
    const entry = agent.getByTestId('incoming-call');
    await entry.waitFor(WAIT);
    expect(await entry.getByTestId('caller-keypress').textContent()).toBe('Chinese');
    // One ring is four tones at volume 1; the ring comes back every 3 s while the call waits.
    await expect.poll(rings, WAIT).toBeGreaterThanOrEqual(4);
    expect(Math.max(...(await agent.evaluate(() => (window as unknown as { __levels: number[] }).__levels)))).toBe(1);
    await expect.poll(rings, WAIT).toBeGreaterThanOrEqual(8);
    await screenshot(agent, 'shell-incoming-call-dark');
    expect(await axe(agent, '[data-testid="incoming-call"]')).toEqual([]);
    await phone.evaluate(() => (window as unknown as { session: any }).session.terminate());
    await entry.waitFor({ state: 'detached', ...WAIT });
    await agent.getByTestId('nav-call').waitFor();
    // Silent once it went: no ring starts after the entry left.
    const after = await rings();
    await new Promise((r) => setTimeout(r, 3_500));
    expect(await rings()).toBe(after);
  });
});
