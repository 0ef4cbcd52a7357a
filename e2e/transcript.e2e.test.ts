import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  liveChatToken,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInUi,
  startServer,
} from './support.js';

/** The SMTP server the Parley process sends to; it keeps what it takes. */
async function smtpSink() {
  const mail: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (d: Buffer) => {
        raw += d.toString();
      });
      stream.on('end', () => {
        mail.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mail, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * PLAN-21 in Chromium: on Basic (bought through the sandbox), an agent e-mails and downloads a live chat's
 * transcript, and the visitor, once the chat ended, has it sent to the address of the form; the mail goes
 * through real SMTP. Then the admin changes the subscription's users, cancels it at the period's end and
 * keeps it again on the plans page.
 */
describe('chat transcripts and subscription changes in Chromium', () => {
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';
  let amyToken = '';
  let liveToken = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    sink = await smtpSink();
    [server, browser] = await Promise.all([
      startServer({ SMTP_URL: `smtp://127.0.0.1:${sink.port}`, PAYMENT_PROVIDER: 'sandbox' }),
      launchBrowser(),
    ]);
    adminToken = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    amyToken = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'amy', password: PASSWORD }))
      .token as string;
    liveToken = await liveChatToken(server.url, adminToken);
    // The first-run workspace is Starter; it becomes a trial that buys Basic for 3 users in the sandbox.
    const db = new Database(path.join(server.dataDir, 'parley.db'));
    db.pragma('busy_timeout = 5000');
    db.prepare('update accounts set plan = 0').run();
    db.close();
    const pay = await apiJson(`${server.url}/api/payment/create`, 'POST', { plan: 2, quantity: '3' }, adminToken);
    const paid = await fetch(`${server.url}/api/payment/sandbox/${pay.payment_ref}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=pay',
    });
    expect(paid.status).toBe(200);
    await apiJson(`${server.url}/api/online_status/update`, 'POST', { status: 'ONLINE', reason: '' }, amyToken);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
    await sink?.close();
  });

  async function page(scheme: 'light' | 'dark' = 'light', phone = false): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const p = await ctx.newPage();
    await p.setViewportSize(phone ? { width: 390, height: 844 } : { width: 1440, height: 900 });
    p.on('pageerror', (e) => console.error(`[page] ${e.message}`));
    return p;
  }
  const mailTo = (to: string) => sink.mail.filter((m) => m.to.includes(to));
  const unfold = (raw: string) =>
    raw
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

  it('PLAN-21 an agent e-mails and downloads the transcript; the visitor has it sent at the end, once', async () => {
    const visitor = await page('dark', true);
    await visitor.goto(`${server.url}/register/livechat/${liveToken}`);
    await visitor.getByRole('button', { name: 'Continue' }).click();
    await visitor.getByLabel('Name').fill('Tess');
    await visitor.getByLabel('Phone').fill('555 0100');
    await visitor.getByLabel('Email').fill('tess@example.com');
    await visitor.getByLabel('Message').fill('Where is my order?');
    await visitor.getByRole('button', { name: 'Connect' }).click();
    await visitor.getByText('Your queue number is 1').waitFor();
    const ticketId = (await apiJson(`${server.url}/api/livechat/accept`, 'POST', { id: null }, amyToken))
      .ticket_id as number;
    await visitor.getByTestId('visitor-message').filter({ hasText: 'Where is my order?' }).waitFor();

    const agent = await page('light');
    await signInUi(agent, server.url, 'amy');
    await agent.goto(`${server.url}/livechat/${ticketId}`);
    await agent.getByTestId('conversation-pane').waitFor();
    await agent.getByTestId('transcript-menu').click();
    // Download: a text file named after the chat.
    const [download] = await Promise.all([
      agent.waitForEvent('download'),
      agent.getByRole('menuitem', { name: 'Download transcript' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^chat-\d+-transcript\.txt$/);
    const text = fs.readFileSync(await download.path(), 'utf8');
    expect(text).toContain('Live chat transcript: Acme Support');
    expect(text).toContain('Tess: Where is my order?');
    // Email: to the visitor's address when none is typed.
    await agent.getByTestId('transcript-menu').click();
    await agent.getByRole('menuitem', { name: 'Email transcript' }).click();
    await agent.getByLabel('Send to').waitFor();
    await screenshot(agent, 'transcript-agent-email-1440-light');
    await agent.getByTestId('transcript-send').click();
    await agent.getByText('The transcript was sent to tess@example.com.').waitFor();
    await expect.poll(() => mailTo('tess@example.com').length, { timeout: 10_000 }).toBe(1);

    // The chat ends: the visitor's rating view offers the transcript.
    await apiJson(`${server.url}/api/livechat/end`, 'POST', { id: ticketId }, amyToken);
    await visitor.getByRole('heading', { name: 'Live Chat Ended' }).waitFor();
    await visitor.getByRole('button', { name: 'Send transcript' }).waitFor();
    await screenshot(visitor, 'transcript-visitor-390-dark');
    await visitor.getByRole('button', { name: 'Send transcript' }).click();
    await visitor.getByText('The transcript was sent to tess@example.com.').waitFor();
    await expect.poll(() => mailTo('tess@example.com').length, { timeout: 10_000 }).toBe(2);
    expect(unfold(mailTo('tess@example.com')[1]!.raw)).toContain('Amy Agent ended the live chat.');
    // Once per chat: a reload no longer offers it.
    await visitor.reload();
    await visitor.getByRole('heading', { name: 'Live Chat Ended' }).waitFor();
    expect(await visitor.getByRole('button', { name: 'Send transcript' }).count()).toBe(0);
  });

  it('PAY the admin changes the users, cancels at the period end and keeps the subscription on the plans page', async () => {
    for (const [scheme, phone] of [
      ['light', false],
      ['dark', true],
    ] as const) {
      const admin = await page(scheme, phone);
      await signInUi(admin, server.url, 'ann');
      await admin.goto(`${server.url}/plan`);
      const card = admin.getByTestId('subscription-card');
      await card.waitFor();
      await screenshot(admin, `subscription-${phone ? '390' : '1440'}-${scheme}`);
      // The page fits the phone: the history table scrolls inside its card.
      if (phone) expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      if (phone) continue;
      await expect
        .poll(() => card.getByTestId('subscription-summary').textContent())
        .toBe('Basic, 3 users: USD 60.00 a month');
      await card.getByRole('button', { name: 'Change users' }).click();
      await admin.getByLabel('Number of users').fill('5');
      await expect.poll(() => admin.getByTestId('seats-total').textContent()).toBe('USD 100.00');
      await admin.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => card.getByTestId('subscription-summary').textContent())
        .toBe('Basic, 5 users: USD 100.00 a month');
      await admin.getByTestId('payment-history').getByText('Users changed', { exact: true }).waitFor();
      await card.getByRole('button', { name: 'Cancel subscription' }).click();
      await admin.getByTestId('confirm-cancel-subscription').click();
      await card.getByTestId('subscription-ends').waitFor();
      await screenshot(admin, 'subscription-cancelled-1440-light');
      await card.getByRole('button', { name: 'Keep subscription' }).click();
      await card.getByText(/^Renews on /).waitFor();
    }
    const log = await apiJson(`${server.url}/api/payment/subscription`, 'GET', undefined, adminToken);
    expect(log.data).toMatchObject({ plan: 2, seats: 5, cancel_at: null });
  });
});
