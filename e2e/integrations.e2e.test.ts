import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { INTEGRATION_STRINGS as I, WEBHOOK_HEADERS } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgent,
  animationsSettled,
  axe,
  launchBrowser,
  modalSettled,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitFor,
} from './support.js';

/**
 * Settings -> API and webhooks in Chromium: an admin makes a token (shown once), calls the API with it, adds a
 * webhook to a receiver this test runs on loopback (allowed by WEBHOOK_ALLOWED_HOSTS), and sees the signed
 * delivery in the log; an agent sees only their personal tokens.
 */
describe('API and webhooks in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let receiver: http.Server;
  let port = 0;
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    port = (receiver.address() as AddressInfo).port;
    [server, browser] = await Promise.all([
      startServer({ WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${port}` }),
      launchBrowser(),
    ]);
    const admin = await seedWorkspace(server.url);
    await addAgent(server.url, admin, 'amy', 'Amy Agent');
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((r) => receiver?.close(r));
  });

  async function open(user: string, scheme: 'light' | 'dark', width = 1440): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width, height: width < 500 ? 844 : 900 },
      colorScheme: scheme,
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    await signInAs(page, server.url, user);
    await page.goto(`${server.url}/settings/integrations`);
    await page.getByTestId('api-tokens-card').waitFor();
    return page;
  }
  const bearer = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  it('API an admin makes a token in Settings, copies it once and calls the API with it (light, 1440)', async () => {
    const page = await open('ann', 'light');
    await page.getByTestId('api-token-name').fill('Zapier');
    await page.getByTestId('api-token-scope').click();
    await page.getByRole('option', { name: I.scopeWrite }).click();
    await page.getByTestId('api-token-create').click();
    const secret = page.getByTestId('api-token-secret');
    await secret.waitFor();
    const token = (await secret.textContent())!.trim();
    expect(token.startsWith('prl_')).toBe(true);
    await page.getByText(I.shownOnce).waitFor();
    await page.getByTestId('api-token-row').filter({ hasText: 'Zapier' }).waitFor();
    await screenshot(page, 'integrations-token-light');
    expect(await axe(page, '[data-testid="api-tokens-card"]')).toEqual([]);

    const users = await bearer(token, 'GET', '/api/users');
    expect(users.status).toBe(200);
    const made = await bearer(token, 'POST', '/api/ticket/create', { title: 'Made with a token' });
    expect(made.status).toBe(200);
    // Done hides it for good; the list keeps only its first characters.
    await page.getByRole('button', { name: I.done }).click();
    await secret.waitFor({ state: 'detached' });
    expect(await page.getByTestId('api-tokens-card').textContent()).not.toContain(token);
    // Revoked: the next call is refused.
    await page.getByRole('button', { name: `${I.revoke} Zapier` }).click();
    await page.getByTestId('api-token-row').filter({ hasText: 'Zapier' }).waitFor({ state: 'detached' });
    expect((await bearer(token, 'GET', '/api/users')).status).toBe(401);
  });

  it('WEBHOOK an admin adds a webhook, a ticket is delivered signed and shows in the log; Redeliver sends it again (dark, 1440)', async () => {
    const page = await open('ann', 'dark');
    await page.getByTestId('webhook-new').click();
    await modalSettled(page);
    await page.getByTestId('webhook-url').fill('not a url');
    await page.getByTestId('webhook-save').click();
    await page.getByTestId('webhook-error').getByText(I.badUrl).waitFor();
    await page.getByTestId('webhook-url').fill(`http://127.0.0.1:${port}/parley`);
    await page.getByTestId('webhook-event-message.created').click();
    await page.getByTestId('webhook-save').click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret.startsWith('whsec_')).toBe(true);

    // A ticket made by the admin's own session (through the page, as the web app would).
    await page.evaluate(() =>
      fetch('/api/ticket/create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Webhook me' }),
      }),
    );
    await waitFor(() => got.some((g) => g.body.includes('Webhook me')), 10_000, 'the delivery at the receiver');
    const first = got.find((g) => g.body.includes('Webhook me'))!;
    const ts = first.headers[WEBHOOK_HEADERS.timestamp] as string;
    expect(first.headers[WEBHOOK_HEADERS.signature]).toBe(
      `sha256=${createHmac('sha256', secret).update(`${ts}.${first.body}`).digest('hex')}`,
    );

    await page.getByTestId('webhook-deliveries-toggle').click();
    const delivered = page.getByTestId('webhook-delivery').filter({ hasText: I.states.delivered });
    await delivered.first().waitFor();
    expect(await delivered.first().textContent()).toContain('200');
    await screenshot(page, 'integrations-webhooks-dark');
    expect(await axe(page, '[data-testid="webhooks-card"]')).toEqual([]);

    const before = got.length;
    await page.getByTestId('webhook-redeliver').first().click();
    await waitFor(() => got.length > before, 10_000, 'the redelivery at the receiver');
    // The same body as one delivered before, under a delivery id of its own.
    const again = got.at(-1)!;
    const original = got.slice(0, before).find((g) => g.body === again.body);
    expect(original).toBeDefined();
    expect(again.headers[WEBHOOK_HEADERS.delivery]).not.toBe(original!.headers[WEBHOOK_HEADERS.delivery]);
  });

  it('API an agent sees only personal tokens, no webhooks (phone, light and dark)', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open('amy', scheme, 390);
      await page.getByTestId('api-token-name').fill(`Amy ${scheme}`);
      await page.getByTestId('api-token-create').click();
      await page.getByTestId('api-token-secret').waitFor();
      expect(await page.getByTestId('api-token-kind').count()).toBe(0);
      expect(await page.getByTestId('webhooks-card').count()).toBe(0);
      await screenshot(page, `integrations-agent-390-${scheme}`);
    }
  });

  it('WEBHOOK the admin view on a phone and at 1440 light (screenshots)', async () => {
    for (const [scheme, width] of [
      ['light', 390],
      ['dark', 390],
      ['light', 1440],
    ] as const) {
      const page = await open('ann', scheme, width);
      await page.getByTestId('webhook-row').first().waitFor();
      await page.getByTestId('webhook-deliveries-toggle').first().click();
      await page.getByTestId('webhook-delivery').first().waitFor();
      // Colours are checked as painted: the toggle's press transition has ended.
      await animationsSettled(page);
      await screenshot(page, `integrations-admin-${width}-${scheme}`);
      expect(await axe(page, '[data-testid="webhooks-card"]')).toEqual([]);
    }
  });
});
