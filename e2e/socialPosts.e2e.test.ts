import { randomBytes } from 'node:crypto';
import { CHANNEL_STRINGS } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fbComment, metaChangesWebhook, startMessengerStandIn } from '../apps/server/src/testing/channelStandIns.js';
import {
  apiJson,
  axe,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

const PAGE_ID = '104729841234567';
const IG_ID = '17841400123456789';
const FB = { accessToken: 'EAAPage-e2e-token', appSecret: 'meta-app-secret-e2e' };

/**
 * Comments on a Facebook Page's posts in Chromium against a real server and a loopback Graph API: a signed
 * `feed` comment becomes a ticket live in an agent's list, the post shows above the comment thread, and the
 * agent's public reply reaches `POST /{comment-id}/comments`; the composer offers the private reply too.
 */
describe('Facebook post comments in Chromium', () => {
  let fb: Awaited<ReturnType<typeof startMessengerStandIn>>;
  let server: RunningServer;
  let browser: Browser;
  let webhookUrl: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    fb = await startMessengerStandIn({ pageId: PAGE_ID, igAccountId: IG_ID, accessToken: FB.accessToken });
    [server, browser] = await Promise.all([
      startServer({ SECRETS_KEY: randomBytes(32).toString('base64'), PUBLIC_URL: '{url}', MESSENGER_API_URL: fb.url }),
      launchBrowser(),
    ]);
    const admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    const made = await apiJson(
      `${server.url}/api/channels`,
      'POST',
      { name: 'Acme Page', settings: { kind: 'messenger', pageId: PAGE_ID, ...FB } },
      admin,
    );
    webhookUrl = made.data.webhookUrl;
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fb?.close();
  });

  async function open(
    user: string,
    where: string,
    o: { width?: number; height?: number; scheme?: 'light' | 'dark' } = {},
  ): Promise<{ page: Page; failed: string[] }> {
    const ctx = await browser.newContext({
      viewport: { width: o.width ?? 1440, height: o.height ?? 900 },
      colorScheme: o.scheme ?? 'light',
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    const failed: string[] = [];
    page.on('response', (r) => {
      // The AI guidance's ticket recommendation is not served by this build yet (another module's work).
      if (r.url().includes('/api/') && !r.url().includes('/api/wauchat/') && r.status() >= 400)
        failed.push(`${r.status()} ${r.url()}`);
    });
    await signInAs(page, server.url, user);
    await page.goto(`${server.url}${where}`);
    return { page, failed };
  }

  const comment = async (postSuffix: string, text: string, commentId: string) => {
    const w = metaChangesWebhook(FB.appSecret, 'page', PAGE_ID, [
      fbComment(PAGE_ID, postSuffix, { id: '5550001', name: 'Kerry Fisher' }, text, { commentId }),
    ]);
    const r = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': w.signature },
      body: w.body,
    });
    expect(r.status).toBe(200);
  };

  it('FB_PAGE_POST a signed comment appears live with its post above the thread; the public reply reaches the comment, the private choice shows its form', async () => {
    const agent = await open('amy', '/ticket');
    await waitConnected(agent.page);
    const postSuffix = '8800123';
    const commentId = `${postSuffix}_4401`;
    fb.posts.set(`${PAGE_ID}_${postSuffix}`, { message: 'Our autumn sale starts today: 30% off all coats!' });
    fb.comments.add(commentId);
    await comment(postSuffix, 'Does the sale include the wool coats?', commentId);

    const ticket = agent.page.getByTestId('ticket-row').filter({ hasText: 'Does the sale include the wool coats?' });
    await ticket.waitFor({ timeout: 20_000 });
    await ticket.click();
    await agent.page.getByTestId('conversation-pane').waitFor();
    const context = agent.page.getByTestId('post-context');
    await context.waitFor();
    expect(await context.textContent()).toContain('Our autumn sale starts today: 30% off all coats!');
    expect(await agent.page.getByTestId('post-context-link').getAttribute('href')).toBe(
      `https://www.facebook.com/${PAGE_ID}/posts/${postSuffix}`,
    );
    await agent.page.getByTestId('message').filter({ hasText: 'Does the sale include the wool coats?' }).waitFor();
    const choice = agent.page.getByTestId('post-reply-mode');
    expect(await choice.textContent()).toBe(`${CHANNEL_STRINGS.replyPublicly}${CHANNEL_STRINGS.replyPrivately}`);

    await agent.page.getByTestId('composer-input').fill('Yes, every wool coat is in the sale.');
    await agent.page.getByTestId('composer-input').press('Enter');
    await expect
      .poll(() => fb.sent.find((x) => x.path === `/${commentId}/comments`)?.body, { timeout: 15_000 })
      .toEqual({ message: 'Yes, every wool coat is in the sale.' });
    await expect
      .poll(
        () =>
          agent.page
            .getByTestId('message')
            .filter({ hasText: 'Yes, every wool coat is in the sale.' })
            .getByTestId('message-delivery-state')
            .getAttribute('data-state', { timeout: 2_000 })
            .catch(() => null),
        { timeout: 15_000 },
      )
      .toBe('sent');
    expect(await axe(agent.page, '[data-testid="conversation-pane"]')).toEqual([]);
    await screenshot(agent.page, 'social-post-thread-1440-light');

    // The private choice: a Messenger message to the commenter, not under the post.
    await choice.getByText(CHANNEL_STRINGS.replyPrivately).click();
    await agent.page.getByTestId('private-reply-text').fill('I have sent you the size guide.');
    await agent.page.getByTestId('private-reply-send').click();
    await expect
      .poll(() => fb.sent.find((x) => x.body?.recipient?.comment_id === commentId)?.body, { timeout: 15_000 })
      .toEqual({ recipient: { comment_id: commentId }, message: { text: 'I have sent you the size guide.' } });
    await agent.page.getByTestId('message').filter({ hasText: 'I have sent you the size guide.' }).waitFor();
    expect(await axe(agent.page, '[data-testid="conversation-pane"]')).toEqual([]);
    expect(agent.failed).toEqual([]);
    const url = agent.page.url();

    for (const [name, o] of [
      ['social-post-thread-1440-dark', { scheme: 'dark' }],
      ['social-post-thread-390-light', { width: 390, height: 844 }],
      ['social-post-thread-390-dark', { width: 390, height: 844, scheme: 'dark' }],
    ] as const) {
      const other = await open('amy', new URL(url).pathname, o);
      await other.page.getByTestId('post-context').waitFor({ timeout: 15_000 });
      await other.page.getByTestId('post-reply-mode').waitFor();
      await screenshot(other.page, name);
      expect(other.failed).toEqual([]);
    }
  });

  it('TW_DM the X form asks the user ID and four keys; the server refuses a user ID that is not digits', async () => {
    const { page, failed } = await open('ann', '/settings/channels', { width: 390, height: 844, scheme: 'dark' });
    await page.getByTestId('channel-new').click();
    const dialog = page.getByRole('dialog', { name: 'Add channel' });
    await dialog.waitFor();
    await dialog.getByTestId('channel-kind').getByText('X (Twitter)').click();
    await dialog.getByTestId('channel-x').waitFor();
    await dialog.getByLabel('Name', { exact: true }).fill('Acme on X');
    await dialog.getByLabel('User ID').fill('@acme');
    await dialog.getByLabel('API key', { exact: true }).fill('ck');
    await dialog.getByLabel('API key secret').fill('cs');
    await dialog.getByLabel('Access token', { exact: true }).fill('at');
    await dialog.getByLabel('Access token secret').fill('ats');
    await page.getByTestId('channel-save').click();
    await expect.poll(() => page.getByTestId('channel-error').textContent()).toBe(CHANNEL_STRINGS.xUserIdShape);
    expect(await axe(page, '[role="dialog"]')).toEqual([]);
    await screenshot(page, 'channels-x-form-390-dark');
    await dialog.getByLabel('User ID').fill('1400000000000000001');
    await page.getByTestId('channel-save').click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByTestId('channel-row').filter({ hasText: 'Acme on X' });
    await row.waitFor();
    expect(await row.getByTestId('channel-provider').textContent()).toBe('X (Twitter) · 1400000000000000001');
    expect(await row.getByTestId('channel-webhook').textContent()).toContain('Account Activity API');
    await screenshot(page, 'channels-x-row-390-dark');
    expect(failed.filter((f) => !f.startsWith('400 '))).toEqual([]);
  });
});
