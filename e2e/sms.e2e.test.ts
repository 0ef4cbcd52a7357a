import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SMS_STRINGS } from '@parley/contracts';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTwilioStandIn } from '../apps/server/src/testing/channelStandIns.js';
import {
  apiJson,
  axe,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const SMS = {
  accountSid: `AC${'0123456789abcdef'.repeat(2)}`,
  authToken: 'twilioAuthToken0123456789abcdef0',
  from: '+15550100100',
};

/**
 * `/sms` in Chromium against a real server and a loopback Twilio-compatible API: an agent texts a number, the
 * conversation opens with the text in it, the API got it, and the conversation is listed; a number an SMS
 * cannot reach is refused in the form. Without an SMS number the screen says so once.
 */
describe('the SMS screen in Chromium', () => {
  let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    twilio = await startTwilioStandIn({ accountSid: SMS.accountSid, authToken: SMS.authToken, numbers: [SMS.from] });
    [server, browser] = await Promise.all([
      startServer({ SECRETS_KEY: randomBytes(32).toString('base64'), PUBLIC_URL: '{url}', SMS_API_URL: twilio.url }),
      launchBrowser(),
    ]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await twilio?.close();
  });

  async function open(scheme: 'light' | 'dark', width = 1440): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width, height: width < 500 ? 844 : 900 },
      colorScheme: scheme,
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'amy');
    await page.goto(`${server.url}/sms`);
    await page.getByTestId('sms-screen').waitFor();
    return page;
  }

  it('SMS without an SMS number the screen says so once and offers no form', async () => {
    const page = await open('light');
    await page.getByTestId('sms-not-connected').waitFor();
    expect(await page.getByTestId('sms-not-connected').textContent()).toBe(SMS_STRINGS.notConnected);
    expect(await page.getByTestId('sms-to').count()).toBe(0);
    expect(await axe(page, '[data-testid="sms-screen"]')).toEqual([]);
  });

  it('SMS an agent texts a number: the conversation opens with the text, the API got it, and it is listed; a bad number is refused (light, and a phone in dark)', async () => {
    const d = new Database(path.join(server.dataDir, 'parley.db'));
    d.pragma('busy_timeout = 5000');
    d.prepare('update accounts set plan = 4').run();
    d.close();
    await apiJson(
      `${server.url}/api/channels`,
      'POST',
      {
        name: 'Support SMS',
        settings: { kind: 'sms', accountSid: SMS.accountSid, fromNumber: SMS.from, authToken: SMS.authToken },
      },
      admin,
    );
    const page = await open('light');
    await page.getByTestId('sms-to').fill('555 0199');
    await page.getByTestId('sms-message').fill('Your parcel is on its way.');
    await page.getByTestId('sms-send').click();
    await page.getByRole('alert').filter({ hasText: SMS_STRINGS.badNumber }).waitFor();
    await page.getByTestId('sms-to').fill('+1 415 555 0142');
    await page.getByTestId('sms-send').click();
    await page.waitForURL(/\/ticket\/\d+$/);
    await page.getByTestId('message').filter({ hasText: 'Your parcel is on its way.' }).waitFor();
    await expect
      .poll(() => twilio.sent.find((x) => x.form.To === '+14155550142')?.form.Body)
      .toBe('Your parcel is on its way.');
    await page.goto(`${server.url}/sms`);
    await page.getByTestId('sms-thread').filter({ hasText: '+14155550142' }).waitFor();
    await screenshot(page, 'sms-light');
    expect(await axe(page, '[data-testid="sms-screen"]')).toEqual([]);

    const phone = await open('dark', 390);
    await phone.getByTestId('sms-thread').first().waitFor();
    await screenshot(phone, 'sms-phone-dark');
    expect(await axe(phone, '[data-testid="sms-screen"]')).toEqual([]);
    await phone.getByTestId('sms-thread').first().click();
    await phone.waitForURL(/\/ticket\/\d+$/);
  });
});
