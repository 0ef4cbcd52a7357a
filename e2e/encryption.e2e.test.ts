import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  axe,
  modalSettled,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  signInAs,
  startDemo,
} from './support.js';

const NO_KEY = "You cannot read or send message because you don't have the encryption key on this browser.";

/**
 * CRYPT-01, CRYPT-02, CRYPT-04, CRYPT-07, CRYPT-09, CRYPT-11 in Chromium: two browsers make RSA key pairs in
 * Settings -> Encryption and exchange messages on an encrypted ticket; the database holds only envelopes; a
 * third browser without a key sees the spec's line and cannot send; a tampered message reads as unreadable.
 */
describe('end-to-end encryption between browsers, in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let sqlite: Database.Database;
  const contexts: BrowserContext[] = [];
  let ticket = 0;

  beforeAll(async () => {
    ({ server, browser } = await startDemo({ tickets: 2, password: PASSWORD }));
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
  }, 180_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  async function signedIn(username: string, scheme: 'light' | 'dark' = 'light') {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[${username}] ${e.message}`));
    await signInAs(page, server.url, username);
    return page;
  }
  /** Settings -> Encryption: a new RSA key pair made on this browser and its public key published. */
  async function makeRsaKey(page: Page) {
    await page.goto(`${server.url}/settings/encryption`);
    const card = page.getByTestId('encryption-card');
    await card.waitFor();
    await card.getByRole('button', { name: 'Create RSA key pair' }).click();
    await page.locator('[data-testid="encryption-status"][data-method="rsa"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('encryption-note').waitFor();
    const kid = await page.getByTestId('encryption-status').getAttribute('data-kid');
    expect(kid).toMatch(/^[0-9a-f]{16}$/);
    return kid ?? '';
  }
  async function open(page: Page, id: number) {
    await page.goto(`${server.url}/ticket/${id}`);
    await page.locator(`[data-testid="conversation-pane"][data-ticket="${id}"]`).waitFor();
    await page.getByTestId('message-count').waitFor();
  }
  const send = async (page: Page, text: string) => {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-input').press('Enter');
  };
  const shown = (page: Page, text: string) =>
    page.locator('[data-testid="message-text"][data-encrypted="true"]', { hasText: text });
  const rows = () =>
    sqlite
      .prepare('select id, message from messages where ticket_id = ? and deleted_at is null order by id')
      .all(ticket) as {
      id: number;
      message: string;
    }[];

  it('CRYPT-01 CRYPT-02 CRYPT-04 CRYPT-07 CRYPT-09 CRYPT-11 two browsers with RSA keys exchange encrypted messages; the database holds no plaintext; a browser without a key cannot read or send; a tampered message is unreadable', async () => {
    const admin = await signedIn('demo-admin');
    const agent = await signedIn('demo-agent1', 'dark');
    const adminKid = await makeRsaKey(admin);
    await screenshot(admin, 'encryption-settings-light');
    expect(await axe(admin)).toEqual([]);
    const agentKid = await makeRsaKey(agent);
    await screenshot(agent, 'encryption-settings-dark');
    expect(await axe(agent)).toEqual([]);
    // CRYPT-02: both public keys are on the server, listed with their fingerprints.
    await agent.reload();
    await agent.getByTestId('encryption-team-keys').getByText(adminKid).waitFor();
    const signIn = await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password: PASSWORD });
    const token = signIn.token as string;
    const keys = await apiJson(`${server.url}/api/encryption/keys`, 'GET', undefined, token);
    expect(keys.data.map((k: { kid: string }) => k.kid).sort()).toEqual([adminKid, agentKid].sort());

    // CRYPT-01, CRYPT-09: an encrypted ticket; its list item carries the flag.
    const made = await apiJson(
      `${server.url}/api/ticket/create`,
      'POST',
      { title: 'Encrypted matter', encryption_method: 'rsa' },
      token,
    );
    expect(made.data.encryption).toBe(true);
    ticket = made.data.id;

    const alpha = `alpha secret ${Date.now()}`;
    await open(admin, ticket);
    await send(admin, alpha);
    await shown(admin, alpha).waitFor();
    await open(agent, ticket);
    await shown(agent, alpha).waitFor();
    const bravo = `bravo secret ${Date.now()}`;
    await send(agent, bravo);
    await shown(agent, bravo).waitFor();
    // Live to the other browser, decrypted there.
    await shown(admin, bravo).waitFor();
    expect(await admin.getByTestId('encryption-key-missing').count()).toBe(0);
    await screenshot(admin, 'encryption-conversation-light');
    await screenshot(agent, 'encryption-conversation-dark');
    expect(await axe(admin)).toEqual([]);

    // CRYPT-11: what the server stored and relayed is envelopes only, wrapped for both keys.
    const stored = rows();
    expect(stored).toHaveLength(2);
    for (const r of stored) {
      const e = JSON.parse(r.message);
      expect(e).toMatchObject({ e2e: 1, m: 'rsa' });
      expect(Object.keys(e.keys).sort()).toEqual([adminKid, agentKid].sort());
    }
    const everything = JSON.stringify([
      sqlite.prepare('select * from messages').all(),
      sqlite.prepare('select * from events').all(),
      sqlite.prepare('select * from tickets').all(),
    ]);
    expect(everything).not.toContain('alpha secret');
    expect(everything).not.toContain('bravo secret');
    const history = await apiJson(`${server.url}/ticket/data/${ticket}/0`, 'GET', undefined, token);
    expect(JSON.stringify(history)).not.toContain('secret');

    // CRYPT-07: a third browser with no key: the spec's line, each message says so, and a send fails.
    const third = await signedIn('demo-agent2');
    await open(third, ticket);
    const line = third.getByTestId('encryption-key-missing');
    await line.waitFor();
    expect(await line.textContent()).toBe(NO_KEY);
    await third.locator('[data-testid="message-sealed"][data-state="noKey"]').nth(1).waitFor();
    const charlie = `charlie ${Date.now()}`;
    await send(third, charlie);
    const modal = third.getByRole('dialog', { name: 'Message not sent' });
    await modal.waitFor();
    expect(await modal.getByRole('alert').textContent()).toBe(`Opps, message failed to send. The error is ${NO_KEY}`);
    await modalSettled(third);
    await screenshot(third, 'encryption-third-browser-light');
    await modal.getByRole('button', { name: 'OK' }).click();
    await modal.waitFor({ state: 'detached' });
    expect(rows()).toHaveLength(2);

    // CRYPT-11: a message changed in the database reads as unreadable, never a crash; the others still read.
    const first = stored[0]!;
    const e = JSON.parse(first.message);
    e.ct = (e.ct[0] === 'A' ? 'B' : 'A') + e.ct.slice(1);
    sqlite.prepare('update messages set message = ? where id = ?').run(JSON.stringify(e), first.id);
    await open(admin, ticket);
    await admin.locator('[data-testid="message-sealed"][data-state="unreadable"]').waitFor();
    expect(await admin.locator('[data-testid="message-sealed"][data-state="unreadable"]').textContent()).toContain(
      'This message cannot be read',
    );
    await shown(admin, bravo).waitFor();
    expect(await admin.getByText('Something went wrong').count()).toBe(0);
    await screenshot(admin, 'encryption-tampered-light');
  });
});
