import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CHANNEL_STRINGS } from '@parley/contracts';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fbMessage, messengerWebhook, startMessengerStandIn } from '../apps/server/src/testing/channelStandIns.js';
import {
  axe,
  launchBrowser,
  modalSettled,
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
 * Facebook Messenger in Chromium against a real server and a loopback Graph API: a trial admin connects a
 * Page in Settings -> Channels (Instagram is Basic's, so not offered); the row shows the webhook URL and
 * verify token to paste into Meta's dashboard; a customer's signed message becomes a ticket and the agent's
 * reply reaches the Page's messages endpoint and shows Sent.
 */
describe('Messenger in Chromium', () => {
  let fb: Awaited<ReturnType<typeof startMessengerStandIn>>;
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    fb = await startMessengerStandIn({ pageId: PAGE_ID, igAccountId: IG_ID, accessToken: FB.accessToken });
    [server, browser] = await Promise.all([
      startServer({
        SECRETS_KEY: randomBytes(32).toString('base64'),
        PUBLIC_URL: '{url}',
        MESSENGER_API_URL: fb.url,
      }),
      launchBrowser(),
    ]);
    await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fb?.close();
  });

  async function open(user: string, where: string): Promise<{ page: Page; failed: string[] }> {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/') && r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await signInAs(page, server.url, user);
    await page.goto(`${server.url}${where}`);
    return { page, failed };
  }

  it('MESSENGER an admin connects a Page: the server checks the form, the row shows where Meta posts, Test names the Page; a customer message becomes a ticket and the reply shows Sent', async () => {
    const { page, failed } = await open('ann', '/settings/channels');
    const card = page.getByTestId('channels-card');
    await card.getByTestId('channels-empty').waitFor();
    await page.getByTestId('channel-new').click();
    const dialog = page.getByRole('dialog', { name: 'Add channel' });
    await dialog.waitFor();
    const kinds = dialog.getByTestId('channel-kind');
    // A trial has Starter's channels: Messenger, not Instagram (Basic).
    expect(await kinds.textContent()).toBe('WhatsApp Cloud APIFacebook MessengerX (Twitter)');
    await kinds.getByText('Facebook Messenger').click();
    await dialog.getByTestId('channel-page-id').waitFor();
    expect(await dialog.getByTestId('channel-phone-number-id').count()).toBe(0);
    await dialog.getByLabel('Name', { exact: true }).fill('Acme Page');
    await dialog.getByLabel('Page ID').fill('acme-store');
    await dialog.getByLabel('Page access token').fill(FB.accessToken);
    await dialog.getByLabel('App secret').fill(FB.appSecret);
    await page.getByTestId('channel-save').click();
    await expect.poll(() => page.getByTestId('channel-error').textContent()).toBe(CHANNEL_STRINGS.pageIdShape);
    failed.length = 0; // that 400 was the point
    await modalSettled(page);
    expect(await axe(page, '[role="dialog"]')).toEqual([]);
    await dialog.getByLabel('Page ID').fill(PAGE_ID);
    await page.getByTestId('channel-save').click();
    await dialog.waitFor({ state: 'detached' });

    const row = card.getByTestId('channel-row').filter({ hasText: 'Acme Page' });
    await row.waitFor();
    expect(await row.getByTestId('channel-provider').textContent()).toBe(`Facebook Messenger · ${PAGE_ID}`);
    const webhookUrl = (await row.getByTestId('channel-webhook-url').textContent()) ?? '';
    expect(webhookUrl).toMatch(new RegExp(`^${server.url}/api/channels/webhook/[A-Za-z0-9_-]{32}$`));
    const verifyToken = (await row.getByTestId('channel-verify-token').textContent()) ?? '';
    expect(verifyToken).toMatch(/^[0-9a-f]{48}$/);
    expect(await row.getByTestId('channel-webhook').textContent()).toContain('Messenger, Settings, Webhooks');
    const hub = await fetch(`${webhookUrl}?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=77`);
    expect(await hub.text()).toBe('77');
    await row.getByTestId('channel-test').click();
    const result = row.getByTestId('channel-test-result');
    await result.waitFor();
    expect(await result.textContent()).toBe(`OK${CHANNEL_STRINGS.testOk('Acme Store')}`);
    expect(await axe(page, '[data-testid="channels-card"]')).toEqual([]);
    await screenshot(page, 'channels-messenger-1440-light');
    expect(failed).toEqual([]);

    // The customer writes to the Page; the agent answers from the conversation.
    const agent = await open('amy', '/ticket');
    await waitConnected(agent.page);
    const peer = '7100000000000042';
    fb.profiles.set(peer, { first_name: 'Kerry', last_name: 'Fisher' });
    const w = messengerWebhook(FB.appSecret, 'page', PAGE_ID, [
      fbMessage(peer, PAGE_ID, { text: 'Where is my parcel?' }),
    ]);
    const posted = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': w.signature },
      body: w.body,
    });
    expect(posted.status).toBe(200);
    const ticket = agent.page.getByTestId('ticket-row').filter({ hasText: 'Where is my parcel?' });
    await ticket.waitFor({ timeout: 20_000 });
    await ticket.click();
    await agent.page.getByTestId('conversation-pane').waitFor();
    await agent.page.getByTestId('message').filter({ hasText: 'Where is my parcel?' }).waitFor();
    await agent.page.getByTestId('composer-input').fill('It left today, Kerry.');
    await agent.page.getByTestId('composer-input').press('Enter');
    await expect
      .poll(() => fb.sent.find((x) => x.body?.recipient?.id === peer)?.body, { timeout: 15_000 })
      .toEqual({ recipient: { id: peer }, messaging_type: 'RESPONSE', message: { text: 'It left today, Kerry.' } });
    await expect
      .poll(
        () =>
          agent.page
            .getByTestId('message')
            .filter({ hasText: 'It left today, Kerry.' })
            .getByTestId('message-delivery-state')
            .getAttribute('data-state', { timeout: 2_000 })
            .catch(() => null),
        { timeout: 15_000 },
      )
      .toBe('sent');
    expect(agent.failed).toEqual([]);

    // A day later the window has closed: the composer gives way to the reason, until the customer writes again.
    const d = new Database(path.join(server.dataDir, 'parley.db'));
    try {
      d.prepare('update tickets set last_message_at = ? where channel_peer = ?').run(Date.now() - 25 * 3600_000, peer);
    } finally {
      d.close();
    }
    await agent.page.reload();
    const closed = agent.page.getByTestId('meta-window-closed');
    await closed.waitFor({ timeout: 15_000 });
    expect(await closed.textContent()).toBe(CHANNEL_STRINGS.metaWindowClosed('Facebook Messenger'));
    expect(await agent.page.getByTestId('composer-input').count()).toBe(0);
    expect(await agent.page.getByTestId('template-name').count()).toBe(0);
    await screenshot(agent.page, 'messenger-window-closed-1440-light');
    const again = messengerWebhook(FB.appSecret, 'page', PAGE_ID, [fbMessage(peer, PAGE_ID, { text: 'Hello again' })]);
    await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': again.signature },
      body: again.body,
    });
    await agent.page.getByTestId('composer-input').waitFor({ timeout: 15_000 });
    expect(await agent.page.getByTestId('meta-window-closed').count()).toBe(0);
  });
});
