import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  newContext,
  type RunningServer,
  requestsFlushed,
  screenshot,
  signInAs,
  startLiveChatWorkspace,
  visitorChatTaken,
  waitConnected,
} from './support.js';

const WAIT = { timeout: 15_000 };

/**
 * AI-01 AI-03 AI-15 in Chromium, with no AI service configured (the built-in engine): a customer's message in
 * a live chat brings guidance above the reply box, live: the next best action with its engine and
 * confidence, the emotion on the message, a scam warning when the wording is a scam's, and a "what to say"
 * answer from the knowledge base that one click puts into the reply. The agent's own message asks nothing.
 */
describe('AI guidance in a live chat, offline', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';
  let amyToken = '';
  let liveToken = '';
  const contexts: BrowserContext[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    ({ server, browser, adminToken, amyToken, liveToken } = await startLiveChatWorkspace());
    // A published article the retrieval can answer with.
    const made = await apiJson(
      `${server.url}/api/kb/articles`,
      'POST',
      {
        type: 'kb',
        lang: 'en',
        title: 'Returning a damaged parcel',
        body: 'If your parcel arrived damaged, you can return it within 30 days for a full refund. Print the return label from your order page and drop the parcel at any post office.',
      },
      adminToken,
    );
    await apiJson(`${server.url}/api/kb/articles/${made.data.id}/publish`, 'POST', {}, adminToken);
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
    if (phone) await page.setViewportSize({ width: 390, height: 844 });
    else await page.setViewportSize({ width: 1440, height: 900 });
    page.on('pageerror', (e) => console.error(`[agent] ${e.message}`));
    return page;
  }

  const watchAsks = (page: Page) => {
    const asked: number[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/wauchat/recommendation') asked.push(Number(u.searchParams.get('messageId')));
    });
    return asked;
  };

  it('AI-01 AI-03 AI-06 AI-08 AI-15 the hint, the emotion and a what-to-say answer inserted with one click; the agent own message asks nothing', async () => {
    const page = await open('light');
    const asked = watchAsks(page);
    await signInAs(page, server.url, 'amy');
    const c = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Vera', sockets });
    await page.goto(`${server.url}/livechat/${c.ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await waitConnected(page);

    await c.says('My parcel arrived damaged and I am really frustrated. How do I return it?');
    const msg = page.getByTestId('message').filter({ hasText: 'arrived damaged' });
    await msg.getByTestId('message-emotion').filter({ hasText: 'frustration' }).waitFor(WAIT);
    const hint = page.getByTestId('ai-hint');
    await hint.getByTestId('ai-hint-meta').filter({ hasText: 'Built-in engine' }).waitFor(WAIT);
    expect(await hint.getByTestId('ai-hint-meta').textContent()).toMatch(/Confidence \d+%/);
    const say = hint.getByTestId('ai-what-to-say');
    await say.filter({ hasText: 'Returning a damaged parcel' }).waitFor(WAIT);
    // Why: the cues that made the engine say so.
    await hint.getByRole('button', { name: 'Why' }).click();
    await hint.getByTestId('ai-why').getByRole('listitem').first().waitFor(WAIT);
    expect(await axe(page, '[data-testid="ai-hint"]')).toEqual([]);
    await screenshot(page, 'ai-guidance-livechat-light');

    // One click puts the answer into the reply box.
    await say.getByTestId('ai-insert').click();
    expect(await page.getByTestId('composer-input').inputValue()).toContain('return it within 30 days');
    // Asked about the customer's messages only: the opening line, then this one.
    const before = asked.length;
    expect(before).toBeGreaterThan(0);

    // The agent's own message asks nothing, and the guidance goes once the agent has answered.
    await page.getByTestId('composer-input').press('Enter');
    await page.getByTestId('message').filter({ hasText: 'within 30 days' }).waitFor(WAIT);
    await hint.waitFor({ state: 'detached', ...WAIT });
    await requestsFlushed(page);
    expect(asked).toHaveLength(before);
  });

  it('AI-01 AI-02 AI-15 a scam wording is flagged on the message and in the guidance (phone, dark)', async () => {
    const page = await open('dark', true);
    await signInAs(page, server.url, 'amy');
    const c = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Walt', sockets });
    await page.goto(`${server.url}/livechat/${c.ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await waitConnected(page);
    await c.says(
      'URGENT: our bank details have changed. Please pay the open invoice to our new account today or the order will be cancelled.',
    );
    await page.getByTestId('ai-scam').waitFor(WAIT);
    const msg = page.getByTestId('message').filter({ hasText: 'bank details have changed' });
    await msg.getByTestId('message-scam').waitFor(WAIT);
    await screenshot(page, 'ai-guidance-scam-phone-dark');
    // From history too, after a reload.
    await page.reload();
    await page
      .getByTestId('message')
      .filter({ hasText: 'bank details have changed' })
      .getByTestId('message-scam')
      .waitFor(WAIT);
  });
});
