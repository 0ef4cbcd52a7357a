import { randomBytes } from 'node:crypto';
import { EMAIL_STRINGS } from '@parley/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawMail } from '../apps/server/src/testing/dovecot.js';
import { type GraphStandIn, startGraphStandIn } from '../apps/server/src/testing/graphStandIn.js';
import {
  apiJson,
  axe,
  launchBrowser,
  modalSettled,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const BOX = 'help@contoso.test';
const APP = {
  tenantId: 'contoso.onmicrosoft.com',
  clientId: '11111111-2222-3333-4444-555555555555',
  clientSecret: 'app~secret',
};

/**
 * Settings -> Mailboxes in Chromium with a Microsoft 365 mailbox against the Graph stand-in: the kind switch
 * shows the Graph fields instead of IMAP/SMTP; the mailbox subscribes (Graph's handshake reaches the server
 * at PUBLIC_URL), its test shows Graph's answer, and a notified mail joins the open ticket list.
 */
describe('Settings -> Mailboxes: Microsoft 365 in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let graph: GraphStandIn;
  let admin = '';

  beforeAll(async () => {
    graph = await startGraphStandIn(APP);
    graph.addUser(BOX, 'Contoso Help Desk');
    [server, browser] = await Promise.all([
      startServer({
        SECRETS_KEY: randomBytes(32).toString('base64'),
        PUBLIC_URL: '{url}',
        GRAPH_BASE_URL: graph.baseUrl,
        GRAPH_LOGIN_URL: graph.loginUrl,
        EMAIL_POLL_MS: '3600000',
      }),
      launchBrowser(),
    ]);
    admin = await seedWorkspace(server.url);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await graph?.close();
  });

  async function open(o: { scheme: 'light' | 'dark'; width: number; height: number }): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width: o.width, height: o.height },
      colorScheme: o.scheme,
      ...(o.width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    if (o.scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/settings/mailboxes`);
    await page.getByTestId('mailbox-limit').waitFor();
    return page;
  }

  it('GRAPH_EMAIL an admin connects a Microsoft 365 mailbox through the kind switch; it subscribes, tests, and its mail becomes a ticket', async () => {
    const page = await open({ scheme: 'light', width: 1440, height: 900 });
    await page.getByTestId('mailbox-new').click();
    const dialog = page.getByRole('dialog', { name: 'Add mailbox' });
    await dialog.waitFor();
    await modalSettled(page);
    expect(await page.getByTestId('mailbox-imap').count()).toBe(1);
    await page.getByTestId('mailbox-kind').getByText('Microsoft 365').click();
    await page.getByTestId('mailbox-graph').waitFor();
    expect(await page.getByTestId('mailbox-imap').count()).toBe(0);
    await page.getByLabel('E-mail address').fill(BOX);
    await page.getByLabel('Display name').fill('Contoso Help');
    await page.getByLabel('Directory (tenant) ID').fill(APP.tenantId);
    await page.getByLabel('Application (client) ID').fill(APP.clientId);
    expect(await axe(page, '[role="dialog"]')).toEqual([]);
    await screenshot(page, 'mailboxes-graph-form-1440-light');
    // The server's check first: a save without the secret is refused in its words, nothing saved.
    await page.getByTestId('mailbox-save').click();
    await page.getByTestId('mailbox-error').waitFor();
    expect(await page.getByTestId('mailbox-error').textContent()).toBe(EMAIL_STRINGS.graphSecretRequired);
    await page.getByLabel('Client secret').fill(APP.clientSecret);
    await page.getByTestId('mailbox-save').click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.getByTestId('mailbox-row').filter({ hasText: BOX });
    await row.waitFor();
    expect(await row.getByTestId('mailbox-graph-summary').textContent()).toBe(`Microsoft 365, tenant ${APP.tenantId}`);
    await expect.poll(() => [...graph.subscriptions.values()].length, { timeout: 20_000 }).toBe(1);

    await row.getByTestId('mailbox-test').click();
    const side = row.getByTestId('mailbox-test-graph');
    await side.waitFor();
    expect(await side.getAttribute('data-ok')).toBe('true');
    expect(await side.textContent()).toContain(EMAIL_STRINGS.graphTestOk('Contoso Help Desk'));
    expect(await axe(page, '[data-testid="mailboxes-card"]')).toEqual([]);
    await screenshot(page, 'mailboxes-graph-1440-light');

    await page.goto(`${server.url}/ticket`);
    await graph.deliver(
      BOX,
      rawMail({
        from: 'Pat Lee <pat@example.net>',
        to: BOX,
        subject: 'Teams keeps crashing',
        messageId: `teams-${Date.now()}@example.net`,
      }),
    );
    await page.getByTestId('ticket-row').filter({ hasText: 'Teams keeps crashing' }).waitFor({ timeout: 20_000 });
    const list = await apiJson(`${server.url}/api/mailboxes`, 'GET', undefined, admin);
    expect(JSON.stringify(list)).not.toContain(APP.clientSecret);
  });

  it('GRAPH_EMAIL the edit form of a Microsoft 365 mailbox keeps its kind and its secret (390 dark)', async () => {
    const desk = 'desk@contoso.test';
    graph.addUser(desk);
    await apiJson(
      `${server.url}/api/mailboxes`,
      'POST',
      { kind: 'graph', address: desk, active: false, graph: APP },
      admin,
    );
    const page = await open({ scheme: 'dark', width: 390, height: 844 });
    const row = page.getByTestId('mailbox-row').filter({ hasText: desk });
    await row.waitFor();
    await row.getByRole('button', { name: `Edit ${desk}` }).click();
    await page.getByRole('dialog', { name: 'Edit mailbox' }).waitFor();
    await modalSettled(page);
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');
    expect(await page.getByTestId('mailbox-graph').textContent()).toContain('Saved — leave empty to keep it');
    expect(await page.getByTestId('mailbox-imap').count()).toBe(0);
    expect(await axe(page, '[role="dialog"]')).toEqual([]);
    await screenshot(page, 'mailboxes-graph-form-390-dark');
  });
});
