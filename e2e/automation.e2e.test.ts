import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppStandIn, waText, whatsappWebhook } from '../apps/server/src/testing/channelStandIns.js';
import {
  apiJson,
  dbRow,
  launchBrowser,
  modalSettled,
  pickOption,
  type RunningServer,
  schemePage,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const PHONE_ID = '106540352242922';
const WA = { accessToken: 'EAAG-e2e-token', appSecret: 'app-secret-e2e-1234' };

/**
 * Settings -> Automation in Chromium: an admin makes the refund rule in the card (customer message contains
 * "refund" on WhatsApp -> label Refund, department Billing, priority High); a customer's message through the
 * WhatsApp webhook gets the label, and the run log shows the run.
 */
describe('automation rules in Chromium', () => {
  let wa: Awaited<ReturnType<typeof startWhatsAppStandIn>>;
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  let webhookUrl = '';
  let refund = 0;
  let billing = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    wa = await startWhatsAppStandIn({ phoneNumberId: PHONE_ID, accessToken: WA.accessToken });
    [server, browser] = await Promise.all([
      startServer({
        SECRETS_KEY: randomBytes(32).toString('base64'),
        PUBLIC_URL: '{url}',
        WHATSAPP_API_URL: wa.url,
      }),
      launchBrowser(),
    ]);
    admin = await seedWorkspace(server.url);
    await apiJson(
      `${server.url}/api/label/update`,
      'POST',
      {
        labelArray: [{ isNew: true, name: 'Refund', color: '#AA3344', colorDark: '#FF99AA', level: 0, sla: 30 }],
        delete: [],
      },
      admin,
    );
    billing = (await apiJson(`${server.url}/api/departments`, 'POST', { name: 'Billing' }, admin)).data.id;
    const made = await apiJson(
      `${server.url}/api/channels`,
      'POST',
      { name: 'Acme WhatsApp', settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, ...WA } },
      admin,
    );
    webhookUrl = made.data.webhookUrl;
    refund = query<{ id: number }>("select id from labels where name = 'Refund'")!.id;
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await wa?.close();
  });

  const query = <T>(sql: string, ...args: unknown[]) => dbRow<T>(server, sql, ...args);

  async function open(scheme: 'light' | 'dark', width = 1440, height = 900): Promise<Page> {
    const page = await schemePage(browser, server, contexts, scheme, width, height);
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/settings/automation`);
    await page.getByTestId('automation-card').waitFor();
    return page;
  }

  const choose = pickOption;

  it('AUTOMATION an admin makes the refund rule in Settings; a WhatsApp customer message gets the label', async () => {
    const page = await open('light');
    await page.getByTestId('rule-new').click();
    await modalSettled(page);
    await page.getByTestId('rule-name').fill('Refund requests');
    // If: the text contains "refund", and the channel is WhatsApp.
    await page.getByTestId('rule-add-condition').click();
    await page.getByTestId('rule-condition').nth(0).getByRole('textbox', { name: 'Text' }).fill('refund');
    await page.getByTestId('rule-add-condition').click();
    const second = page.getByTestId('rule-condition').nth(1);
    await choose(page, second, 'If (all of these)', 'Channel');
    await expect.poll(() => second.textContent()).toContain('WHATSAPP');
    // Then: label Refund, department Billing, priority High.
    const first = page.getByTestId('rule-action').nth(0);
    await first.getByLabel('Labels', { exact: true }).click();
    await page.getByRole('option', { name: 'Refund', exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByTestId('rule-add-action').click();
    const dept = page.getByTestId('rule-action').nth(1);
    await choose(page, dept, 'Then', 'Assign to a department');
    await choose(page, dept, 'Department', 'Billing');
    await page.getByTestId('rule-add-action').click();
    await choose(page, page.getByTestId('rule-action').nth(2), 'Then', 'Set priority');
    await page.getByTestId('rule-dry-run').click();
    await expect.poll(() => page.getByTestId('rule-dry-run-result').textContent()).toContain('No recent ticket');
    await screenshot(page, 'automation-form-1440-light');
    await page.getByTestId('rule-save').click();
    await page.getByTestId('rule-row').first().waitFor();
    const rule = query<{ id: number; conditions: string; actions: string }>(
      "select id, conditions, actions from automation_rules where name = 'Refund requests'",
    );
    expect(JSON.parse(rule!.conditions)).toEqual([
      { field: 'text', contains: 'refund' },
      { field: 'channel', in: ['WHATSAPP'] },
    ]);
    expect(JSON.parse(rule!.actions)).toEqual([
      { type: 'add_labels', labels: [refund] },
      { type: 'department', department_id: billing },
      { type: 'priority', priority: 'H' },
    ]);

    // The customer writes through the WhatsApp webhook.
    const peer = '491700000001';
    const w = whatsappWebhook(WA.appSecret, waText(peer, 'Pat', 'Hi, I would like a refund for order 42'), PHONE_ID);
    const r = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': w.signature },
      body: w.body,
    });
    expect(r.status).toBe(200);
    await expect
      .poll(() => query<{ label: string }>('select label from tickets where channel_peer = ?', peer)?.label, {
        timeout: 15_000,
      })
      .toBe(JSON.stringify([refund]));
    const t = query<{ priority: string; department_id: number }>(
      'select priority, department_id from tickets where channel_peer = ?',
      peer,
    );
    expect(t).toEqual({ priority: 'H', department_id: billing });
    // The run log shows it (the card's list is read on opening the page).
    await page.reload();
    await page.getByTestId('automation-run').first().waitFor();
    expect(await page.getByTestId('automation-run').first().textContent()).toContain('Refund requests');
    await screenshot(page, 'automation-settings-1440-light');
  }, 180_000);

  it('AUTOMATION the card at 1440 and 390x844, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const)
      for (const [w, h] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        const page = await open(scheme, w, h);
        await page.getByTestId('rule-row').first().waitFor();
        await page.getByTestId('automation-run').first().waitFor();
        await screenshot(page, `automation-settings-${w}-${scheme}`);
        await page.getByRole('button', { name: 'Edit Refund requests' }).click();
        await modalSettled(page);
        await page.getByTestId('rule-dry-run').click();
        await page.getByTestId('rule-dry-run-result').waitFor();
        await screenshot(page, `automation-form-${w}-${scheme}`);
      }
  }, 240_000);
});
