import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../apps/server/src/testing/webhookReceiver.js';
import {
  apiJson,
  dbRow,
  launchBrowser,
  liveChatToken,
  modalSettled,
  pickOption,
  type RunningServer,
  schemePage,
  screenshot,
  seedWorkspace,
  signInAs,
  signInUi,
  startServer,
} from './support.js';

/**
 * A rule on "Live chat queued" in Chromium: the admin makes it in Settings -> Automation (the form offers only
 * what a chat without a ticket has); a visitor starts a chat asking about pricing; the agent gets the System
 * notification live and the stand-in webhook receives the signed delivery with the chat.
 */
describe('automation on live chats queued in Chromium', () => {
  let rx: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  let liveToken = '';
  let webhookId = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    rx = await startWebhookReceiver();
    [server, browser] = await Promise.all([startServer({ WEBHOOK_ALLOWED_HOSTS: rx.host }), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    liveToken = await liveChatToken(server.url, admin);
    webhookId = (
      await apiJson(
        `${server.url}/api/webhooks`,
        'POST',
        { url: `http://${rx.host}/sales-leads`, events: ['ticket.rated'] },
        admin,
      )
    ).data.id;
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rx?.close();
  });

  const query = <T>(sql: string, ...args: unknown[]) => dbRow<T>(server, sql, ...args);

  const context = (scheme: 'light' | 'dark', width = 1440, height = 900) =>
    schemePage(browser, server, contexts, scheme, width, height);
  async function settings(scheme: 'light' | 'dark', width = 1440, height = 900): Promise<Page> {
    const page = await context(scheme, width, height);
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/settings/automation`);
    await page.getByTestId('automation-card').waitFor();
    return page;
  }
  const choose = pickOption;
  const optionNames = async (page: Page) => page.getByRole('option').allTextContents();

  it('AUTOMATION an admin makes a "Live chat queued" rule; a visitor asking about pricing notifies the agent and calls the webhook', async () => {
    const page = await settings('light');
    await page.getByTestId('rule-new').click();
    await modalSettled(page);
    await page.getByTestId('rule-name').fill('Pricing chats');
    await page.getByRole('combobox', { name: 'When' }).click();
    await page.getByRole('option', { name: 'Live chat queued', exact: true }).click();
    await page.getByTestId('rule-livechat-hint').waitFor();
    // The ticket action the new rule started with is gone; "Notify users" stands in its place.
    await expect.poll(() => page.getByTestId('rule-action').count()).toBe(1);
    const notify = page.getByTestId('rule-action').nth(0);
    expect(await notify.getByRole('combobox', { name: 'Then' }).inputValue()).toBe('Notify users');
    // Only what a chat without a ticket has is offered.
    await page.getByTestId('rule-add-condition').click();
    const cond = page.getByTestId('rule-condition').nth(0);
    await cond.getByRole('combobox', { name: 'If (all of these)' }).click();
    expect(await optionNames(page)).toEqual([
      'Department',
      'Text contains',
      'Customer',
      'Business hours',
      'Page address contains',
    ]);
    await page.keyboard.press('Escape');
    await cond.getByRole('textbox', { name: 'Text' }).fill('pricing');
    await notify.getByRole('combobox', { name: 'Then' }).click();
    expect(await optionNames(page)).toEqual([
      'Assign to a department',
      'Notify users',
      'Call a webhook',
      'Notify a department',
    ]);
    await page.keyboard.press('Escape');
    await notify.getByLabel('Users to notify', { exact: true }).click();
    await page.getByRole('option', { name: 'Amy Agent (amy)', exact: true }).click();
    await page.keyboard.press('Escape');
    await notify.getByRole('textbox', { name: 'Notification text' }).fill('{{customer.name}} asks about pricing');
    await page.getByTestId('rule-add-action').click();
    const hook = page.getByTestId('rule-action').nth(1);
    await choose(page, hook, 'Then', 'Call a webhook');
    await choose(page, hook, 'Webhook', `http://${rx.host}/sales-leads`);
    await page.getByTestId('rule-dry-run').click();
    await expect.poll(() => page.getByTestId('rule-dry-run-result').textContent()).toContain('No recent live chat');
    await screenshot(page, 'automation-livechat-form-1440-light');
    await page.getByTestId('rule-save').click();
    await page.getByTestId('rule-row').first().waitFor();
    const rule = query<{ event: string; conditions: string; actions: string }>(
      "select event, conditions, actions from automation_rules where name = 'Pricing chats'",
    );
    expect(rule?.event).toBe('livechat_queued');
    expect(JSON.parse(rule!.conditions)).toEqual([{ field: 'text', contains: 'pricing' }]);
    expect(JSON.parse(rule!.actions)).toEqual([
      { type: 'notify', users: ['amy'], text: '{{customer.name}} asks about pricing' },
      { type: 'webhook', webhook_id: webhookId },
    ]);

    // Amy is online; a visitor starts a chat asking about pricing.
    const amy = await context('light');
    await signInUi(amy, server.url, 'amy');
    await amy.getByTestId('notification-bell').waitFor();
    const visitor = await context('light', 390, 844);
    await visitor.goto(`${server.url}/w/livechat/${liveToken}`);
    await visitor.getByRole('button', { name: 'Continue' }).click();
    await visitor.getByLabel('Name').fill('Vera Visitor');
    await visitor.getByLabel('Phone').fill('+44 20 7946 0000');
    await visitor.getByLabel('Email').fill('vera@example.com');
    await visitor.getByLabel('Message').fill('Hi, what is your PRICING for 20 seats?');
    await visitor.getByRole('button', { name: 'Connect' }).click();
    await visitor.getByText('Your queue number is 1').waitFor();

    // The notification arrives live in Amy's bell, under System.
    await expect
      .poll(() => amy.locator('[data-testid="notification-bell-dot"] .mantine-Indicator-indicator').count(), {
        timeout: 15_000,
      })
      .toBe(1);
    await amy.getByTestId('notification-bell').click();
    await amy.getByTestId('notification-tab-system').click();
    await expect
      .poll(() => amy.getByTestId('notification-item').first().textContent(), { timeout: 10_000 })
      .toContain('Pricing chats: Vera Visitor');
    expect(await amy.getByTestId('notification-item').first().textContent()).toContain(
      'Vera Visitor asks about pricing',
    );
    await screenshot(amy, 'automation-livechat-notification-1440-light');

    // The stand-in webhook got one signed delivery with the chat.
    await expect.poll(() => rx.got.filter((r) => r.path === '/sales-leads').length, { timeout: 15_000 }).toBe(1);
    const got = rx.got.find((r) => r.path === '/sales-leads')!;
    expect(String(got.headers['x-parley-signature'] ?? '')).toMatch(/\S/);
    expect(JSON.parse(got.body)).toMatchObject({
      event: 'automation.rule',
      data: {
        trigger: 'livechat_queued',
        rule: { name: 'Pricing chats' },
        livechat: { name: 'Vera Visitor', message: 'Hi, what is your PRICING for 20 seats?' },
      },
    });
    // The run log names the chat.
    await page.reload();
    await page.getByTestId('automation-run').first().waitFor();
    const run = await page.getByTestId('automation-run').first().textContent();
    expect(run).toContain('Pricing chats');
    expect(run).toContain('Live chat');
    expect(run).toContain('Notify users: 1');
  }, 180_000);

  it('AUTOMATION the "Live chat queued" rule and its run at 1440 and 390x844, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const)
      for (const [w, h] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        const page = await settings(scheme, w, h);
        await page.getByTestId('rule-row').first().waitFor();
        await page.getByTestId('automation-run').first().waitFor();
        await screenshot(page, `automation-livechat-settings-${w}-${scheme}`);
        await page.getByRole('button', { name: 'Edit Pricing chats' }).click();
        await modalSettled(page);
        await page.getByTestId('rule-livechat-hint').waitFor();
        await page.getByTestId('rule-dry-run').click();
        await expect.poll(() => page.getByTestId('rule-dry-run-result').textContent()).toContain('1 live chat');
        await screenshot(page, `automation-livechat-form-${w}-${scheme}`);
      }
  }, 240_000);
});
