import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  newContext,
  PASSWORD,
  painted,
  type RunningServer,
  screenshot,
  signInAs,
  startDemo,
  waitConnected,
} from './support.js';

/**
 * SHELL-56. Desktop Chromium keeps an AudioContext suspended until the page has had a user gesture; headless
 * Chromium lets audio start anyway, whatever `--autoplay-policy` says (tried here). So the page gets a
 * stand-in of that policy, built on the page's trusted input events: a context made without a recent
 * gesture stays suspended, and resume() works only right after one (a trusted click by Playwright counts).
 * Installed in the page before it loads; `__levels` keeps the level each sound ramps to.
 */
function audioPolicy() {
  // A gesture is a trusted input event in the last 5 s (Chromium's transient activation). Read from the
  // events, not navigator.userActivation: Playwright's own evaluations count as gestures there.
  let lastGesture = Number.NEGATIVE_INFINITY;
  for (const type of ['pointerdown', 'keydown', 'click']) {
    window.addEventListener(
      type,
      (e) => {
        if (e.isTrusted) lastGesture = performance.now();
      },
      true,
    );
  }
  const active = () => performance.now() - lastGesture < 5_000;
  (window as unknown as { __levels: number[] }).__levels = [];
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    #allowed = active();
    constructor(options?: AudioContextOptions) {
      super(options);
      (window as unknown as { __audio: AudioContext }).__audio = this;
      if (!this.#allowed) void super.suspend();
    }
    override get state(): AudioContextState {
      return this.#allowed ? super.state : 'suspended';
    }
    // The level each sound ramps to (NOTIF-20: the notification at 0.5).
    override createGain(): GainNode {
      const node = super.createGain();
      const ramp = node.gain.linearRampToValueAtTime.bind(node.gain);
      node.gain.linearRampToValueAtTime = (value: number, time: number) => {
        (window as unknown as { __levels: number[] }).__levels.push(value);
        return ramp(value, time);
      };
      return node;
    }
    override resume(): Promise<void> {
      if (!active()) return new Promise(() => undefined);
      this.#allowed = true;
      return super.resume();
    }
  };
}

describe('the notification sound in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';

  beforeAll(async () => {
    ({ server, browser } = await startDemo({ tickets: 6, password: PASSWORD }));
    adminToken = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password: PASSWORD })).token;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Assigns one more ticket to agent1: a System notification arrives live, with its sound. */
  let assigned = 0;
  async function notifyAgent() {
    const list = await apiJson(`${server.url}/ticket/load/${adminToken}/4/ticket/0`, 'GET');
    const ticket = (list.data as { id: number; assignee: string }[]).filter(
      (t) => !t.assignee.split(',').includes('demo-agent1'),
    )[assigned++];
    expect(ticket).toBeDefined();
    await apiJson(`${server.url}/api/ticket/assign`, 'POST', { id: ticket!.id, assignee: ['demo-agent1'] }, adminToken);
  }
  const levels = (page: Page) => page.evaluate(() => (window as unknown as { __levels: number[] }).__levels);
  const audioState = (page: Page) =>
    page.evaluate(() => (window as unknown as { __audio?: AudioContext }).__audio?.state ?? 'none');

  it('SHELL-56 NOTIF-37 NOTIF-20 a blocked notification sound asks for a click; closing it turns sound on', async () => {
    const ctx = await newContext(browser);
    await ctx.addInitScript(() => {
      // The sound choice on (TicketNotificationSound, NOTIF-37).
      localStorage.setItem('TicketNotificationSound', 'yes');
    });
    await ctx.addInitScript(audioPolicy);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'demo-agent1');
    // Signing in was typing and clicking; a fresh load has had no interaction yet.
    await page.reload();
    await waitConnected(page);
    const modal = page.getByRole('dialog').filter({ hasText: 'Please close this to activate sound.' });
    expect(await modal.count()).toBe(0);

    await notifyAgent();
    await modal.waitFor({ timeout: 10_000 });
    expect(await audioState(page)).toBe('suspended');
    expect(await levels(page)).toEqual([]); // a blocked sound does not play
    await screenshot(page, 'shell-sound-blocked');
    await modal.getByRole('button').click();
    await modal.waitFor({ state: 'detached' });
    await expect.poll(() => audioState(page)).toBe('running');

    // Sound now plays: the next notification does not ask again.
    await notifyAgent();
    await page.getByTestId('notification-bell').waitFor();
    await expect.poll(() => levels(page).then((l) => l.length)).toBeGreaterThan(0);
    expect(Math.max(...(await levels(page)))).toBe(0.5);
    // The sound played: a blocked one would have raised the modal instead, before any tone, in the same call.
    await painted(page);
    expect(await modal.count()).toBe(0);
    await ctx.close();
  });
  it('NOTIF-19 NOTIF-20 NOTIF-37 the first click of the sound switch turns sound on and plays the notification at 0.5', async () => {
    const ctx = await newContext(browser);
    await ctx.addInitScript(audioPolicy);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'demo-agent2');
    await page.getByTestId('notification-bell').click();
    const toggle = page.getByTestId('notification-sound');
    // Off until chosen, and silent.
    expect(await toggle.isChecked()).toBe(false);
    expect(await page.evaluate(() => localStorage.getItem('TicketNotificationSound'))).toBeNull();
    expect(await levels(page)).toEqual([]);
    await toggle.click({ force: true });
    expect(await toggle.isChecked()).toBe(true);
    expect(await page.evaluate(() => localStorage.getItem('TicketNotificationSound'))).toBe('yes');
    // The notification sound: two tones, each ramping up to 0.5 and back down to 0.
    await expect.poll(() => levels(page)).toEqual([0.5, 0, 0.5, 0]);
    expect(await audioState(page)).toBe('running');
    // Turning it off plays nothing.
    await toggle.click({ force: true });
    expect(await page.evaluate(() => localStorage.getItem('TicketNotificationSound'))).toBe('no');
    // The switch plays (or not) as it is clicked, audio already running: a sound would have its tones by now.
    await painted(page);
    expect(await levels(page)).toEqual([0.5, 0, 0.5, 0]);
    await ctx.close();
  });
});
