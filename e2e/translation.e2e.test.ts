import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLibreTranslateStandIn } from '../apps/server/src/testing/aiStandIns.js';
import {
  apiJson,
  axe,
  launchBrowser,
  liveChatToken,
  newContext,
  type RunningServer,
  requestsFlushed,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  tokenOf,
  visitorChatTaken,
  waitConnected,
  waitFor,
} from './support.js';

const WAIT = { timeout: 15_000 };
const MS = 'Selamat pagi, bungkusan saya belum sampai lagi. Bila ia akan sampai?';
const EN = 'Your parcel left our warehouse this morning and arrives tomorrow.';

/**
 * MSG-49 MSG-53 AI-03 in Chromium, with a LibreTranslate-compatible server (the loopback stand-in): a
 * customer writing Malay gets replies the agent writes in English, sent in Malay with the English kept on the
 * message; the customer's next Malay line is translated for the team by translatebot, which asks for no AI
 * hint. Without a translator, one line says so and nothing is asked of the server.
 */
describe('translation in a conversation', () => {
  let lt: Awaited<ReturnType<typeof startLibreTranslateStandIn>>;
  let server: RunningServer;
  let bare: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    lt = await startLibreTranslateStandIn();
    [server, bare, browser] = await Promise.all([
      startServer({ TRANSLATE_URL: lt.url }),
      startServer(),
      launchBrowser(),
    ]);
    for (const s of [server, bare]) await seedWorkspace(s.url, [{ username: 'amy', name: 'Amy Agent' }]);
  }, 120_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await Promise.all([server?.stop(), bare?.stop()]);
    await lt?.close();
  });

  async function open(scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    await page.setViewportSize(phone ? { width: 390, height: 844 } : { width: 1440, height: 900 });
    page.on('pageerror', (e) => console.error(`[agent] ${e.message}`));
    return page;
  }

  /** A visitor's chat taken by amy, whose Malay line has been read (the ticket's language is ms). */
  async function malayChat(s: RunningServer, name: string) {
    const admin = await tokenOf(s.url, 'ann');
    const amy = await tokenOf(s.url, 'amy');
    const liveToken = await liveChatToken(s.url, admin);
    const c = await visitorChatTaken(s.url, { liveToken, agentToken: amy, name, sockets });
    await c.says(MS);
    await waitFor(
      async () =>
        (await apiJson(`${s.url}/ticket/info/me/${c.ticketId}`, 'GET', undefined, amy)).data.language === 'ms',
      15_000,
      'the ticket language read as ms',
    );
    return c;
  }

  it('MSG-49 MSG-53 AI-03 a reply written in English goes out in Malay, and the customer is translated by translatebot', async () => {
    const c = await malayChat(server, 'Siti');
    const page = await open('light');
    const hints: number[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/wauchat/recommendation') hints.push(Number(u.searchParams.get('messageId')));
    });
    await signInAs(page, server.url, 'amy');
    await page.goto(`${server.url}/livechat/${c.ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await waitConnected(page);
    const label = page.getByText('Send in Malay (you write in English)');
    await label.waitFor(WAIT);
    // Mantine's switch input lies over its label: the input takes the click.
    await page.getByTestId('translate-reply').check();
    expect(await page.getByRole('switch', { name: 'Send in Malay (you write in English)' }).isChecked()).toBe(true);
    await page.getByTestId('composer-input').fill(EN);
    await page.getByTestId('composer-input').press('Enter');
    const sent = page.getByTestId('message').filter({ hasText: `[ms] ${EN}` });
    await sent.waitFor(WAIT);
    // The agent's own words stay on the message, under English.
    await sent.getByText(`[en] ${EN}`).waitFor(WAIT);
    expect(lt.got.some((g) => g.body?.target === 'ms' && g.body?.source === 'en')).toBe(true);

    // The customer's next Malay line: translatebot translates it for the team; no hint is asked for its line.
    await requestsFlushed(page);
    const asked = hints.length;
    await c.says('Terima kasih. Bolehkah saya menukar alamat penghantaran?');
    const bot = page.getByTestId('message').filter({ hasText: '[en] Terima kasih' });
    await bot.waitFor(WAIT);
    expect(await bot.textContent()).toContain('Translation');
    await requestsFlushed(page);
    // One hint for the customer's own line, none for translatebot's.
    expect(hints.length - asked).toBeLessThanOrEqual(1);
    expect(await axe(page, '[data-testid="conversation-pane"]')).toEqual([]);
    await screenshot(page, 'translation-livechat-light');
  });

  for (const [scheme, phone, name] of [
    ['dark', false, 'translation-livechat-dark'],
    ['light', true, 'translation-livechat-phone-light'],
    ['dark', true, 'translation-livechat-phone-dark'],
  ] as const)
    it(`MSG-49 the switch, ${scheme}${phone ? ' on a phone' : ''}`, async () => {
      const c = await malayChat(server, `Nur${name.length}${phone ? 'p' : 'd'}${scheme}`);
      const page = await open(scheme, phone);
      await signInAs(page, server.url, 'amy');
      await page.goto(`${server.url}/livechat/${c.ticketId}`);
      await page.getByTestId('conversation-pane').waitFor();
      await page.getByText('Send in Malay (you write in English)').waitFor(WAIT);
      if (phone) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, name).toBeLessThanOrEqual(0);
      }
      await screenshot(page, name);
    });

  it('MSG-49 without a translator: one line says so, and opening the chat asks nothing of translation', async () => {
    const c = await malayChat(bare, 'Aina');
    const ctx = await newContext(browser, 'light');
    contexts.push(ctx);
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    const translateCalls: number[] = [];
    const failures: string[] = [];
    page.on('response', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/translate')) translateCalls.push(r.status());
      if (r.status() >= 400) failures.push(`${r.status()} ${u.pathname}`);
    });
    await signInAs(page, bare.url, 'amy');
    await page.goto(`${bare.url}/livechat/${c.ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await page
      .getByTestId('translate-reply-off')
      .getByText('The customer writes in Malay.', { exact: false })
      .waitFor(WAIT);
    expect(await page.getByText('Send in Malay', { exact: false }).count()).toBe(0);
    await requestsFlushed(page);
    expect(translateCalls).toEqual([]);
    expect(failures).toEqual([]);
    await screenshot(page, 'translation-not-configured-light');
  });
});
