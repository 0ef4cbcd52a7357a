import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsSettled,
  apiJson,
  type RunningServer,
  screenshot,
  signInAs,
  startLiveChatWorkspace,
  visitorChatTaken,
  waitConnected,
} from './support.js';

const WAIT = { timeout: 15_000 };

/** Who said what: a live chat's visitor details, names on messages, ticket notes with mentions, a new ticket's customer. */
describe('who said what, in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';
  let amyToken = '';
  let liveToken = '';
  const contexts: BrowserContext[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    ({ server, browser, adminToken, amyToken, liveToken } = await startLiveChatWorkspace());
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark', phone = false): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 1440, height: 900 },
      colorScheme: scheme,
    });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[page] ${e.message}`));
    return page;
  }

  it("a live chat's details show the visitor's e-mail; the customer's message shows the customer's name (1440, light)", async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'amy');
    const c = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Vera', sockets });
    await page.goto(`${server.url}/livechat/${c.ticketId}`);
    await waitConnected(page);
    const details = page.getByTestId('visitor-details');
    await details.getByTestId('visitor-email').filter({ hasText: 'vera@example.com' }).waitFor(WAIT);
    expect(await details.getByTestId('visitor-name').textContent()).toBe('Vera');
    const first = page.getByTestId('message').filter({ hasText: 'Hello, I am Vera' });
    await first.waitFor(WAIT);
    expect(await first.getByTestId('message-sender').textContent()).toBe('Vera');
    expect(await first.getByTestId('message-channel').textContent()).toBe('Live Chat');
    expect(await page.getByTestId('conversation-pane').textContent()).not.toContain('visitor');
    // The same Details toggle as a ticket's closes and reopens the column.
    await page.getByTestId('ticket-info-toggle').click();
    await details.waitFor({ state: 'detached' });
    await page.getByTestId('ticket-info-toggle').click();
    await details.getByTestId('visitor-email').waitFor(WAIT);
    await screenshot(page, 'who-livechat-details-1440-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'who-livechat-details-1440-dark');
  }, 120_000);

  it('the visitor details open as a drawer on a phone (390x844, dark)', async () => {
    const page = await open('dark', true);
    await signInAs(page, server.url, 'amy');
    const c = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Walt', sockets });
    await page.goto(`${server.url}/livechat/${c.ticketId}`);
    await page.getByTestId('message').filter({ hasText: 'Hello, I am Walt' }).waitFor(WAIT);
    await page.getByTestId('ticket-info-toggle').click();
    const drawer = page.getByRole('dialog', { name: 'Details' });
    await drawer.getByTestId('visitor-email').filter({ hasText: 'walt@example.com' }).waitFor(WAIT);
    // Vera's earlier chat is another session: Walt has none.
    expect(await drawer.getByTestId('visitor-past-chat').count()).toBe(0);
    await screenshot(page, 'who-livechat-details-390-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'who-livechat-details-390-light');
  }, 120_000);

  it("a new ticket takes a customer and a first message stored as the customer's (1440, dark)", async () => {
    const page = await open('dark');
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/ticket`);
    await page.getByRole('button', { name: 'New ticket', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New ticket' });
    await dialog.waitFor();
    await dialog.getByLabel('Title').fill('Kettle broke');
    await dialog.getByLabel("Customer's message").fill('My kettle stopped working yesterday.');
    // A message needs a customer.
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').filter({ hasText: "Give the customer's name, e-mail or phone." }).waitFor();
    await dialog.getByLabel('Name').fill('Carla Customer');
    await dialog.getByLabel('Email').fill('carla@example.com');
    await dialog.getByLabel('Assignees').click();
    await page.getByRole('option', { name: 'Amy Agent (amy)' }).click();
    await page.keyboard.press('Escape');
    await screenshot(page, 'who-new-ticket-1440-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'who-new-ticket-1440-light');
    await page.setViewportSize({ width: 390, height: 844 });
    await animationsSettled(page);
    await screenshot(page, 'who-new-ticket-390-light');
    await page.setViewportSize({ width: 1440, height: 900 });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/ticket\/\d+$/, WAIT);
    const id = Number(page.url().split('/').pop());
    const message = page.getByTestId('message').filter({ hasText: 'My kettle stopped working yesterday.' });
    await message.waitFor(WAIT);
    expect(await message.getByTestId('message-sender').textContent()).toBe('Carla Customer');
    const info = await apiJson(`${server.url}/ticket/info/me/${id}`, 'GET', undefined, adminToken);
    expect(info.data).toMatchObject({ name: 'Carla Customer', email: 'carla@example.com', assignee: 'amy' });
    const history = await apiJson(`${server.url}/api/ticket/data3/${id}/0`, 'GET', undefined, adminToken);
    expect(
      history.data.find((m: { message: string }) => m.message === 'My kettle stopped working yesterday.'),
    ).toMatchObject({ sender: 'visitor', senderName: 'Carla Customer' });
  }, 120_000);

  it('a ticket note with an @mention notifies the other agent and never reaches the conversation (390x844, light)', async () => {
    const t = await apiJson(
      `${server.url}/api/ticket/create`,
      'POST',
      { title: 'Refund request', name: 'Nina' },
      adminToken,
    );
    const page = await open('light', true);
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/ticket/${t.data.id}`);
    await page.getByTestId('ticket-info-toggle').click();
    const notes = page.getByRole('dialog', { name: 'Details' }).getByTestId('ticket-notes');
    await notes.getByTestId('ticket-note-input').fill('Refund approved, @amy please send it.');
    await notes.getByRole('button', { name: 'Add note' }).click();
    const note = notes.getByTestId('ticket-note').filter({ hasText: 'Refund approved' });
    await note.waitFor(WAIT);
    expect(await note.textContent()).toContain('Ann Admin');
    await screenshot(page, 'who-ticket-note-390-light');
    const mentions = async () =>
      (
        (await apiJson(`${server.url}/notification/get?type=system&offset=0`, 'GET', undefined, amyToken)) as {
          ticket_number: number;
          body: string;
        }[]
      )
        .filter((n) => n.ticket_number === t.data.ticket_number)
        .map((n) => n.body);
    await expect.poll(mentions, WAIT).toEqual([expect.stringContaining('Ann Admin mentioned you')]);
    const history = await apiJson(`${server.url}/api/ticket/data3/${t.data.id}/0`, 'GET', undefined, adminToken);
    expect(JSON.stringify(history)).not.toContain('Refund approved');
  }, 120_000);
});
