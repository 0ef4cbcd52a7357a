import { TRADING_STRINGS } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axe,
  launchBrowser,
  liveChatToken,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  tokenOf,
  visitorChatTaken,
  waitConnected,
} from './support.js';

const WAIT = { timeout: 15_000 };
const SAYS = 'I am so excited about AAPL, great breakout, thank you!';

/**
 * NAV-07 NAV-08 NAV-24 in Chromium (docs/trading.md): on the trading host an admin adds an instrument to the
 * watch list; a customer's live chat message names it; Analyst Intelligence shows the mention with its
 * sentiment per channel, and the drill-down lists the message with a link to its ticket; Integrated Insight
 * ranks it. An agent, and an admin on another host, are told plainly.
 */
describe('trading desk in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let otherHost = '';
  let amyToken = '';
  let liveToken = '';
  const contexts: BrowserContext[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer({ HOST_VARIANTS: '127.0.0.1=trading,localhost=combined' }),
      launchBrowser(),
    ]);
    otherHost = server.url.replace('127.0.0.1', 'localhost');
    const admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    amyToken = await tokenOf(server.url, 'amy');
    liveToken = await liveChatToken(server.url, admin);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    await page.setViewportSize(phone ? { width: 390, height: 844 } : { width: 1440, height: 900 });
    page.on('pageerror', (e) => console.error(`[page] ${e.message}`));
    return page;
  }

  it('NAV-07 NAV-24 an agent, and an admin on another host, are told plainly', async () => {
    const agent = await open('light');
    await signInAs(agent, server.url, 'amy');
    await agent.goto(`${server.url}/analyst_intelligence`);
    await agent.getByTestId('trading-not-allowed').getByText(TRADING_STRINGS.notAllowed).waitFor(WAIT);
    const elsewhere = await open('light');
    await signInAs(elsewhere, otherHost, 'ann', undefined, server.url);
    await elsewhere.goto(`${otherHost}/integrated_insight`);
    await elsewhere.getByTestId('trading-not-allowed').waitFor(WAIT);
  });

  it('NAV-07 NAV-08 an admin adds an instrument; a customer mentions it; the analyst sees it with its sentiment and drills down to the message', async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'ann');
    await waitConnected(page);
    // The navigation names the trading pages on this host.
    await page.getByRole('link', { name: 'Analyst Intelligence' }).first().click();
    await page.getByTestId('trading-none').waitFor(WAIT);

    await page.getByTestId('instrument-add').click();
    await page.getByTestId('instrument-symbol').fill('aapl');
    await page.getByTestId('instrument-name').fill('Apple Inc.');
    await page.getByTestId('instrument-aliases').fill('Apple');
    await page.keyboard.press('Enter');
    await page.getByTestId('instrument-save').click();
    await page.getByTestId('analyst-total').getByText('0 mentions').waitFor(WAIT);
    expect(await page.getByTestId('instrument-picker').inputValue()).toBe('AAPL · Apple Inc.');

    // A taken symbol is refused in the form, plainly.
    await page.getByTestId('instrument-add').click();
    await page.getByTestId('instrument-symbol').fill('AAPL');
    await page.getByTestId('instrument-name').fill('Again');
    await page.getByTestId('instrument-save').click();
    await page.getByTestId('instrument-error').getByText(TRADING_STRINGS.symbolTaken('AAPL')).waitFor(WAIT);
    await page.getByRole('button', { name: 'Cancel' }).click();

    // A customer writes in a live chat.
    const chat = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Tia Trader', sockets });
    await chat.says(SAYS);
    await chat.says('Where is my withdrawal?');
    await page.reload();
    const channels = page.getByTestId('analyst-channel');
    await channels.first().waitFor(WAIT);
    expect(await page.getByTestId('analyst-total').textContent()).toBe('1 mention');
    expect(await channels.count()).toBe(1);
    expect(await channels.first().textContent()).toContain('Live Chat');
    expect(await channels.first().getByTestId('trading-mood').textContent()).toMatch(/^Bullish \+/);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'trading-analyst-light');

    await channels.first().getByTestId('analyst-drill').click();
    const mention = page.getByTestId('drill-mention');
    await mention.first().waitFor(WAIT);
    expect(await mention.count()).toBe(1);
    expect(await mention.getByTestId('drill-text').textContent()).toBe(SAYS);
    expect(await mention.textContent()).toContain('Tia Trader');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('AAPL on Live Chat');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'trading-drill-light');
    await mention.getByTestId('drill-ticket').click();
    await page.waitForURL(`**/ticket/${chat.ticketId}`, WAIT);

    await page.goto(`${server.url}/integrated_insight`);
    const row = page.getByTestId('insight-row');
    await row.first().waitFor(WAIT);
    expect(await row.first().textContent()).toContain('AAPL');
    expect(await axe(page)).toEqual([]);
  });

  it('NAV-07 the screens in dark and on a phone; the pages not built yet say so', async () => {
    const dark = await open('dark');
    await signInAs(dark, server.url, 'ann');
    await dark.goto(`${server.url}/analyst_intelligence`);
    await dark.getByTestId('analyst-channel').first().waitFor(WAIT);
    expect(await axe(dark)).toEqual([]);
    await screenshot(dark, 'trading-analyst-dark');
    await dark.goto(`${server.url}/integrated_insight`);
    await dark.getByTestId('insight-row').first().waitFor(WAIT);
    expect(await axe(dark)).toEqual([]);
    await screenshot(dark, 'trading-insight-dark');

    const phone = await open('light', true);
    await signInAs(phone, server.url, 'ann');
    await phone.goto(`${server.url}/analyst_intelligence`);
    await phone.getByTestId('analyst-channel').first().waitFor(WAIT);
    expect(await axe(phone)).toEqual([]);
    // Nothing wider than the screen.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(phone, 'trading-analyst-phone');

    for (const path of ['/prediction_validator', '/ai_learning']) {
      await dark.goto(`${server.url}${path}`);
      await dark
        .getByText('This screen is not available yet in this version of Parley.', { exact: false })
        .waitFor(WAIT);
    }
  });
});
