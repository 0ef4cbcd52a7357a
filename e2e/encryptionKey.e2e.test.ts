import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  modalSettled,
  newContext,
  PASSWORD,
  type RunningServer,
  recordSocketSends,
  screenshot,
  signInAs,
  startDemo,
} from './support.js';

const NO_KEY = "You cannot read or send message because you don't have the encryption key on this browser.";

/** MSG-12, CRYPT-05 .. CRYPT-07 in Chromium: an encrypted ticket on a browser without its key. */
describe('an encrypted ticket without the key on this browser, in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let sqlite: Database.Database;
  const contexts: BrowserContext[] = [];
  let accountId = 0;
  /** Two encrypted tickets (one per test) and a plain one, none of them e-mail (the chat composer). */
  let encrypted: number[] = [];
  let plain = 0;

  beforeAll(async () => {
    ({ server, browser } = await startDemo({ tickets: 5, password: PASSWORD }));
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
    const rows = sqlite
      .prepare(
        `select id, account_id from tickets
         where channel not in ('EMAIL', 'GRAPH_EMAIL', 'chat', 'LIVECHAT', 'livechat') order by id limit 3`,
      )
      .all() as { id: number; account_id: number }[];
    expect(rows).toHaveLength(3);
    accountId = rows[0]?.account_id ?? 0;
    encrypted = rows.slice(0, 2).map((r) => r.id);
    plain = rows[2]?.id ?? 0;
    for (const id of encrypted) sqlite.prepare(`update tickets set encryption_method = 'aes' where id = ?`).run(id);
  }, 180_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  const stored = (ticketId: number, text?: string) =>
    (
      sqlite
        .prepare(
          `select count(*) as n from messages where ticket_id = ? and deleted_at is null ${text === undefined ? '' : 'and message = ?'}`,
        )
        .get(...(text === undefined ? [ticketId] : [ticketId, text])) as { n: number }
    ).n;

  /** A signed-in page recording the socket events it sends and the uploads it asks for. */
  async function signedIn(scheme: 'light' | 'dark') {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[${scheme}] ${e.message}`));
    const sent = recordSocketSends(page);
    const uploads: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/upload') uploads.push(r.url());
    });
    await signInAs(page, server.url, 'demo-admin');
    return { page, sent, uploads };
  }
  async function open(page: Page, ticketId: number) {
    await page.goto(`${server.url}/ticket/${ticketId}`);
    await page.locator(`[data-testid="conversation-pane"][data-ticket="${ticketId}"]`).waitFor();
    await page.getByTestId('message-count').waitFor();
  }
  const send = async (page: Page, text: string) => {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-input').press('Enter');
  };
  const message = (page: Page, text: string) => page.getByTestId('message').filter({ hasText: text });

  it('MSG-12 CRYPT-05 CRYPT-06 CRYPT-07 no key: the system line, a send fails at once and is never sent, an upload is refused; with a key Retry stores it once', async () => {
    const ticket = encrypted[0] ?? 0;
    const { page, sent, uploads } = await signedIn('light');
    await open(page, ticket);
    // CRYPT-07: the system line, as the spec words it.
    const line = page.getByTestId('encryption-key-missing');
    await line.waitFor();
    expect(await line.textContent()).toBe(NO_KEY);
    const before = stored(ticket);

    // CRYPT-05: an upload is refused silently: no request, no progress, no message, no toast.
    await page
      .getByTestId('conversation-pane')
      .locator('input[type="file"]')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('secret notes') });

    // MSG-12, CRYPT-06: the message is failed at once with the key text; the modal says why.
    const text = `encrypted hello ${Date.now()}`;
    await send(page, text);
    const modal = page.getByRole('dialog', { name: 'Message not sent' });
    await modal.waitFor();
    expect(await modal.getByRole('alert').textContent()).toBe(`Opps, message failed to send. The error is ${NO_KEY}`);
    const failed = message(page, text);
    expect(await failed.getAttribute('data-status')).toBe('failed');
    const queueId = await failed.getAttribute('data-id');
    expect(queueId).toMatch(/^queue-[A-Za-z0-9]{10}$/);
    expect(await page.getByTestId('message-sending').count()).toBe(0);
    await modalSettled(page);
    await screenshot(page, 'encryption-no-key-modal-light');

    // Retry while there is still no key fails the same way, again without a word to the server.
    await modal.getByRole('button', { name: 'OK' }).click();
    await modal.waitFor({ state: 'detached' });
    await failed.getByRole('button', { name: 'Retry' }).click();
    await modal.waitFor();
    expect(await modal.getByRole('alert').textContent()).toBe(`Opps, message failed to send. The error is ${NO_KEY}`);
    expect(await failed.getAttribute('data-status')).toBe('failed');
    expect(await failed.getAttribute('data-id')).toBe(queueId);
    await modal.getByRole('button', { name: 'OK' }).click();
    await modal.waitFor({ state: 'detached' });
    await screenshot(page, 'encryption-no-key-light');
    expect(sent).not.toContain('newChatMessage');
    expect(uploads).toEqual([]);
    expect(await page.getByTestId('upload-progress').count()).toBe(0);
    expect(await message(page, 'notes.txt').count()).toBe(0);
    expect(stored(ticket)).toBe(before);

    // A key is put on this browser meanwhile: Retry sends the same queue- id, stored once.
    await page.evaluate(({ name, value }) => localStorage.setItem(name, value), {
      name: `parley.encryptionKey.${accountId}`,
      value: JSON.stringify({ method: 'aes', key: Buffer.alloc(32, 7).toString('base64'), iv: 'AAAAAAAAAAAAAAAA' }),
    });
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.locator(`[data-testid="message"][data-status="success"]`, { hasText: text }).waitFor();
    await expect.poll(() => stored(ticket)).toBe(before + 1);
    // CRYPT-11: it went out encrypted with that key; the database holds the envelope, not the text.
    const row = sqlite
      .prepare('select message from messages where ticket_id = ? and client_id = ?')
      .get(ticket, queueId) as { message: string } | undefined;
    expect(row?.message.startsWith('{"e2e":1,"m":"aes"')).toBe(true);
    expect(row?.message).not.toContain(text);
    // With the key the line is gone, and a reload still shows the message once.
    await line.waitFor({ state: 'detached' });
    await open(page, ticket);
    await message(page, text).waitFor();
    expect(await message(page, text).count()).toBe(1);
    expect(await page.getByTestId('encryption-key-missing').count()).toBe(0);
    expect(stored(ticket)).toBe(before + 1);
  });

  it('MSG-12 CRYPT-07 a plain ticket is unaffected; the failed state in dark', async () => {
    const { page } = await signedIn('dark');
    await open(page, plain);
    const text = `plain hello ${Date.now()}`;
    await send(page, text);
    await page.locator(`[data-testid="message"][data-status="success"]`, { hasText: text }).waitFor();
    await expect.poll(() => stored(plain, text)).toBe(1);
    expect(await page.getByTestId('encryption-key-missing').count()).toBe(0);

    // The encrypted one on this browser (no key here): the line and a failed message, in dark.
    const ticket = encrypted[1] ?? 0;
    await open(page, ticket);
    await page.getByTestId('encryption-key-missing').waitFor();
    const secret = `dark secret ${Date.now()}`;
    await send(page, secret);
    const modal = page.getByRole('dialog', { name: 'Message not sent' });
    await modal.waitFor();
    expect(await modal.getByRole('alert').textContent()).toBe(`Opps, message failed to send. The error is ${NO_KEY}`);
    await modalSettled(page);
    await screenshot(page, 'encryption-no-key-modal-dark');
    await modal.getByRole('button', { name: 'OK' }).click();
    await modal.waitFor({ state: 'detached' });
    expect(await message(page, secret).getAttribute('data-status')).toBe('failed');
    await screenshot(page, 'encryption-no-key-dark');
    expect(stored(ticket, secret)).toBe(0);
  });
});
