import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  cli,
  newContext,
  PASSWORD,
  painted,
  type ReceivedEvent,
  type RunningServer,
  receivedEvents,
  screenshot,
  signInAs,
  startLiveChatWorkspace,
  visitorChatTaken,
  waitConnected,
} from './support.js';

const WAIT = { timeout: 15_000 };

/**
 * What the shell reads from the conversation events, whatever screen is open: the page title's unread
 * total (SHELL-40), the Tickets and Kanban dots of the navigation (NAV-05, NAV-10, NAV-27) and the toast
 * with View for a customer message (SHELL-58). Customers write through the real visitor socket of a live chat.
 */
describe('SHELL unread title, navigation badges and toasts in Chromium', () => {
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
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close().catch(() => undefined);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await browser?.close();
    await server?.stop();
  });

  /** The socket events each page opened by `open` has received. */
  const received = new WeakMap<Page, ReceivedEvent[]>();
  const open = async (scheme: 'light' | 'dark' = 'light'): Promise<Page> => {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    received.set(page, receivedEvents(page));
    return page;
  };
  /**
   * Waits until the page has had an `updateTicket` of ticket `id` that `matches`, received after the first
   * `from` events, and has drawn what it did: what the shell makes of that update is on screen.
   */
  async function updateHandled(
    page: Page,
    from: number,
    id: number,
    matches: (t: { closed: number; severity: string }) => boolean,
  ): Promise<void> {
    const events = received.get(page)!;
    await expect
      .poll(
        () =>
          events
            .slice(from)
            .some(
              (e) =>
                e.name === 'updateTicket' &&
                (e.data as { id: number }).id === id &&
                matches(e.data as { closed: number; severity: string }),
            ),
        WAIT,
      )
      .toBe(true);
    await painted(page);
  }

  it('SHELL-40 SHELL-41 the page title counts unread conversations: up when a customer writes, down when read; the Live Chats entry carries the badge', async () => {
    const ann = await open();
    await signInAs(ann, server.url, 'ann');
    await expect.poll(() => ann.title()).toBe('Parley - Ann Admin');

    // A customer's first message in a chat Ann has not read: one unread.
    const vera = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Vera', sockets });
    await expect.poll(() => ann.title(), WAIT).toBe('(1) Parley - Ann Admin');
    // More from the same customer is the same unread conversation; a second customer makes two.
    await vera.says('Are you there?');
    const walt = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Walt', sockets });
    await expect.poll(() => ann.title(), WAIT).toBe('(2) Parley - Ann Admin');
    // The desktop navigation's Live Chats entry carries the badge, as a phone's tab does.
    const liveEntry = ann.getByRole('list', { name: 'Main navigation' }).getByRole('link', { name: /^Live Chats/ });
    await expect
      .poll(() => liveEntry.getAttribute('aria-label').then((l) => l ?? liveEntry.textContent()), WAIT)
      .toContain('unread');
    await screenshot(ann, 'shell-title-unread-light');

    // Ann reads Vera's chat (an open chat is read while the page has the focus): the total drops.
    await ann.bringToFront();
    await ann.goto(`${server.url}/livechat/${vera.ticketId}`);
    await ann.getByTestId('conversation-pane').waitFor();
    await expect.poll(() => ann.title(), WAIT).toBe('(1) Parley - Ann Admin');

    // Elsewhere again, Vera writes in the chat Ann has read: unread again.
    await ann.goto(`${server.url}/settings/security`);
    await waitConnected(ann);
    await expect.poll(() => ann.title(), WAIT).toBe('(1) Parley - Ann Admin');
    await vera.says('Hello again');
    await expect.poll(() => ann.title(), WAIT).toBe('(2) Parley - Ann Admin');
    // Read on another device (the API, same user): this page follows at once.
    for (const id of [vera.ticketId, walt.ticketId])
      await apiJson(`${server.url}/api/ticket/read`, 'POST', { id }, adminToken);
    await expect.poll(() => ann.title(), WAIT).toBe('Parley - Ann Admin');
    await expect
      .poll(() => liveEntry.getAttribute('aria-label').then((l) => l ?? liveEntry.textContent()), WAIT)
      .not.toContain('unread');
  });

  it('SHELL-58 SHELL-59 a customer message in my chat while I am elsewhere: a toast whose View opens it', async () => {
    const amy = await open();
    await signInAs(amy, server.url, 'amy');
    const zoe = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Zoe', sockets });
    await amy.goto(`${server.url}/settings/appearance`);
    await waitConnected(amy);
    await zoe.says('My parcel is late');
    const toast = amy.locator('.mantine-Notification-root').filter({ hasText: 'Zoe wrote a new message.' });
    await toast.waitFor(WAIT);
    expect(await toast.textContent()).toContain('New message');
    await screenshot(amy, 'shell-toast-view-light');
    await toast.getByRole('button', { name: 'View' }).click();
    await amy.waitForURL(`${server.url}/livechat/${zoe.ticketId}`);
    await amy.getByTestId('conversation-pane').waitFor();
    await amy.getByTestId('message').filter({ hasText: 'My parcel is late' }).waitFor();
    await toast.waitFor({ state: 'detached' });

    // On the conversation screens the list shows it: no toast there. The toast would come with the ticket's
    // update that follows the message.
    await zoe.says('Still waiting');
    await amy.getByTestId('message').filter({ hasText: 'Still waiting' }).waitFor(WAIT);
    const events = received.get(amy)!;
    const said = () =>
      events.findIndex((e) => e.name === 'newMessage' && (e.data as { message: string }).message === 'Still waiting');
    await expect.poll(said, WAIT).toBeGreaterThanOrEqual(0);
    await updateHandled(amy, said(), zoe.ticketId, () => true);
    expect(
      await amy.locator('.mantine-Notification-root').filter({ hasText: 'Zoe wrote a new message.' }).count(),
    ).toBe(0);
  });

  it('NAV-10 NAV-27 the Kanban dot: a ticket created or changing status while the admin is elsewhere; cleared on /kanban', async () => {
    const ann = await open();
    await signInAs(ann, server.url, 'ann');
    const kanban = ann.getByTestId('nav-kanban');
    const dot = ann.locator('[data-testid="nav-kanban"][data-badge]');
    await kanban.waitFor();
    expect(await dot.count()).toBe(0);

    // A new ticket.
    const created = await apiJson(
      `${server.url}/api/ticket/create`,
      'POST',
      { title: 'Board news', name: 'Cus' },
      amyToken,
    );
    await dot.waitFor(WAIT);
    expect(await kanban.getAttribute('aria-label')).toBe(null); // expanded: the word is visually hidden
    expect(await kanban.textContent()).toContain('Kanban, updated');
    await screenshot(ann, 'shell-kanban-dot-light');

    // A new page on the ticket list, which loads the ticket: a priority change is not the board's news; a
    // status change is.
    await ann.goto(`${server.url}/ticket`);
    await ann.getByText('Board news').first().waitFor();
    expect(await dot.count()).toBe(0); // the flag belongs to the page that saw the change
    let from = received.get(ann)!.length;
    await apiJson(`${server.url}/api/ticket/priority`, 'POST', { id: created.data.id, priority: 'H' }, amyToken);
    await updateHandled(ann, from, created.data.id, (t) => t.severity === 'H');
    expect(await dot.count()).toBe(0);
    await apiJson(`${server.url}/api/ticket/status`, 'POST', { id: created.data.id, status: 1 }, amyToken);
    await dot.waitFor(WAIT);

    // Visiting the board clears it; on the board a change raises nothing.
    await kanban.click();
    await ann.waitForURL(`${server.url}/kanban`);
    await dot.waitFor({ state: 'detached' });
    from = received.get(ann)!.length;
    await apiJson(`${server.url}/api/ticket/status`, 'POST', { id: created.data.id, status: 2 }, amyToken);
    await updateHandled(ann, from, created.data.id, (t) => t.closed === 2);
    expect(await dot.count()).toBe(0);

    // Collapsed (Kanban pinned to stay visible), the entry's name carries it.
    await ann.evaluate(() => localStorage.setItem('parley.nav.pinned', JSON.stringify(['home', 'kanban'])));
    await ann.goto(`${server.url}/`);
    await waitConnected(ann);
    await ann.getByTestId('nav-toggle').click();
    await apiJson(`${server.url}/api/ticket/create`, 'POST', { title: 'More news', name: 'Cus' }, amyToken);
    await dot.waitFor(WAIT);
    expect(await kanban.getAttribute('aria-label')).toBe('Kanban, updated');
  });

  it('NAV-05 SHELL-34 the Tickets dot (panel and bottom tab) while a ticket is unread; gone when read elsewhere', async () => {
    // The demo workspace: tickets from customers that nobody has read yet.
    const out = await cli(server, 'demo', '--tickets', '8', '--password', PASSWORD);
    const admin = /(\S+-admin)/.exec(out)?.[1];
    expect(admin, out).toBeTruthy();
    const token = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: admin, password: PASSWORD })).token;
    const unread = (await apiJson(`${server.url}/api/unread`, 'GET', undefined, token)).data as {
      type: string;
      count: number;
    }[];
    expect(unread.find((u) => u.type === 'ticket')?.count).toBeGreaterThan(0);

    // Narrow first: the Tickets tab carries the flag.
    const page = await open('dark');
    await page.setViewportSize({ width: 390, height: 800 });
    await page.context().addCookies([{ name: 'parley_token', value: token, url: server.url }]);
    await page.goto(`${server.url}/ticket`);
    await page.locator('[data-testid="tab-ticket"][data-badge]').waitFor(WAIT);
    await screenshot(page, 'shell-tickets-tab-dot-dark');
    // Wide: the panel's Tickets entry.
    await page.setViewportSize({ width: 1280, height: 800 });
    const dot = page.locator('[data-testid="nav-tickets"][data-badge]');
    await dot.waitFor(WAIT);
    expect(await page.getByTestId('nav-tickets').textContent()).toContain('Tickets, unread');
    await screenshot(page, 'shell-tickets-dot-dark');

    // Every unread ticket read in another tab of the same user: the dot goes, live, in both places.
    await page.goto(`${server.url}/settings/security`);
    await waitConnected(page);
    await dot.waitFor(WAIT);
    const list = await apiJson(`${server.url}/api/ticket/load/me/4/ticket/0`, 'GET', undefined, token);
    for (const t of list.data as { id: number; newMessage: boolean }[])
      if (t.newMessage) await apiJson(`${server.url}/api/ticket/read`, 'POST', { id: t.id }, token);
    await dot.waitFor({ state: 'detached', ...WAIT });
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByTestId('tab-ticket').waitFor();
    expect(await page.getByTestId('tab-ticket').getAttribute('data-badge')).toBe(null);
  });
});
