import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dovecot, hasDovecot, startDovecot } from '../apps/server/src/testing/dovecot.js';
import { apiJson, launchBrowser, type RunningServer, seedWorkspace, signInAs, startServer } from './support.js';

const BOX = 'help@acme.test';
const MESSAGE_ID = 'scripted-1@customer.example';

/**
 * Every way HTML in a customer's mail could run script, each of which would leave a mark: a flag on the
 * window, the page title changed, a dialog. The page loads it from the stored message, as an agent would.
 */
const HOSTILE = [
  '<p>Visible words of the customer</p>',
  '<script>window.__pwned = "script"; document.title = "pwned"; alert("script")</script>',
  '<img src="/no-such-image.png" onerror="window.__pwned = \'img onerror\'; alert(\'img\')" alt="broken">',
  '<svg><script>window.__pwned = "svg script"</script></svg>',
  '<svg onload="window.__pwned = \'svg onload\'"></svg>',
  '<body onload="window.__pwned = \'body onload\'">',
  '<details open ontoggle="window.__pwned = \'ontoggle\'"><summary>More</summary>x</details>',
  '<iframe srcdoc="<script>parent.__pwned = \'srcdoc\'</script>"></iframe>',
  '<iframe src="javascript:parent.__pwned=\'iframe src\'"></iframe>',
  '<object data="javascript:parent.__pwned=\'object\'"></object>',
  '<a id="bad-link" href="javascript:window.__pwned=\'link\';alert(\'link\')">Click me</a>',
  '<div onmouseover="window.__pwned = \'hover\'" id="hover-me">Hover me</div>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=\'mxss\'">',
  '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=\'meta\'">',
  '<form action="javascript:window.__pwned=\'form\'"><button id="bad-submit">Send</button></form>',
].join('\n');

/** MSG-02 in Chromium: a mail whose HTML carries script is stored as sent and inert when an agent opens it. */
describe.skipIf(!hasDovecot)('a mail with script in its HTML, opened in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let dovecot: Dovecot;
  let admin = '';

  beforeAll(async () => {
    [dovecot, browser] = await Promise.all([startDovecot([BOX]), launchBrowser()]);
    server = await startServer({ SECRETS_KEY: randomBytes(32).toString('base64'), EMAIL_POLL_MS: '60000' });
    admin = await seedWorkspace(server.url);
    await apiJson(
      `${server.url}/api/mailboxes`,
      'POST',
      {
        address: BOX,
        name: 'Acme Help',
        departmentId: null,
        active: true,
        imap: { host: '127.0.0.1', port: dovecot.port, tls: false, user: BOX, password: dovecot.password },
        smtp: { host: '127.0.0.1', port: 25, tls: false, user: BOX, password: '' },
      },
      admin,
    );
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await dovecot?.stop();
  });

  it('MSG-02 EMAIL the mail is stored as sent, and opening its ticket runs none of its script and opens no dialog', async () => {
    await dovecot.append(
      BOX,
      [
        'From: Mal Lory <mal@customer.example>',
        `To: ${BOX}`,
        'Subject: Please look at this',
        `Message-ID: <${MESSAGE_ID}>`,
        'MIME-Version: 1.0',
        'Content-Type: text/html; charset=utf-8',
        '',
        HOSTILE,
        '',
      ].join('\r\n'),
    );
    // Stored as sent: the fetcher keeps the HTML whole; only the page sanitizes it.
    const db = new Database(path.join(server.dataDir, 'parley.db'), { readonly: true });
    db.pragma('busy_timeout = 5000');
    const row = () =>
      db
        .prepare(
          `select e.ticket_id, m.message from email_message_ids e join messages m on m.id = e.message_row_id
           where e.message_id = ?`,
        )
        .get(MESSAGE_ID) as { ticket_id: number; message: string } | undefined;
    await expect.poll(row, { timeout: 30_000 }).toBeTruthy();
    const stored = row()!;
    db.close();
    expect(stored.message).toContain(HOSTILE);

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await ctx.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await signInAs(page, server.url, 'ann');
      await page.goto(`${server.url}/ticket/${stored.ticket_id}`);
      const body = page.getByTestId('message-html').filter({ hasText: 'Visible words of the customer' });
      await body.waitFor();
      const title = await page.title();
      // Every image in the body has failed or loaded (its error handler, had it one left, has had its turn).
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid="message-html"] img')].every(
          (i) => (i as HTMLImageElement).complete,
        ),
      );
      // Whatever a user could do to it: hover, click the link and the button.
      if (await body.locator('#hover-me').count()) await body.locator('#hover-me').hover();
      if (await body.locator('#bad-link').count()) await body.locator('#bad-link').click();
      if (await body.locator('#bad-submit').count()) await body.locator('#bad-submit').click();
      // One more turn of the page's event loop for anything those queued.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));

      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned ?? null)).toBeNull();
      expect(await page.title()).toBe(title);
      expect(await page.title()).not.toContain('pwned');
      expect(dialogs).toEqual([]);
      expect(page.url()).toBe(`${server.url}/ticket/${stored.ticket_id}`);
      // Nothing that runs script is left in the page's copy of the body.
      const html = await body.innerHTML();
      expect(html).not.toMatch(/<script|<iframe|<object|\son[a-z]+=|javascript:/i);
      expect(await body.textContent()).toContain('Click me');
      expect(pageErrors).toEqual([]);
    } finally {
      await ctx.close();
    }
  }, 90_000);
});
