import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CHANNEL_STRINGS } from '@parley/contracts';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startLineStandIn,
  startTelegramStandIn,
  startTwilioStandIn,
  startWhatsAppStandIn,
  waText,
  whatsappWebhook,
} from '../apps/server/src/testing/channelStandIns.js';
import {
  apiJson,
  axe,
  launchBrowser,
  modalSettled,
  painted,
  type ReceivedEvent,
  type RunningServer,
  receivedEvents,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

const PHONE_ID = '106540352242922';
const WA = { accessToken: 'EAAG-e2e-token', appSecret: 'app-secret-e2e-1234' };
const REFUSAL = 'Recipient phone number not in allowed list';
const TG_TOKEN = '123456789:AAFakeBotTokenForTheStandIn_0123456789';
const LINE = { channelSecret: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', accessToken: 'line-long-lived-token-e2e' };
const SMS = {
  accountSid: `AC${'0123456789abcdef'.repeat(2)}`,
  authToken: 'twilioAuthToken0123456789abcdef0',
  from: '+15550100100',
};

/**
 * Messaging channels in Chromium against a real server and a loopback WhatsApp Cloud API: an admin connects a
 * number in Settings -> Channels; a customer's message (a signed webhook) becomes a ticket live; the agent's
 * reply reaches the API and shows Sent, then Read; a refusal shows the provider's words and Retry; past 24 hours
 * only a template can be sent.
 */
describe('messaging channels in Chromium', () => {
  let wa: Awaited<ReturnType<typeof startWhatsAppStandIn>>;
  let tg: Awaited<ReturnType<typeof startTelegramStandIn>>;
  let line: Awaited<ReturnType<typeof startLineStandIn>>;
  let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  let webhookUrl = '';
  const contexts: BrowserContext[] = [];
  /** The conversation of test (b), carried on by (c). */
  let kerry = { ticketId: 0, peer: '' };

  beforeAll(async () => {
    [wa, tg] = await Promise.all([
      startWhatsAppStandIn({ phoneNumberId: PHONE_ID, accessToken: WA.accessToken }),
      startTelegramStandIn({ token: TG_TOKEN }),
    ]);
    [line, twilio] = await Promise.all([
      startLineStandIn({ accessToken: LINE.accessToken }),
      startTwilioStandIn({ accountSid: SMS.accountSid, authToken: SMS.authToken, numbers: [SMS.from] }),
    ]);
    [server, browser] = await Promise.all([
      startServer({
        SECRETS_KEY: randomBytes(32).toString('base64'),
        // The server's own address: the webhook URL it shows is one this test can post to.
        PUBLIC_URL: '{url}',
        WHATSAPP_API_URL: wa.url,
        TELEGRAM_API_URL: tg.url,
        LINE_API_URL: line.url,
        LINE_DATA_API_URL: line.dataUrl,
        SMS_API_URL: twilio.url,
      }),
      launchBrowser(),
    ]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    await apiJson(`${server.url}/api/departments`, 'POST', { name: 'Support' }, admin);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await wa?.close();
    await tg?.close();
    await line?.close();
    await twilio?.close();
  });

  async function open(
    user: string,
    where: string,
    o: { scheme?: 'light' | 'dark'; width?: number; height?: number } = {},
    s: RunningServer = server,
  ): Promise<{ page: Page; failed: string[]; events: ReceivedEvent[] }> {
    const width = o.width ?? 1440;
    const ctx = await browser.newContext({
      viewport: { width, height: o.height ?? 900 },
      colorScheme: o.scheme ?? 'light',
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (o.scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: s.url }]);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/') && r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    const events = receivedEvents(page);
    await signInAs(page, s.url, user);
    await page.goto(`${s.url}${where}`);
    return { page, failed, events };
  }
  const db = () => {
    const d = new Database(path.join(server.dataDir, 'parley.db'));
    d.pragma('busy_timeout = 5000');
    return d;
  };
  /** The URL Settings showed; a test run alone connects the number through the API instead. */
  const connected = async () => {
    if (webhookUrl) return;
    const made = await apiJson(
      `${server.url}/api/channels`,
      'POST',
      { name: 'Acme WhatsApp', settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, ...WA } },
      admin,
    );
    webhookUrl = made.data.webhookUrl;
  };
  /** A customer's message (or statuses) signed as Meta signs them, posted to the channel's webhook URL. */
  const webhook = async (value: Record<string, unknown>) => {
    await connected();
    const w = whatsappWebhook(WA.appSecret, value, PHONE_ID);
    const r = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': w.signature },
      body: w.body,
    });
    expect(r.status).toBe(200);
  };
  /** The ticket the customer's messages made, once the webhook is handled. */
  const ticketOf = async (peer: string) => {
    let id: number | undefined;
    await expect
      .poll(
        () => {
          const d = db();
          try {
            id = (d.prepare('select id from tickets where channel_peer = ?').get(peer) as { id: number } | undefined)
              ?.id;
          } finally {
            d.close();
          }
          return id;
        },
        { timeout: 15_000 },
      )
      .toBeTruthy();
    return id as number;
  };
  const wamidOf = (text: string) => {
    const d = db();
    try {
      return (
        d
          .prepare(
            `select c.provider_id from channel_message_ids c join messages m on m.id = c.message_row_id
             where m.message = ? and c.direction = 'out'`,
          )
          .get(text) as { provider_id: string } | undefined
      )?.provider_id;
    } finally {
      d.close();
    }
  };
  /** A reply's delivery as the server holds it. */
  const deliveryOf = (text: string) => {
    const d = db();
    try {
      return (
        d.prepare('select delivery_state from messages where message = ? order by id desc').get(text) as
          | { delivery_state: string | null }
          | undefined
      )?.delivery_state;
    } finally {
      d.close();
    }
  };
  const stateOf = (page: Page, text: string) =>
    page
      .getByTestId('message')
      .filter({ hasText: text })
      .getByTestId('message-delivery-state')
      .getAttribute('data-state', { timeout: 2_000 })
      .catch(() => null);

  it('CHANNEL an admin connects a WhatsApp number in Settings -> Channels: the server checks the form, Test answers the number, the webhook URL and verify token show with Copy', async () => {
    const { page, failed } = await open('ann', '/settings/channels');
    const card = page.getByTestId('channels-card');
    await card.getByTestId('channels-empty').waitFor();
    expect(await card.getByTestId('channels-no-public-url').count()).toBe(0);

    await page.getByTestId('channel-new').click();
    const dialog = page.getByRole('dialog', { name: 'Add channel' });
    await dialog.waitFor();
    // A trial has Starter's WhatsApp and Messenger: Telegram is not offered.
    expect(await dialog.getByTestId('channel-kind').textContent()).toBe(
      'WhatsApp Cloud APIFacebook MessengerX (Twitter)',
    );
    await dialog.getByLabel('Name', { exact: true }).fill('Support WhatsApp');
    await dialog.getByRole('combobox', { name: 'Department' }).click();
    await page.getByRole('option', { name: 'Support' }).click();
    await dialog.getByLabel('Phone number ID').fill('+1 555 0100');
    await dialog.getByLabel('Display number').fill('+1 555-0100');
    await dialog.getByLabel('Access token').fill(WA.accessToken);
    await dialog.getByLabel('App secret').fill(WA.appSecret);
    // The server's check shows in the form, in its words; nothing is saved.
    await page.getByTestId('channel-save').click();
    await expect.poll(() => page.getByTestId('channel-error').textContent()).toBe(CHANNEL_STRINGS.phoneNumberIdShape);
    failed.length = 0; // that 400 was the point
    await modalSettled(page);
    expect(await axe(page, '[role="dialog"]')).toEqual([]);
    await screenshot(page, 'channels-form-1440-light');
    await dialog.getByLabel('Phone number ID').fill(PHONE_ID);
    await page.getByTestId('channel-save').click();
    await dialog.waitFor({ state: 'detached' });

    const row = card.getByTestId('channel-row').filter({ hasText: 'Support WhatsApp' });
    await row.waitFor();
    expect(await row.getByTestId('channel-provider').textContent()).toBe('WhatsApp Cloud API · +1 555-0100');
    expect(await row.textContent()).toContain('Support');
    expect(await row.getByTestId('channel-last-event').textContent()).toBe('No events yet');
    webhookUrl = (await row.getByTestId('channel-webhook-url').textContent()) ?? '';
    expect(webhookUrl).toMatch(new RegExp(`^${server.url}/api/channels/webhook/[A-Za-z0-9_-]{32}$`));
    const verifyToken = (await row.getByTestId('channel-verify-token').textContent()) ?? '';
    expect(verifyToken).toMatch(/^[0-9a-f]{48}$/);
    expect(await row.getByTestId('channel-webhook').textContent()).toContain('Callback URL');
    await row.getByRole('button', { name: 'Copy the webhook URL' }).waitFor();
    await row.getByRole('button', { name: 'Copy the verify token' }).waitFor();
    // The verify token is the one Meta's handshake must bring.
    const hub = await fetch(`${webhookUrl}?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=4242`);
    expect(await hub.text()).toBe('4242');

    await row.getByTestId('channel-test').click();
    const result = row.getByTestId('channel-test-result');
    await result.waitFor();
    expect(await result.getAttribute('data-ok')).toBe('true');
    expect(await result.textContent()).toBe(`OK${CHANNEL_STRINGS.testOk('Acme Support, +1 555-0100')}`);
    expect(await axe(page, '[data-testid="channels-card"]')).toEqual([]);
    await screenshot(page, 'channels-1440-light');

    // Secrets are write-only: the edit form holds none, says one is stored, and an edit without them keeps them.
    await row.getByRole('button', { name: 'Edit Support WhatsApp' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit channel' });
    await edit.waitFor();
    expect(await edit.getByLabel('Access token').inputValue()).toBe('');
    expect(await edit.getByLabel('Access token').getAttribute('placeholder')).toBe(
      'A secret is stored: leave empty to keep it',
    );
    await edit.getByLabel('Name', { exact: true }).fill('Acme WhatsApp');
    const sent = page.waitForRequest((r) => r.method() === 'PUT' && r.url().includes('/api/channels/'));
    await page.getByTestId('channel-save').click();
    const body = (await sent).postDataJSON() as { settings: Record<string, string> };
    expect(body.settings).toEqual({ kind: 'whatsapp', phoneNumberId: PHONE_ID, displayNumber: '+1 555-0100' });
    await edit.waitFor({ state: 'detached' });
    const renamed = card.getByTestId('channel-row').filter({ hasText: 'Acme WhatsApp' });
    await renamed.getByTestId('channel-test').click();
    await expect.poll(() => renamed.getByTestId('channel-test-result').getAttribute('data-ok')).toBe('true');

    // Remove asks first; Cancel keeps it.
    await apiJson(
      `${server.url}/api/channels`,
      'POST',
      { name: 'Old number', settings: { kind: 'whatsapp', phoneNumberId: '2002', ...WA } },
      admin,
    );
    const old = card.getByTestId('channel-row').filter({ hasText: 'Old number' });
    await page.reload();
    await old.waitFor();
    await old.getByRole('button', { name: 'Remove Old number' }).click();
    const ask = page.getByRole('dialog', { name: 'Remove channel' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await old.count()).toBe(1);
    await old.getByRole('button', { name: 'Remove Old number' }).click();
    await page.getByTestId('channel-delete-confirm').click();
    await old.waitFor({ state: 'detached' });
    expect(failed).toEqual([]);

    for (const o of [
      { scheme: 'dark' as const, width: 1440, height: 900, name: 'channels-1440-dark' },
      { scheme: 'light' as const, width: 390, height: 844, name: 'channels-390-light' },
      { scheme: 'dark' as const, width: 390, height: 844, name: 'channels-390-dark' },
    ]) {
      const v = await open('ann', '/settings/channels', o);
      await v.page.getByTestId('channel-row').first().waitFor();
      expect(await axe(v.page, '[data-testid="channels-card"]'), o.name).toEqual([]);
      await screenshot(v.page, o.name);
    }
  });

  it('WHATSAPP a customer message becomes a ticket live in the agent list; the reply from the composer reaches the API in its shape and shows Sent, then Read', async () => {
    const { page, failed } = await open('amy', '/ticket');
    await waitConnected(page);
    await page.getByTestId('ticket-count').waitFor();
    const peer = `1650555${String(Date.now()).slice(-4)}`;
    await webhook(waText(peer, 'Kerry Fisher', 'My order has not arrived'));
    const row = page.getByTestId('ticket-row').filter({ hasText: 'My order has not arrived' });
    await row.waitFor({ timeout: 20_000 });
    kerry = { ticketId: await ticketOf(peer), peer };
    await row.click();
    const pane = page.getByTestId('conversation-pane');
    await pane.waitFor();
    const first = pane.getByTestId('message').filter({ hasText: 'My order has not arrived' });
    await first.waitFor();
    // Shown as the customer's text, never as a file to download.
    expect(await first.getByTestId('message-text').textContent()).toBe('My order has not arrived');
    expect(await first.getByRole('link', { name: /Download/ }).count()).toBe(0);

    const text = 'Hi Kerry, your parcel left today.';
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-input').press('Enter');
    await expect
      .poll(() => wa.sent.find((x) => x.body?.to === peer)?.body, { timeout: 15_000 })
      .toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: peer,
        type: 'text',
        text: { body: text, preview_url: false },
      });
    await expect.poll(() => stateOf(page, text), { timeout: 15_000 }).toBe('sent');
    expect(
      await pane.getByTestId('message').filter({ hasText: text }).getByTestId('message-delivery-state').textContent(),
    ).toBe('Sent');
    const wamid = wamidOf(text);
    expect(wamid).toMatch(/^wamid\./);
    await webhook({
      statuses: [{ id: wamid, status: 'read', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: peer }],
    });
    await expect.poll(() => stateOf(page, text), { timeout: 15_000 }).toBe('read');
    expect(
      await pane.getByTestId('message').filter({ hasText: text }).getByTestId('message-delivery-state').textContent(),
    ).toBe('Read');
    expect(await axe(page, '[data-testid="conversation-pane"]')).toEqual([]);
    await screenshot(page, 'channels-conversation-1440-light');
    expect(failed).toEqual([]);
  });

  it("WHATSAPP a refusal shows Failed with the provider's words; Retry sends it again and it shows Sent", async () => {
    if (!kerry.ticketId) {
      const peer = `1212555${String(Date.now()).slice(-4)}`;
      await webhook(waText(peer, 'Kerry Fisher', 'Hello?'));
      kerry = { ticketId: await ticketOf(peer), peer };
    }
    const { page, events } = await open('amy', `/ticket/${kerry.ticketId}`);
    const pane = page.getByTestId('conversation-pane');
    await pane.waitFor();
    await waitConnected(page);
    wa.script.next.push({ status: 400, body: { error: { message: REFUSAL, type: 'OAuthException', code: 131030 } } });
    const text = 'Could you confirm your address?';
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-input').press('Enter');
    await expect.poll(() => stateOf(page, text), { timeout: 15_000 }).toBe('failed');
    const reply = pane.getByTestId('message').filter({ hasText: text });
    expect(await reply.getByTestId('message-delivery-state').textContent()).toBe(`Failed: (#131030) ${REFUSAL}`);

    // The failure reads in light and dark, on a desk and a phone.
    expect(await axe(page, '[data-testid="conversation-pane"]')).toEqual([]);
    await screenshot(page, 'channels-failed-1440-light');
    for (const o of [
      { scheme: 'dark' as const, width: 1440, height: 900, name: 'channels-failed-1440-dark' },
      { scheme: 'light' as const, width: 390, height: 844, name: 'channels-failed-390-light' },
      { scheme: 'dark' as const, width: 390, height: 844, name: 'channels-failed-390-dark' },
    ]) {
      const v = await open('amy', `/ticket/${kerry.ticketId}`, o);
      await expect.poll(() => stateOf(v.page, text), { timeout: 15_000 }).toBe('failed');
      expect(await axe(v.page, '[data-testid="conversation-pane"]'), o.name).toEqual([]);
      await screenshot(v.page, o.name);
    }

    const tries = () => wa.sent.filter((x) => x.body?.text?.body === text).length;
    const before = tries();
    const failures = () =>
      events.filter((e) => e.name === 'messageDelivery' && (e.data as { state?: string })?.state === 'failed').length;
    const failedBefore = failures();
    // Refused once more, and the retry's answer held until the socket has brought "sending" and then "failed"
    // again: coming last, it must not put the reply back to "Sending…".
    wa.script.next.push({ status: 400, body: { error: { message: REFUSAL, type: 'OAuthException', code: 131030 } } });
    await page.route('**/api/channels/message/retry', async (route) => {
      const answer = await route.fetch();
      await expect.poll(tries, { timeout: 15_000 }).toBe(before + 1);
      await expect.poll(() => deliveryOf(text), { timeout: 15_000 }).toBe('failed');
      // The socket's events of that failure ("sending", then "failed") have reached the page and are drawn.
      await expect.poll(failures, { timeout: 15_000 }).toBe(failedBefore + 1);
      await painted(page);
      await route.fulfill({ response: answer });
    });
    const answered = page.waitForResponse('**/api/channels/message/retry');
    await reply.getByTestId('message-delivery-retry').click();
    await answered;
    await painted(page);
    expect(await stateOf(page, text)).toBe('failed');
    expect(await reply.getByTestId('message-delivery-retry').isEnabled()).toBe(true);
    await page.unroute('**/api/channels/message/retry');

    // And again: this time the API takes it.
    await reply.getByTestId('message-delivery-retry').click();
    await expect.poll(() => stateOf(page, text), { timeout: 15_000 }).toBe('sent');
    expect(tries()).toBe(before + 2);

    // Settings shows the refusal as the number's last error, with its time, and when the provider last posted.
    const admin = await open('ann', '/settings/channels');
    const row = admin.page.getByTestId('channel-row').first();
    await row.waitFor();
    expect(await row.getByTestId('channel-last-error').textContent()).toMatch(
      new RegExp(`^Last error \\(.+\\): \\(#131030\\) ${REFUSAL}$`),
    );
    expect(await row.getByTestId('channel-last-event').textContent()).toMatch(/^Last event .+/);
    expect(await axe(admin.page, '[data-testid="channels-card"]')).toEqual([]);
    await screenshot(admin.page, 'channels-last-error-1440-light');
    expect(await reply.getByTestId('message-delivery-retry').count()).toBe(0);
  });

  it("CHANNEL Settings lists the failed deliveries with the provider's words; Retry there sends it and it leaves the list", async () => {
    const peer = `1212556${String(Date.now()).slice(-4)}`;
    await webhook(waText(peer, 'Lee Park', 'Is my order coming?'));
    const ticketId = await ticketOf(peer);
    const { page } = await open('amy', `/ticket/${ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await waitConnected(page);
    wa.script.next.push({ status: 400, body: { error: { message: REFUSAL, type: 'OAuthException', code: 131030 } } });
    const text = 'Your order left today.';
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-input').press('Enter');
    await expect.poll(() => stateOf(page, text), { timeout: 15_000 }).toBe('failed');

    const admin = await open('ann', '/settings/channels');
    const row = admin.page.getByTestId('failed-delivery').filter({ hasText: text });
    await row.waitFor();
    expect(await row.textContent()).toContain(`(#131030) ${REFUSAL}`);
    expect(await row.textContent()).toContain('Whatsapp');
    expect(await axe(admin.page, '[data-testid="failed-deliveries"]')).toEqual([]);
    await screenshot(admin.page, 'channels-failed-deliveries-1440-light');
    await row.getByRole('button', { name: 'Retry' }).click();
    // Sent this time: it leaves the list live, and the agent's conversation shows it sent.
    await admin.page.getByTestId('failed-delivery').filter({ hasText: text }).waitFor({ state: 'detached' });
    await expect.poll(() => stateOf(page, text), { timeout: 15_000 }).toBe('sent');
  });

  it('WHATSAPP a customer who wrote 25 hours ago: the composer gives way to the window words and a template form; a template goes; a new message opens the window again', async () => {
    const peer = `1303555${String(Date.now()).slice(-4)}`;
    await webhook(waText(peer, 'Olga Old', 'Is anyone there?'));
    const ticketId = await ticketOf(peer);
    const d = db();
    d.prepare('update tickets set last_message_at = ? where id = ?').run(Date.now() - 25 * 3600_000, ticketId);
    d.close();
    const { page, failed } = await open('amy', `/ticket/${ticketId}`);
    const closed = page.getByTestId('whatsapp-window-closed');
    await closed.waitFor();
    await waitConnected(page);
    expect(await closed.getByTestId('whatsapp-window-words').textContent()).toBe(CHANNEL_STRINGS.windowClosed);
    expect(await page.getByTestId('composer-input').count()).toBe(0);
    expect(await page.getByTestId('template-language').inputValue()).toBe('en_US');

    // The server's check, in its words.
    await page.getByTestId('template-name').fill('Hello World');
    await page.getByTestId('template-send').click();
    await expect.poll(() => page.getByTestId('template-error').textContent()).toBe(CHANNEL_STRINGS.templateShape);
    failed.length = 0; // that 400 was the point
    expect(await axe(page, '[data-testid="conversation-pane"]')).toEqual([]);
    await screenshot(page, 'channels-window-1440-light');
    for (const o of [
      { scheme: 'dark' as const, width: 1440, height: 900, name: 'channels-window-1440-dark' },
      { scheme: 'light' as const, width: 390, height: 844, name: 'channels-window-390-light' },
      { scheme: 'dark' as const, width: 390, height: 844, name: 'channels-window-390-dark' },
    ]) {
      const v = await open('amy', `/ticket/${ticketId}`, o);
      await v.page.getByTestId('whatsapp-window-closed').waitFor();
      expect(await axe(v.page, '[data-testid="conversation-pane"]'), o.name).toEqual([]);
      await screenshot(v.page, o.name);
    }

    await page.getByTestId('template-name').fill('order_update');
    await page.getByTestId('template-send').click();
    await expect
      .poll(() => wa.sent.find((x) => x.body?.to === peer && x.body?.type === 'template')?.body?.template, {
        timeout: 15_000,
      })
      .toEqual({ name: 'order_update', language: { code: 'en_US' } });
    const shown = CHANNEL_STRINGS.templateSent('order_update', 'en_US');
    await expect.poll(() => stateOf(page, shown), { timeout: 15_000 }).toBe('sent');
    expect(await page.getByTestId('template-error').count()).toBe(0);

    // The customer writes again: the window opens, and the composer is back.
    await webhook(waText(peer, 'Olga Old', 'Yes, I am here'));
    await page.getByTestId('message').filter({ hasText: 'Yes, I am here' }).waitFor({ timeout: 15_000 });
    await page.getByTestId('composer-input').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('whatsapp-window-closed').count()).toBe(0);
    expect(failed).toEqual([]);
  });

  it('TELEGRAM on Pro the form offers the providers Pro has; a bot token of the wrong shape is refused in the form; Test names the bot and tells Telegram where to post', async () => {
    const d = db();
    d.prepare('update accounts set plan = 3').run();
    d.close();
    const { page, failed } = await open('ann', '/settings/channels');
    await page.getByTestId('channel-new').click();
    const dialog = page.getByRole('dialog', { name: 'Add channel' });
    await dialog.waitFor();
    const kinds = dialog.getByTestId('channel-kind');
    expect(await kinds.textContent()).toBe(
      'WhatsApp Cloud APIFacebook MessengerInstagram DirectTelegram botLINE Official AccountX (Twitter)',
    );
    await kinds.getByText('Telegram bot').click();
    await dialog.getByTestId('channel-bot-token').waitFor();
    expect(await dialog.getByTestId('channel-phone-number-id').count()).toBe(0);
    await dialog.getByLabel('Name', { exact: true }).fill('Acme bot');
    await dialog.getByLabel('Bot token').fill('not a token');
    await page.getByTestId('channel-save').click();
    await expect.poll(() => page.getByTestId('channel-error').textContent()).toBe(CHANNEL_STRINGS.botTokenShape);
    failed.length = 0; // that 400 was the point
    await dialog.getByLabel('Bot token').fill(TG_TOKEN);
    await page.getByTestId('channel-save').click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByTestId('channel-row').filter({ hasText: 'Acme bot' });
    expect(await row.getByTestId('channel-provider').textContent()).toBe('Telegram bot');
    expect(await row.getByTestId('channel-verify-token').count()).toBe(0);
    const url = await row.getByTestId('channel-webhook-url').textContent();
    await row.getByTestId('channel-test').click();
    await expect
      .poll(() => row.getByTestId('channel-test-result').textContent())
      .toBe(`OK${CHANNEL_STRINGS.testOk('@acme_help_bot')}`);
    expect(tg.webhooks.at(-1)?.url).toBe(url);
    expect(failed).toEqual([]);
  });

  it('PLAN-20 PLAN-21 PLAN-22 PLAN-24 on Starter Settings names each provider the plan leaves out with the plan that has it and links the Plans page; a bot kept from Pro offers only Remove', async () => {
    await connected();
    const setPlan = (plan: number) => {
      const d = db();
      d.prepare('update accounts set plan = ?').run(plan);
      d.close();
    };
    setPlan(1);
    const starterWords = {
      instagram:
        'Your Starter plan does not include Instagram Direct Message. Basic has it: upgrade on the Plans page.',
      telegram: 'Your Starter plan does not include Telegram. Pro has it: upgrade on the Plans page.',
      line: 'Your Starter plan does not include Line Direct Message. Basic has it: upgrade on the Plans page.',
      sms: 'Your Starter plan does not include SMS. Enterprise has every channel: contact sales from the Plans page.',
    };
    // A bot from the Pro test above, or made here when this test runs alone.
    const list = await apiJson(`${server.url}/api/channels`, 'GET', undefined, admin);
    if (!list.data.some((c: { kind: string }) => c.kind === 'telegram')) {
      setPlan(3);
      await apiJson(
        `${server.url}/api/channels`,
        'POST',
        { name: 'Acme bot', settings: { kind: 'telegram', botToken: TG_TOKEN } },
        admin,
      );
      setPlan(1);
    }
    for (const [scheme, width, height] of [
      ['light', 1440, 900],
      ['dark', 1440, 900],
      ['light', 390, 844],
      ['dark', 390, 844],
    ] as const) {
      const { page, failed } = await open('ann', '/settings/channels', { scheme, width, height });
      const card = page.getByTestId('channels-card');
      const left = card.getByTestId('channels-not-on-plan');
      await left.waitFor();
      const items = left.getByTestId('channel-not-on-plan');
      expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual([
        'instagram',
        'telegram',
        'line',
        'sms',
      ]);
      expect(await items.allTextContents()).toEqual([
        `Instagram Direct: ${starterWords.instagram}`,
        `Telegram bot: ${starterWords.telegram}`,
        `LINE Official Account: ${starterWords.line}`,
        `SMS (Twilio): ${starterWords.sms}`,
      ]);
      expect(await left.getByRole('link', { name: 'See the plans' }).getAttribute('href')).toBe('/plan');
      // The bot kept from Pro: it says why, and offers no Edit (the server would refuse it), only Remove.
      const bot = card.getByTestId('channel-row').filter({ hasText: 'Acme bot' });
      expect(await bot.getByTestId('channel-off-plan').textContent()).toBe(
        `${starterWords.telegram} It still takes messages, but cannot be changed.`,
      );
      expect(await bot.getByRole('button', { name: /^Edit/ }).count()).toBe(0);
      expect(await bot.getByRole('button', { name: /^Remove/ }).count()).toBe(1);
      expect(await bot.getByRole('switch').isDisabled()).toBe(true);
      if (width === 1440 && scheme === 'light') {
        await page.getByTestId('channel-new').click();
        const dialog = page.getByRole('dialog', { name: 'Add channel' });
        await dialog.waitFor();
        expect(await dialog.getByTestId('channel-kind').textContent()).toBe(
          'WhatsApp Cloud APIFacebook MessengerX (Twitter)',
        );
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await dialog.waitFor({ state: 'detached' });
        expect(await axe(page, '[data-testid="channels-card"]')).toEqual([]);
      }
      await left.scrollIntoViewIfNeeded();
      await painted(page);
      await screenshot(page, `channels-not-on-plan-${width}-${scheme}`);
      expect(failed).toEqual([]);
      if (width === 390 && scheme === 'dark') {
        await left.getByRole('link', { name: 'See the plans' }).click();
        await page.waitForURL(/\/plan$/);
      }
    }
  });

  it('CHANNEL without SECRETS_KEY the card says so once and offers no form; without PUBLIC_URL it says once that no webhook address can be given', async () => {
    const [bare, noUrl] = await Promise.all([
      startServer(),
      startServer({ SECRETS_KEY: randomBytes(32).toString('base64'), WHATSAPP_API_URL: wa.url }),
    ]);
    try {
      const [, noUrlAdmin] = await Promise.all([seedWorkspace(bare.url), seedWorkspace(noUrl.url)]);
      const a = await open('ann', '/settings/channels', {}, bare);
      const notConfigured = a.page.getByTestId('channels-not-configured');
      await notConfigured.waitFor();
      expect(await notConfigured.textContent()).toBe(CHANNEL_STRINGS.notConfigured);
      expect(await a.page.getByTestId('channel-new').count()).toBe(0);
      expect(await a.page.getByTestId('channels-empty').count()).toBe(0);
      expect(await axe(a.page, '[data-testid="channels-card"]')).toEqual([]);

      for (const [name, phone] of [
        ['First number', '3003'],
        ['Second number', '4004'],
      ])
        await apiJson(
          `${noUrl.url}/api/channels`,
          'POST',
          { name, settings: { kind: 'whatsapp', phoneNumberId: phone, ...WA } },
          noUrlAdmin,
        );
      const b = await open('ann', '/settings/channels', {}, noUrl);
      await b.page.getByTestId('channel-row').nth(1).waitFor();
      expect(await b.page.getByTestId('channels-no-public-url').count()).toBe(1);
      expect(await b.page.getByTestId('channels-no-public-url').textContent()).toBe(CHANNEL_STRINGS.noPublicUrl);
      expect(await b.page.getByTestId('channel-webhook-url').count()).toBe(0);
      // The verify token is still the admin's to know; without an address there is nothing to paste it with.
      expect(await b.page.getByTestId('channel-verify-token').count()).toBe(0);
      await screenshot(b.page, 'channels-no-public-url-1440-light');
    } finally {
      await Promise.all([bare.stop(), noUrl.stop()]);
    }
  });

  it('CHANNEL LINE on Pro and SMS on Enterprise: each form asks its own settings, the server checks them, Test answers in the provider words, the row says where the webhook URL goes', async () => {
    const d = db();
    d.prepare('update accounts set plan = 4').run();
    d.close();
    const { page, failed } = await open('ann', '/settings/channels', { width: 390, height: 844 });
    const add = async (kind: string) => {
      await page.getByTestId('channel-new').click();
      const dialog = page.getByRole('dialog', { name: 'Add channel' });
      await dialog.waitFor();
      await dialog.getByTestId('channel-kind').getByText(kind).click();
      return dialog;
    };

    const lineForm = await add('LINE Official Account');
    expect(await page.getByTestId('channel-kind').textContent()).toBe(
      'WhatsApp Cloud APIFacebook MessengerInstagram DirectTelegram botLINE Official AccountSMS (Twilio)X (Twitter)',
    );
    await lineForm.getByLabel('Name', { exact: true }).fill('Acme LINE');
    await lineForm.getByLabel('Channel secret').fill('too short');
    await lineForm.getByLabel('Channel access token').fill(LINE.accessToken);
    await page.getByTestId('channel-save').click();
    await expect.poll(() => page.getByTestId('channel-error').textContent()).toBe(CHANNEL_STRINGS.channelSecretShape);
    await lineForm.getByLabel('Channel secret').fill(LINE.channelSecret);
    await page.getByTestId('channel-save').click();
    await lineForm.waitFor({ state: 'detached' });
    const lineRow = page.getByTestId('channel-row').filter({ hasText: 'Acme LINE' });
    expect(await lineRow.getByTestId('channel-provider').textContent()).toBe('LINE Official Account');
    expect(await lineRow.getByTestId('channel-webhook').textContent()).toContain('LINE Developers Console');
    await lineRow.getByTestId('channel-test').click();
    await expect
      .poll(() => lineRow.getByTestId('channel-test-result').textContent())
      .toBe(`OK${CHANNEL_STRINGS.testOk('Acme Support, @216ru...')}`);

    const smsForm = await add('SMS (Twilio)');
    await smsForm.getByLabel('Name', { exact: true }).fill('Acme SMS');
    await smsForm.getByLabel('Account SID').fill('AC123');
    await smsForm.getByLabel('Number to send from').fill('555 0100');
    await smsForm.getByLabel('Auth token').fill(SMS.authToken);
    await page.getByTestId('channel-save').click();
    await expect.poll(() => page.getByTestId('channel-error').textContent()).toBe(CHANNEL_STRINGS.accountSidShape);
    await smsForm.getByLabel('Account SID').fill(SMS.accountSid);
    await page.getByTestId('channel-save').click();
    await expect.poll(() => page.getByTestId('channel-error').textContent()).toBe(CHANNEL_STRINGS.fromNumberShape);
    await smsForm.getByLabel('Number to send from').fill('+1 555 010 0100');
    await modalSettled(page);
    expect(await axe(page, '[role="dialog"]')).toEqual([]);
    await screenshot(page, 'channels-form-sms-390-light');
    await page.getByTestId('channel-save').click();
    await smsForm.waitFor({ state: 'detached' });
    failed.length = 0; // the 400s were the point
    const smsRow = page.getByTestId('channel-row').filter({ hasText: 'Acme SMS' });
    expect(await smsRow.getByTestId('channel-provider').textContent()).toBe(`SMS (Twilio) · ${SMS.from}`);
    expect(await smsRow.getByTestId('channel-webhook').textContent()).toContain('A message comes in');
    await smsRow.getByTestId('channel-test').click();
    await expect
      .poll(() => smsRow.getByTestId('channel-test-result').textContent())
      .toBe(`OK${CHANNEL_STRINGS.testOk(`Acme SMS, ${SMS.from}`)}`);

    // The auth token is write-only: the edit form holds none and an edit without it keeps it.
    await smsRow.getByRole('button', { name: 'Edit Acme SMS' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit channel' });
    await edit.waitFor();
    expect(await edit.getByLabel('Auth token').inputValue()).toBe('');
    expect(await edit.getByLabel('Account SID').inputValue()).toBe(SMS.accountSid);
    const sent = page.waitForRequest((r) => r.method() === 'PUT' && r.url().includes('/api/channels/'));
    await page.getByTestId('channel-save').click();
    expect(((await sent).postDataJSON() as { settings: Record<string, string> }).settings).toEqual({
      kind: 'sms',
      accountSid: SMS.accountSid,
      fromNumber: SMS.from,
    });
    await edit.waitFor({ state: 'detached' });
    expect(await axe(page, '[data-testid="channels-card"]')).toEqual([]);
    await screenshot(page, 'channels-line-sms-390-light');
    expect(failed).toEqual([]);
  });
});
