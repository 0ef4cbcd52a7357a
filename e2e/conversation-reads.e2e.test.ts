import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  newContext,
  PASSWORD,
  type RunningServer,
  recordSocketSends,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/** RT-09 and MSG-47 in Chromium: read receipts on a ticket and in a Workspace chat; a chat of others. */
describe('read receipts and access in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const token: Record<string, string> = {};
  const id: Record<string, number> = {};
  let ticket = 0;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    token.ann = await seedWorkspace(server.url, [
      { username: 'bob', name: 'Bob Agent' },
      { username: 'cyd', name: 'Cyd Agent' },
      { username: 'dee', name: 'Dee Agent' },
    ]);
    for (const u of ['bob', 'cyd', 'dee'])
      token[u] = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: u, password: PASSWORD })).token;
    const users = (await apiJson(`${server.url}/api/users`, 'GET', undefined, token.ann)).data as {
      id: number;
      username: string;
    }[];
    for (const u of users) id[u.username] = u.id;
    const { accountId } = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, token.ann);
    const db = new Database(path.join(server.dataDir, 'parley.db'));
    db.pragma('busy_timeout = 5000');
    const now = Date.now();
    ticket = (
      db
        .prepare(
          `insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
             assignee, name, email, phone, created_at, updated_at)
           values (?, 1, 'Where is my parcel?', 'WHATSAPP', 0, '', '[]', null, 'bob', 'Pat Lee', '', '+6012', ?, ?)
           returning id`,
        )
        .get(accountId, now, now) as { id: number }
    ).id;
    db.close();
    await apiJson(`${server.url}/api/ticket/message`, 'POST', { ticket_id: ticket, message: 'On its way.' }, token.bob);
  }, 180_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  /** A signed-in page that records the socket events it sends (socket.io frames: `42["name",...]`). */
  async function signedIn(username: string, scheme: 'light' | 'dark' = 'light') {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[${username}] ${e.message}`));
    const sent = recordSocketSends(page);
    await signInAs(page, server.url, username);
    return { page, sent };
  }
  const seen = (page: Page) => page.getByTestId('message-seen').allTextContents();

  it('RT-09 a ticket read on one screen shows "Seen by" on the other, sent as readMessage', async () => {
    const bob = await signedIn('bob');
    await bob.page.goto(`${server.url}/ticket/${ticket}`);
    await bob.page.getByTestId('message-count').waitFor();
    const cy = await signedIn('cyd');
    await cy.page.goto(`${server.url}/ticket/${ticket}`);
    await cy.page.getByTestId('message-count').waitFor();
    await expect.poll(() => seen(bob.page)).toEqual(['Seen by Cyd Agent']);
    expect(cy.sent).toContain('readMessage');
    expect(cy.sent).not.toContain('readMessage2');
    // A newer message moves the receipt once it is read there.
    await apiJson(
      `${server.url}/api/ticket/message`,
      'POST',
      { ticket_id: ticket, message: 'Tracking: 42' },
      token.bob,
    );
    await expect.poll(() => seen(bob.page)).toEqual(['Seen by Cyd Agent']);
    const last = bob.page.getByTestId('message').last();
    await expect
      .poll(() =>
        last
          .getByTestId('message-seen')
          .textContent()
          .catch(() => ''),
      )
      .toBe('Seen by Cyd Agent');
  });

  it('RT-09 RT-07 in a Workspace chat the read goes as readMessage2 and shows "Seen by", in light and dark', async () => {
    const chat = (await apiJson(`${server.url}/api/chat/create`, 'POST', { members: [id.ann] }, token.bob)).data
      .id as number;
    await apiJson(`${server.url}/api/ticket/message`, 'POST', { ticket_id: chat, message: 'Lunch at one?' }, token.bob);
    const bob = await signedIn('bob', 'dark');
    await bob.page.goto(`${server.url}/chat/${chat}`);
    await bob.page.getByTestId('message-count').waitFor();
    const ann = await signedIn('ann');
    await ann.page.goto(`${server.url}/chat/${chat}`);
    await ann.page.getByTestId('message-count').waitFor();
    await expect.poll(() => seen(bob.page)).toEqual(['Seen by Ann Admin']);
    expect(ann.sent).toContain('readMessage2');
    expect(ann.sent).not.toContain('readMessage');
    await screenshot(bob.page, 'conversation-chat-seen-dark');
    await screenshot(ann.page, 'conversation-chat-reader-light');
  });

  it('MSG-47 a Workspace chat of others: "You cannot read this conversation." and back to the list', async () => {
    const chat = (await apiJson(`${server.url}/api/chat/create`, 'POST', { members: [id.cyd] }, token.bob)).data
      .id as number;
    const dee = await signedIn('dee');
    await dee.page.goto(`${server.url}/ticket/${chat}`);
    await dee.page.getByText('You cannot read this conversation.').waitFor();
    await expect.poll(() => new URL(dee.page.url()).pathname).toBe('/ticket');
    expect(await dee.page.getByText('Ops! The chat has crashed unexpectedly.').count()).toBe(0);
  });
});
