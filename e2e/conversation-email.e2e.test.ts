import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  launchBrowser,
  newContext,
  painted,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/** The SMTP server the Parley process sends to: it keeps what it takes and refuses `@refuse.example`. */
async function smtpSink() {
  const mail: { to: string[]; raw: string }[] = [];
  const refusals = { count: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onRcptTo(address, _session, done) {
      if (!address.address.endsWith('@refuse.example')) return done();
      refusals.count++;
      done(Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected`), { responseCode: 550 }));
    },
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
  return { port, mail, refusals, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** MSG-25..31 in Chromium: the e-mail reply composer of an e-mail ticket, sent through real SMTP. */
describe('the e-mail reply composer in Chromium', () => {
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let server: RunningServer;
  let bare: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const tickets: Record<string, number> = {};

  /**
   * An EMAIL ticket from Pat in the first-run workspace, straight into the server's database; with a mailbox,
   * as one that came in through it (its replies leave from it).
   */
  function emailTicket(s: RunningServer, accountId: number, title: string, mailboxId: number | null = null): number {
    const db = new Database(path.join(s.dataDir, 'parley.db'));
    db.pragma('busy_timeout = 5000');
    const now = Date.now();
    const r = db
      .prepare(
        `insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
           assignee, name, email, phone, created_at, updated_at, mailbox_id)
         values (?, ?, ?, 'EMAIL', 0, '', '[]', null, 'ann', 'Pat Lee', 'pat@example.net', '', ?, ?, ?) returning id`,
      )
      .get(accountId, Math.floor(Math.random() * 1e6), title, now, now, mailboxId) as { id: number };
    db.prepare(
      `insert into messages (account_id, ticket_id, type, message, sender, sender_name, client_id, created_at)
       values (?, ?, 'text', 'My printer is on fire.', 'visitor', 'Pat Lee', null, ?)`,
    ).run(accountId, r.id, now);
    db.close();
    return r.id;
  }
  let adminToken = '';
  async function workspace(s: RunningServer) {
    const token = await seedWorkspace(s.url);
    if (s === server) adminToken = token;
    return (await apiJson(`${s.url}/api/auth/check`, 'POST', {}, token)).accountId as number;
  }

  beforeAll(async () => {
    sink = await smtpSink();
    [server, bare, browser] = await Promise.all([
      startServer({
        SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
        MAIL_FROM: 'Acme <help@acme.test>',
        // Mailbox passwords are sealed with it; the mailbox below sends to the same sink without a login.
        SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      }),
      startServer(),
      launchBrowser(),
    ]);
    const [accountId, bareAccount] = await Promise.all([workspace(server), workspace(bare)]);
    for (const name of ['check', 'send', 'fail', 'dark', 'canned'])
      tickets[name] = emailTicket(server, accountId, `Printer ${name}`);
    const mailbox = await apiJson(
      `${server.url}/api/mailboxes`,
      'POST',
      {
        address: 'desk@acme.test',
        name: 'Acme Desk',
        departmentId: null,
        active: false,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'desk', password: 'imap secret' },
        smtp: { host: '127.0.0.1', port: sink.port, tls: false, user: 'desk' },
      },
      adminToken,
    );
    expect(mailbox.result).toBe('success');
    tickets.mailbox = emailTicket(server, accountId, 'Printer mailbox', mailbox.data.id);
    tickets.later = emailTicket(server, accountId, 'Printer later', mailbox.data.id);
    tickets.bare = emailTicket(bare, bareAccount, 'Printer bare');
  }, 180_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await Promise.all([server?.stop(), bare?.stop()]);
    await sink?.close();
  });

  async function open(s: RunningServer, ticketId: number, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, s.url, 'ann');
    await page.goto(`${s.url}/ticket/${ticketId}`);
    await page.getByTestId('email-composer').waitFor();
    // The customer and the subject come from the ticket.
    await expect.poll(() => page.getByTestId('email-to').inputValue()).toBe('pat@example.net');
    return page;
  }
  /** The text of each message in order (a chat text or an e-mail's HTML). */
  const bodies = (page: Page) =>
    page
      .getByTestId('message')
      .evaluateAll((els) =>
        els.map(
          (e) => e.querySelector('[data-testid="message-text"], [data-testid="message-html"]')?.textContent ?? '',
        ),
      );

  it('MSG-28 MSG-30 a bad cc, toEmail or main address shows the exact check message and sends nothing', async () => {
    const page = await open(server, tickets.check!);
    expect(await page.getByTestId('email-subject').inputValue()).toBe('Re: Printer check');
    const before = sink.mail.length;
    await page.getByTestId('email-cc').fill('boss@example.net, bad@a.');
    await page.getByTestId('email-body').fill('We are on it.');
    await page.getByTestId('email-send').click();
    await expect
      .poll(() => page.getByTestId('email-error').textContent())
      .toBe('Please check the email address. bad@a.');
    await page.getByTestId('email-cc').fill('');
    await page.getByTestId('email-to').fill('pat@example.net, nobody');
    await page.getByTestId('email-send').click();
    await expect
      .poll(() => page.getByTestId('email-error').textContent())
      .toBe('Please check the email address. nobody');
    await page.getByTestId('email-to').fill('');
    await page.getByTestId('email-send').click();
    await expect.poll(() => page.getByTestId('email-error').textContent()).toBe('Please check the email address. ');
    expect(sink.mail).toHaveLength(before);
    expect(await bodies(page)).toEqual(['My printer is on fire.']);
    await screenshot(page, 'conversation-email-check-light');
  });

  it('MSG-25 MSG-26 MSG-36 a good reply with a file shows the upload percent, is mailed, stored and shown', async () => {
    const page = await open(server, tickets.send!);
    await page.getByTestId('email-to').fill('pat@example.net, ops@example.net');
    await page.getByTestId('email-cc').fill('boss@example.net');
    await page.getByTestId('email-subject').fill('Your printer');
    await page.getByTestId('email-body').fill('Hello Pat,\n\nThe fire is out.');
    await page
      .locator('input[type="file"]')
      .setInputFiles([{ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.alloc(600 * 1024, 'r') }]);
    await page.getByTestId('email-files').getByText('report.txt').waitFor();
    // A slow uplink, so the percent can be seen while the file goes up.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 200 * 1024,
    });
    await page.getByTestId('email-send').click();
    const progress = page.getByTestId('upload-progress');
    await expect
      .poll(
        async () => Number(/Uploading (\d+)%/.exec((await progress.textContent().catch(() => '')) ?? '')?.[1] ?? -1),
        {
          timeout: 10_000,
          interval: 50,
        },
      )
      .toBeGreaterThan(0);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await expect.poll(() => bodies(page)).toEqual(['My printer is on fire.', 'Hello Pat,The fire is out.']);
    await progress.waitFor({ state: 'hidden' });
    expect(await page.getByTestId('email-body').inputValue()).toBe('');
    await page.getByTestId('message-file').filter({ hasText: 'report.txt' }).waitFor();
    const got = sink.mail.at(-1)!;
    expect(got.to.sort()).toEqual(['boss@example.net', 'ops@example.net', 'pat@example.net']);
    expect(got.raw).toMatch(/^Subject: Your printer$/m);
    expect(got.raw).toMatch(/filename=report\.txt/);
    expect(await axe(page, '[data-testid="conversation-pane"]')).toEqual([]);
    await screenshot(page, 'conversation-email-sent-light');
  });

  it('REPLIES a canned reply typed with / in the e-mail body is filled from the ticket and mailed', async () => {
    const admin = adminToken;
    const saved = await apiJson(
      `${server.url}/api/replies/canned`,
      'POST',
      {
        title: 'Printer help',
        shortcut: 'printer',
        body: 'Dear {{customer.name}}, ticket #{{ticket.number}} is with our printer team.',
        channels: ['EMAIL'],
        shared: true,
      },
      admin,
    );
    expect(saved.result).toBe('success');
    const page = await open(server, tickets.canned!);
    const body = page.getByTestId('email-body');
    await body.click();
    await body.pressSequentially('/prin');
    // The reply Enter is to insert, highlighted (the list has come).
    await page.locator('[data-testid="canned-option"][aria-selected="true"]').filter({ hasText: '/printer' }).waitFor();
    await body.press('Enter');
    await expect.poll(() => body.inputValue()).toMatch(/^Dear Pat Lee, ticket #\d+ is with our printer team\.$/);
    const filled = await body.inputValue();
    expect(await page.getByTestId('canned-picker').count()).toBe(0);
    await page.getByTestId('email-send').click();
    await expect.poll(() => bodies(page)).toEqual(['My printer is on fire.', filled]);
    expect(sink.mail.at(-1)!.raw).toContain('with our printer team');
  });

  it('REPLIES Enter pressed while the canned replies are still loading inserts the best match once they come', async () => {
    const page = await open(server, tickets.canned!);
    // The list's request is held at the browser until Enter has been pressed, then goes to the server.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let asked!: () => void;
    const requested = new Promise<void>((r) => {
      asked = r;
    });
    await page.route(
      (url) => url.pathname === '/api/replies/canned',
      async (route) => {
        asked();
        await held;
        await route.continue();
      },
    );
    const body = page.getByTestId('email-body');
    await body.click();
    await body.pressSequentially('/prin');
    await page.getByTestId('canned-picker').waitFor();
    await requested;
    await body.press('Enter');
    // Kept by the picker: no line break in the body, the `/word` stays until the list comes.
    expect(await body.inputValue()).toBe('/prin');
    expect(await page.getByTestId('canned-option').count()).toBe(0);
    release();
    await expect.poll(() => body.inputValue()).toMatch(/^Dear Pat Lee, ticket #\d+ is with our printer team\.$/);
    expect(await page.getByTestId('canned-picker').count()).toBe(0);
  });

  it('MSG-31 a refused reply shows an alert with the raw response and keeps the draft', async () => {
    const page = await open(server, tickets.fail!);
    await page.getByTestId('email-to').fill('ghost@refuse.example');
    await page.getByTestId('email-body').fill('Anyone there?');
    // The alert is taken as it opens: a click left waiting on an open alert can hang on a loaded machine.
    const shown: { type: string; raw: string }[] = [];
    page.once('dialog', (d) => {
      shown.push({ type: d.type(), raw: d.message() });
      void d.accept();
    });
    await page.getByTestId('email-send').click();
    await expect.poll(() => shown.length, { timeout: 15_000 }).toBe(1);
    const { type, raw } = shown[0]!;
    expect(type).toBe('alert');
    expect(JSON.parse(raw)).toEqual({
      result: 'failed',
      code: 'MAIL_FAILED',
      description: 'The e-mail could not be sent: 550 5.1.1 <ghost@refuse.example>: Recipient address rejected',
    });
    expect(await page.getByTestId('email-body').inputValue()).toBe('Anyone there?');
    expect(await bodies(page)).toEqual(['My printer is on fire.']);
  });

  it('EMAIL a reply leaves from the ticket mailbox; a refused one shows Failed: <the server words>, and Retry sends it again', async () => {
    const page = await open(server, tickets.mailbox!);
    await page.getByTestId('email-body').fill('From the desk.');
    await page.getByTestId('email-send').click();
    await expect.poll(() => bodies(page)).toEqual(['My printer is on fire.', 'From the desk.']);
    // Taken by the server: no state stays under it; it left from the mailbox with the ticket's tag.
    await expect.poll(() => sink.mail.filter((m) => m.raw.includes('From the desk.')).length).toBe(1);
    await expect.poll(() => page.getByTestId('message-email-state').count()).toBe(0);
    const sent = sink.mail.find((m) => m.raw.includes('From the desk.'))!;
    expect(sent.raw).toMatch(/^From: Acme Desk <desk@acme\.test>$/m);
    expect(sent.raw).toMatch(/^Subject: Re: Printer mailbox \[#\d+\]$/m);

    await page.getByTestId('email-to').fill('ghost@refuse.example');
    await page.getByTestId('email-body').fill('Anyone at the desk?');
    await page.getByTestId('email-send').click();
    const state = page.getByTestId('message-email-state');
    await expect
      .poll(() => state.textContent())
      .toBe('Failed: 550 5.1.1 <ghost@refuse.example>: Recipient address rejected');
    await screenshot(page, 'conversation-email-mailbox-failed-light');
    expect(await axe(page, '[data-testid="conversation-pane"]')).toEqual([]);
    const refused = sink.refusals.count;
    // The retry's answer is held until the socket has brought "sending" and then "failed" again: coming last,
    // it must not put the reply back to "Sending…".
    await page.route('**/api/ticket/message/reply/retry', async (route) => {
      const answer = await route.fetch();
      await expect.poll(() => sink.refusals.count, { timeout: 15_000 }).toBe(refused + 1);
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('failed');
      await route.fulfill({ response: answer });
    });
    const answered = page.waitForResponse('**/api/ticket/message/reply/retry');
    await page.getByRole('button', { name: 'Retry' }).click();
    // Sent again and refused again by the same server: failed once more, the words shown again.
    await answered;
    await painted(page);
    expect(await state.getAttribute('data-state')).toBe('failed');
    expect(await page.getByRole('button', { name: 'Retry' }).isEnabled()).toBe(true);
    const last = await apiJson(`${server.url}/api/ticket/data3/${tickets.mailbox}/0`, 'GET', undefined, adminToken);
    expect(last.data.at(-1).email).toMatchObject({ state: 'failed', error: expect.stringContaining('550 5.1.1') });
  });

  it('SCHEDULED Send later in the e-mail composer keeps the recipients, copies and subject written; a bad address is refused', async () => {
    const page = await open(server, tickets.later!);
    await page.getByTestId('email-to').fill('pat@example.net, not an address');
    await page.getByTestId('email-body').fill('Your toner ships Monday.');
    await page.getByTestId('schedule-open').click();
    await page.getByTestId('schedule-save').click();
    await page.getByRole('alert').filter({ hasText: 'Please check the email address. not an address' }).waitFor();
    expect(await page.getByTestId('scheduled-item').count()).toBe(0);

    await page.getByTestId('email-to').fill('pat@example.net, ops@example.net');
    await page.getByTestId('email-cc').fill('boss@example.net');
    await page.getByTestId('email-subject').fill('Toner order');
    await page.getByTestId('schedule-save').click();
    await page.getByTestId('scheduled-item').filter({ hasText: 'Your toner ships Monday.' }).waitFor();
    expect(await page.getByTestId('email-body').inputValue()).toBe('');
    await screenshot(page, 'conversation-email-scheduled-light');
    // Its time moved close in the database: the scheduler sends it from the mailbox as written.
    const db = new Database(path.join(server.dataDir, 'parley.db'));
    db.pragma('busy_timeout = 5000');
    db.prepare(`update scheduled_messages set send_at = ? where state = 'pending'`).run(Date.now());
    db.close();
    await expect
      .poll(() => sink.mail.filter((m) => m.raw.includes('Your toner ships Monday.')).length, { timeout: 20_000 })
      .toBe(1);
    const sent = sink.mail.find((m) => m.raw.includes('Your toner ships Monday.'))!;
    expect(sent.raw).toMatch(/^To: .*pat@example\.net.*ops@example\.net/m);
    expect(sent.raw).toMatch(/^Cc: boss@example\.net$/m);
    expect(sent.raw).toMatch(/^Subject: Toner order \[#\d+\]$/m);
    await page.waitForFunction(() => !document.querySelector('[data-testid="scheduled-item"]'));
    await expect.poll(() => bodies(page)).toContain('Your toner ships Monday.');
  });

  it('MSG-25 without SMTP_URL the reply is stored and shown, and the notice says mail is not configured', async () => {
    const page = await open(bare, tickets.bare!);
    await page.getByTestId('email-body').fill('Stored, not sent.');
    await page.getByTestId('email-send').click();
    await page
      .getByText('E-mail is not configured on this server (SMTP_URL), so the reply was stored but not sent.')
      .waitFor();
    await expect.poll(() => bodies(page)).toEqual(['My printer is on fire.', 'Stored, not sent.']);
  });

  it('MSG-26 the e-mail composer in dark', async () => {
    const page = await open(server, tickets.dark!, 'dark');
    await page.getByTestId('email-cc').fill('bad@');
    await page.getByTestId('email-body').fill('Draft in the dark.');
    await page.getByTestId('email-send').click();
    await page.getByTestId('email-error').waitFor();
    expect(await axe(page, '[data-testid="conversation-pane"]')).toEqual([]);
    await screenshot(page, 'conversation-email-dark');
  });
});
