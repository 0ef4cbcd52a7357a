import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  liveChatToken,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/**
 * In Chromium: automatic offering on, two agents signed in. The offered agent sees the
 * prompt (who, the message, the time left, Accept) and accepts; the visitor is connected. Then the skip: the
 * agent offered the next chat lets the time run out, the prompt goes, and it moves to the other agent. Agents
 * not offered a chat get neither the prompt nor the Take one banner. The visitor is the widget's light page.
 */
describe('automatic offering in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';
  let liveToken = '';
  const contexts: BrowserContext[] = [];

  const settings = (offer_seconds: number) =>
    apiJson(
      `${server.url}/api/livechat/settings`,
      'POST',
      { auto_offer: true, department_id: null, offer_seconds },
      adminToken,
    );

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    adminToken = await seedWorkspace(server.url, [
      { username: 'amy', name: 'Amy Agent' },
      { username: 'bob', name: 'Bob Agent' },
    ]);
    // The admin is not taking chats.
    await apiJson(`${server.url}/api/online_status/update`, 'POST', { status: 'AWAY', reason: 'Admin' }, adminToken);
    liveToken = await liveChatToken(server.url, adminToken);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function agent(username: string, scheme: 'light' | 'dark'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[${username}] ${e.message}`));
    await signInAs(page, server.url, username, PASSWORD);
    return page;
  }
  async function visitor(name: string) {
    const ctx = await newContext(browser);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[visitor ${name}] ${e.message}`));
    await page.goto(`${server.url}/w/livechat/${liveToken}`);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Phone').fill('+44 20 7946 0000');
    await page.getByLabel('Email').fill(`${name.toLowerCase()}@example.com`);
    await page.getByLabel('Message').fill(`Hello, I am ${name} and my order is late`);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Your queue number is 1').waitFor();
    return page;
  }
  const prompt = (page: Page) => page.getByTestId('livechat-offer');
  const userId = async (username: string) => {
    const users = await apiJson(`${server.url}/api/users`, 'GET', undefined, adminToken);
    return (users.data as { id: number; username: string }[]).find((u) => u.username === username)?.id ?? 0;
  };

  it('LIVECHAT-21 LIVECHAT-03 the offered agent sees the prompt and accepts; the visitor is connected; the other agent sees nothing to take', async () => {
    await settings(20);
    const amy = await agent('amy', 'light');
    const bob = await agent('bob', 'dark');
    const recommendation: number[] = [];
    amy.on('response', (r) => {
      if (r.url().includes('/api/wauchat/recommendation')) recommendation.push(r.status());
    });
    const v = await visitor('Vera');
    // Both have no chat: the tie goes to the lower user id, Amy.
    expect(await userId('amy')).toBeLessThan(await userId('bob'));
    await prompt(amy).waitFor();
    await prompt(amy).getByText('Vera wants to chat').waitFor();
    expect(await amy.getByTestId('livechat-offer-message').textContent()).toBe('Hello, I am Vera and my order is late');
    expect(await amy.getByTestId('livechat-offer-left').textContent()).toMatch(/^(1\d|20|\d) seconds? left$/);
    // The time left counts down.
    const first = await amy.getByTestId('livechat-offer-left').textContent();
    await expect.poll(() => amy.getByTestId('livechat-offer-left').textContent()).not.toBe(first);
    expect(await axe(amy, '[data-testid="livechat-offer"]')).toEqual([]);
    await screenshot(amy, 'livechat-offer-prompt-light');
    // Bob was not offered it: no prompt, and no Take one banner leading to "There is no live chat waiting.".
    // Bob's page holds the queue with Vera's chat (his Live Chats badge counts the whole queue): the prompt
    // and the banner are drawn from that same queue, so they would be there.
    await bob.locator('[data-testid="nav-livechats"][data-badge]').waitFor({ timeout: 15_000 });
    expect(await prompt(bob).count()).toBe(0);
    expect(await bob.getByTestId('banner-livechat').count()).toBe(0);
    expect(await amy.getByTestId('banner-livechat').count()).toBe(0);

    await prompt(amy).getByRole('button', { name: 'Accept' }).click();
    await amy.waitForURL(/\/livechat\/\d+/);
    await amy.getByTestId('conversation-pane').waitFor();
    await prompt(amy).waitFor({ state: 'detached' });
    // The visitor is connected: the chat view, and a message each way.
    await v.getByText('An agent has accepted your chat.').waitFor();
    await v.getByTestId('visitor-messages').waitFor({ timeout: 10_000 });
    // AI-01 AI-03: with no AI service configured the built-in engine advises on the visitor's message.
    await amy.getByTestId('ai-hint-meta').filter({ hasText: 'Built-in engine' }).waitFor();
    await amy.getByTestId('composer-input').fill('Hi Vera, Amy here');
    await amy.getByTestId('composer-input').press('Enter');
    await v.getByTestId('visitor-message').filter({ hasText: 'Hi Vera, Amy here' }).waitFor();
    // Once the agent has answered, the guidance goes; the engine was asked once, and answered.
    await amy.getByTestId('ai-hint').waitFor({ state: 'detached' });
    expect(await amy.getByText('AI hints are not configured.').count()).toBe(0);
    expect(recommendation).toEqual([200]);
    await screenshot(amy, 'livechat-offer-accepted-light');
  }, 150_000);

  it('LIVECHAT-21 the skip: the offered agent lets the time run out; the prompt goes and the chat is offered to the other agent; a taken chat takes the prompt away', async () => {
    await settings(5);
    const amy = await agent('amy', 'light');
    const bob = await agent('bob', 'dark');
    const v = await visitor('Walt');
    // Amy has a chat running, Bob none: Bob is offered it first.
    await prompt(bob).getByText('Walt wants to chat').waitFor();
    await screenshot(bob, 'livechat-offer-prompt-dark');
    expect(await prompt(amy).count()).toBe(0);
    expect(await amy.getByTestId('banner-livechat').count()).toBe(0);
    // Bob does nothing: after 5 s the offer moves to Amy.
    await prompt(amy).getByText('Walt wants to chat').waitFor({ timeout: 15_000 });
    await prompt(bob).waitFor({ state: 'detached' });
    expect(await bob.getByTestId('banner-livechat').count()).toBe(0);
    await screenshot(amy, 'livechat-offer-moved-light');
    // Bob's Take one has nothing to take (the only chat is Amy's offer), as his screen shows.
    const bobTakes = await bob.evaluate(async () => {
      const r = await fetch('/api/livechat/accept', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: null }),
      });
      return [r.status, (await r.json()).description];
    });
    expect(bobTakes).toEqual([409, 'There is no live chat waiting.']);
    // The chat is taken while offered to Amy (the admin accepts it by its id): Amy's prompt goes.
    const id = Number(await prompt(amy).getAttribute('data-livechat-id'));
    const taken = await apiJson(`${server.url}/api/livechat/accept`, 'POST', { id }, adminToken);
    expect(taken.livechat_id).toBe(id);
    await prompt(amy).waitFor({ state: 'detached' });
    await v.getByTestId('visitor-messages').waitFor({ timeout: 10_000 });
    expect(await amy.getByTestId('banner-livechat').count()).toBe(0);
  }, 150_000);
});
