import path from 'node:path';
import { SUPERVISORY_REFRESH_DEBOUNCE_MS } from '@parley/contracts';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsSettled,
  apiJson,
  axe,
  launchBrowser,
  liveChatToken,
  PASSWORD,
  painted,
  type RunningServer,
  requestsFlushed,
  screenshot,
  signInAs,
  startServer,
  tokenOf,
  visitorQueued,
  waitFor,
} from './support.js';

const MIN = 60_000;

/**
 * The supervisory board in Chromium: a supervisor watches an agent come online and change status, a visitor
 * join the queue and the agent take the chat, each without a reload; then the board at 1440 px light and
 * dark and on a phone.
 */
describe('supervisory board in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const sockets: Socket[] = [];
  let admin = '';
  let amyToken = '';
  let liveToken = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const setup = await apiJson(`${server.url}/api/setup`, 'POST', {
      company: 'Acme Support',
      name: 'Ann Admin',
      username: 'ann',
      email: 'ann@example.com',
      password: PASSWORD,
    });
    admin = setup.token as string;
    for (const [username, name, type] of [
      ['sue', 'Sue Supervisor', 'supervisor'],
      ['amy', 'Amy Agent', 'agent'],
      ['bob', 'Bob Builder', 'agent'],
    ])
      await apiJson(
        `${server.url}/api/users`,
        'POST',
        { username, name, email: `${username}@example.com`, type, password: PASSWORD },
        admin,
      );
    amyToken = await tokenOf(server.url, 'amy');
    liveToken = await liveChatToken(server.url, admin);
    const ids: number[] = [];
    for (const title of ['Refund for order 1182', 'Cannot sign in after reset', 'Invoice address wrong', 'Hello'])
      ids.push((await apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name: 'Casey' }, admin)).data.id);

    // Straight into the database: who the tickets are assigned to, two SLA waits (one breached, one due in 20
    // minutes; no `next_at`, so the SLA check leaves them be) and a visitor waiting in Billing for 4 minutes.
    const now = Date.now();
    const sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
    const accountId = sqlite.prepare('select id from accounts').pluck().get() as number;
    const assign = sqlite.prepare('update tickets set assignee = ? where id = ?');
    assign.run('amy', ids[0]);
    assign.run('amy,bob', ids[1]);
    assign.run('bob', ids[2]);
    const timer = sqlite.prepare(
      `insert into sla_timers (ticket_id, account_id, label_id, sla_minutes, started_at, warn_at, due_at, warned_at,
        violated_at, answered_at, next_at, updated_at, paused_at)
       values (?, ?, 0, 60, ?, ?, ?, null, null, null, null, ?, null)`,
    );
    timer.run(ids[0], accountId, now - 70 * MIN, now - 22 * MIN, now - 10 * MIN, now);
    timer.run(ids[1], accountId, now - 40 * MIN, now + 8 * MIN, now + 20 * MIN, now);
    const billing = sqlite
      .prepare(`insert into departments (account_id, name, created_at) values (?, 'Billing', ?)`)
      .run(accountId, now).lastInsertRowid;
    const visitor = sqlite
      .prepare(`insert into livechat_visitors (account_id, csrf_hash, created_at) values (?, 'e2e-sup', ?)`)
      .run(accountId, now).lastInsertRowid;
    sqlite
      .prepare(
        `insert into livechats (account_id, visitor_id, session_id, state, name, phone, email, message, department_id,
          queued_at) values (?, ?, ?, 'queued', 'Dana', '', '', 'My invoice', ?, ?)`,
      )
      .run(accountId, visitor, visitor, billing, now - 4 * MIN);
    sqlite.close();
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function open(user: string, o: { width?: number; height?: number; scheme?: 'light' | 'dark' } = {}) {
    const width = o.width ?? 1440;
    const ctx = await browser.newContext({
      viewport: { width, height: o.height ?? 900 },
      colorScheme: o.scheme ?? 'light',
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (o.scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, server.url, user);
    return page;
  }
  const agentRow = (page: Page, username: string) => page.getByTestId(`sup-agent-${username}`);
  const statusOf = (page: Page, username: string) => agentRow(page, username).getAttribute('data-status');
  const waitStatus = (page: Page, username: string, status: string) =>
    page.waitForFunction(
      ([u, s]) => document.querySelector(`[data-testid="sup-agent-${u}"]`)?.getAttribute('data-status') === s,
      [username, status],
    );
  const waitText = (page: Page, testId: string, text: string) =>
    page.waitForFunction(
      ([id, t]) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() === t,
      [testId, text],
    );

  it('an agent coming online and changing status, a visitor queuing and the chat taken all show without a reload', async () => {
    const sue = await open('sue');
    // The board's timers are the test's clock from here on (it runs on by itself until told otherwise).
    await sue.clock.install();
    const reads: string[] = [];
    let readsDone = 0;
    sue.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/supervisory') reads.push(r.url());
    });
    sue.on('requestfinished', (r) => {
      if (new URL(r.url()).pathname === '/api/supervisory') readsDone++;
    });
    await sue.goto(`${server.url}/supervisory`);
    await sue.getByTestId('sup-agents').waitFor();
    await sue.getByTestId('sup-live').getByText('Live').waitFor();
    await sue.evaluate(() => {
      (window as unknown as { boardLoaded: boolean }).boardLoaded = true;
    });
    // What was seeded: amy not signed in, her tickets, the visitor in Billing, the two tickets at risk.
    expect(await statusOf(sue, 'amy')).toBe('OFFLINE');
    expect(await agentRow(sue, 'amy').locator('td').nth(4).textContent()).toBe('2');
    expect(await agentRow(sue, 'bob').locator('td').nth(4).textContent()).toBe('2');
    expect(await sue.getByTestId('sup-queue-waiting').textContent()).toBe('1');
    expect(await sue.getByTestId('sup-queue-oldest').textContent()).toMatch(/^4 min$/);
    // (The phone's cards are in the page too, hidden at this width: the table's rows are read.)
    await sue.getByTestId('sup-risk-1').getByText('Refund for order 1182').waitFor();
    expect(await sue.getByTestId('sup-risk-1').getByText('Breached').count()).toBe(1);
    expect(await sue.getByTestId('sup-risk-2').getByText('At risk').count()).toBe(1);
    expect(await sue.getByTestId('sup-risk-2').getByText('Amy Agent, Bob Builder').count()).toBe(1);
    expect(await sue.getByTestId('sup-risk-3').count()).toBe(0);
    // The admin, Offline, is not on the board; the supervisor, here, is.
    expect(await agentRow(sue, 'ann').count()).toBe(0);
    expect(await statusOf(sue, 'sue')).toBe('ONLINE');

    // Amy signs in on her own browser: Online on the board.
    await open('amy');
    await waitStatus(sue, 'amy', 'ONLINE');
    // She chooses Busy: the board shows it and the reason, and counts the time from 0 again.
    await apiJson(`${server.url}/api/online_status/update`, 'POST', { status: 'BUSY', reason: 'On a call' }, amyToken);
    await waitStatus(sue, 'amy', 'BUSY');
    await agentRow(sue, 'amy').getByText('On a call').waitFor();
    expect(await agentRow(sue, 'amy').locator('td').nth(2).textContent()).toMatch(/^\d{1,2} s$/);

    // A visitor joins the queue from the website.
    await visitorQueued(server.url, { liveToken, name: 'Erin', sockets });
    await waitText(sue, 'sup-queue-waiting', '2');
    await sue.getByTestId('sup-queue-dept-none').getByText('No department').waitFor();

    // Amy (back Online) takes one, the oldest (Dana's, in Billing): the queue shrinks, her chats count 1 of the
    // trial's 5.
    await apiJson(`${server.url}/api/online_status/update`, 'POST', { status: 'ONLINE' }, amyToken);
    await waitStatus(sue, 'amy', 'ONLINE');
    await apiJson(`${server.url}/api/livechat/accept`, 'POST', { id: null }, amyToken);
    await waitText(sue, 'sup-queue-waiting', '1');
    await agentRow(sue, 'amy').getByText('1 / 5').waitFor();
    expect(await sue.getByTestId('sup-queue').getByText('Billing').count()).toBe(0);
    expect(await sue.getByTestId('sup-queue-dept-none').count()).toBe(1);

    // All of it without a reload, and no polling: nothing is read while nothing happens.
    expect(await sue.evaluate(() => (window as unknown as { boardLoaded?: boolean }).boardLoaded)).toBe(true);
    // Settled: the relay has written every event of the account to the sockets, the coalesced read the last
    // of them scheduled has been let run, and every read started has its answer.
    const db = new Database(path.join(server.dataDir, 'parley.db'), { readonly: true });
    db.pragma('busy_timeout = 5000');
    const undelivered = db.prepare('select count(*) from events where delivered_at is null').pluck();
    await waitFor(() => undelivered.get() === 0, 15_000, 'every event delivered');
    db.close();
    await painted(sue);
    await sue.clock.runFor(SUPERVISORY_REFRESH_DEBOUNCE_MS);
    await requestsFlushed(sue);
    await expect.poll(() => readsDone, { timeout: 15_000 }).toBe(reads.length);
    const settled = reads.length;
    // Then time runs on (well past any poll's period, short of the next SLA warning) and nothing is read.
    await sue.clock.runFor(10_000);
    await requestsFlushed(sue);
    expect(reads.length).toBe(settled);
    await animationsSettled(sue);
    expect(await axe(sue, '[data-testid="supervisory"]')).toEqual([]);
    await screenshot(sue, 'supervisory-1440-light');
  });

  it('the board at 1440 px in dark and on a phone (390x844) in light and dark', async () => {
    const dark = await open('sue', { scheme: 'dark' });
    await dark.goto(`${server.url}/supervisory`);
    await dark.getByTestId('sup-agents').waitFor();
    await animationsSettled(dark);
    expect(await axe(dark, '[data-testid="supervisory"]')).toEqual([]);
    await screenshot(dark, 'supervisory-1440-dark');
    for (const scheme of ['light', 'dark'] as const) {
      const phone = await open('sue', { width: 390, height: 844, scheme });
      await phone.goto(`${server.url}/supervisory`);
      await phone.getByTestId('sup-agent-card-amy').waitFor();
      // Nothing wider than the screen.
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await animationsSettled(phone);
      expect(await axe(phone, '[data-testid="supervisory"]')).toEqual([]);
      await screenshot(phone, `supervisory-390-${scheme}`);
    }
  });

  it('an agent without view_report is told so', async () => {
    const bob = await open('bob');
    await bob.goto(`${server.url}/supervisory`);
    await bob
      .getByText('Only admins and users with the view_report permission can open the supervisory board.')
      .waitFor();
  });
});
