import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

const WAIT = { timeout: 15_000 };

/**
 * Agents who see each other, in Chromium: two agents open the same ticket and each sees the other; one
 * replies while the other is writing, and the other is warned before sending, with the choice to read the
 * reply first or send anyway.
 */
describe('who is viewing a ticket, and replies written meanwhile', () => {
  let server: RunningServer;
  let browser: Browser;
  let ticket = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [{ username: 'bob', name: 'Bob Agent' }]);
    const made = await apiJson(
      `${server.url}/api/ticket/create`,
      'POST',
      { title: 'Broken kettle', name: 'Pat' },
      admin,
    );
    ticket = made.data.id as number;
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function agentOn(username: string, scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    await page.setViewportSize(phone ? { width: 390, height: 844 } : { width: 1440, height: 900 });
    page.on('pageerror', (e) => console.error(`[${username}] ${e.message}`));
    await signInAs(page, server.url, username);
    await page.goto(`${server.url}/ticket/${ticket}`);
    await page.getByTestId('conversation-pane').waitFor(WAIT);
    await waitConnected(page);
    return page;
  }

  it('two agents on one ticket see each other; a reply written meanwhile is held with a warning; leaving is seen', async () => {
    const ann = await agentOn('ann', 'light');
    const bob = await agentOn('bob', 'dark', true);
    await ann.getByTestId('ticket-viewers').filter({ hasText: 'Also viewing: Bob Agent' }).waitFor(WAIT);
    await bob.getByTestId('ticket-viewers').filter({ hasText: 'Also viewing: Ann Admin' }).waitFor(WAIT);

    // Bob starts a reply; Ann answers first.
    await bob.getByTestId('composer-input').fill('Sorry to hear that, we will send a new one');
    await ann.getByTestId('composer-input').fill('A replacement kettle is on its way.');
    await ann.getByTestId('composer-input').press('Enter');
    await bob.getByTestId('message').filter({ hasText: 'A replacement kettle' }).waitFor(WAIT);
    // Bob sends: held, with the warning naming Ann.
    await bob.getByTestId('composer-input').press('Enter');
    const warning = bob.getByTestId('reply-collision');
    await warning.filter({ hasText: 'Ann Admin replied while you were writing.' }).waitFor(WAIT);
    expect(await bob.getByTestId('message').filter({ hasText: 'Sorry to hear that' }).count()).toBe(0);
    expect(await bob.getByTestId('composer-input').inputValue()).toContain('Sorry to hear that');
    expect(await axe(bob, '[data-testid="reply-collision"]')).toEqual([]);
    await screenshot(bob, 'reply-collision-phone-dark');
    await screenshot(ann, 'ticket-viewers-light');
    // Send anyway: it goes.
    await warning.getByTestId('reply-collision-send').click();
    await ann.getByTestId('message').filter({ hasText: 'Sorry to hear that' }).waitFor(WAIT);
    expect(await warning.count()).toBe(0);

    // Bob leaves the ticket: Ann sees she is alone.
    await bob.goto(`${server.url}/ticket`);
    await ann.getByTestId('ticket-viewers').waitFor({ state: 'detached', ...WAIT });
  });
});
