import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  newContext,
  PASSWORD,
  painted,
  type ReceivedEvent,
  type RunningServer,
  receivedEvents,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

/**
 * The ticket list's live side (useTicketLive.ts) between two browsers: an admin and an agent. Tickets arrive
 * through the API as another user creates them; the arrival rules decide what each list does.
 */
describe('ticket arrivals, popups and the new-message stack in two browsers', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin: string;
  let agentToken: string;
  let sqlite: Database.Database;
  const labels: Record<string, number> = {};
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'bea', name: 'Bea Agent' }]);
    agentToken = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'bea', password: PASSWORD })).token;
    const saved = await apiJson(
      `${server.url}/api/label/update`,
      'POST',
      {
        labelArray: ['Billing', 'Repairs'].map((name) => ({
          isNew: true,
          name,
          color: '#224488',
          colorDark: '#88AAFF',
          level: 0,
          sla: 30,
        })),
        delete: [],
      },
      admin,
    );
    for (const l of saved.data as { id: number; name: string }[]) labels[l.name] = l.id;
    for (let i = 0; i < 3; i++) await create({ title: `Earlier ticket ${i}`, label: [labels.Billing!] });
    sqlite = new Database(path.join(server.dataDir, 'parley.db'));
    sqlite.pragma('busy_timeout = 5000');
  });
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    sqlite?.close();
    await browser?.close();
    await server?.stop();
  });

  /** A ticket created by the admin through the API (another browser's user, as far as the pages know). */
  async function create(body: Record<string, unknown>): Promise<{ id: number; ticket_number: number }> {
    return (await apiJson(`${server.url}/api/ticket/create`, 'POST', body, admin)).data;
  }
  /** The socket events each page opened by `openTickets` has received. */
  const received = new WeakMap<Page, ReceivedEvent[]>();
  async function openTickets(user: 'ann' | 'bea', scheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    received.set(page, receivedEvents(page));
    await signInAs(page, server.url, user);
    await page.goto(`${server.url}/ticket`);
    // The page's own socket (a new one after the load): an arrival before it connects comes in no event.
    await waitConnected(page);
    await page.getByTestId('ticket-row').first().waitFor();
    return page;
  }
  const count = async (page: Page) => Number(await page.getByTestId('ticket-count').textContent());
  const row = (page: Page, title: string) => page.getByTestId('ticket-row').filter({ hasText: title });
  /** Counts the list loads a page makes from now on (an insert is live; a reload is a new load call). */
  function loads(page: Page) {
    const seen = { n: 0 };
    page.on('request', (r) => {
      if (r.url().includes('/api/ticket/load/')) seen.n++;
    });
    return seen;
  }

  it('TICKET-39 TICKET-43 TICKET-05 a new ticket joins the list only when it matches every filter; the count follows', async () => {
    const page = await openTickets('bea');
    // Filter by label Billing through the panel.
    await page.getByTestId('ticket-filters').click();
    await page
      .getByRole('dialog', { name: 'Filters' })
      .getByLabel('Label', { exact: true })
      .first()
      .click({ force: true });
    await page.getByRole('option', { name: 'Billing' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(() => count(page)).toBe(3);
    const calls = loads(page);

    await create({ title: 'Repairs only ticket', label: [labels.Repairs!] });
    await create({ title: 'Billing question live', label: [labels.Billing!] });
    await row(page, 'Billing question live').waitFor();
    expect(await count(page)).toBe(4);
    expect(await row(page, 'Repairs only ticket').count()).toBe(0);
    expect(calls.n).toBe(0); // inserted from the event, not loaded again
    expect(await page.getByTestId('ticket-row').first().textContent()).toContain('Billing question live');

    // A search narrows the list too: a ticket without the words stays out.
    await page.getByLabel('Search tickets').fill('boiler');
    await expect.poll(() => count(page)).toBe(0);
    await create({ title: 'Billing for the new boiler', label: [labels.Billing!] });
    await create({ title: 'Billing for the roof', label: [labels.Billing!] });
    await row(page, 'Billing for the new boiler').waitFor();
    await expect.poll(() => count(page)).toBe(1);
    expect(await row(page, 'Billing for the roof').count()).toBe(0);
    // No popup for an agent on a ticket without severity H.
    expect(await page.getByTestId('ticket-popup').count()).toBe(0);
  });

  it('TICKET-06 TICKET-39 a list filtered by what only the server knows is loaded again on an arrival', async () => {
    const page = await openTickets('bea');
    // The filtered list's first load is held at the browser until the ticket has arrived: an answer still on
    // its way may have been read before the ticket existed, so the arrival must start a load of its own.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(
      (url) => url.pathname.startsWith('/api/ticket/load/') && url.searchParams.get('replyTAT') === '1',
      async (route) => {
        await held;
        // The app may have given up this load for a new one by now.
        await route.continue().catch(() => undefined);
      },
      { times: 1 },
    );
    await page.getByTestId('ticket-filters').click();
    const asked = page.waitForRequest((r) => r.url().includes('replyTAT=1'));
    await page.getByLabel('First reply later than (minutes)').fill('1');
    await asked;
    await page.keyboard.press('Escape');
    const calls = loads(page);
    const events = received.get(page)!;
    const { id } = await create({ title: 'Waiting for a first reply' });
    await expect
      .poll(() => events.some((e) => e.name === 'createTicket' && (e.data as { id: number }).id === id))
      .toBe(true);
    await painted(page);
    release();
    await expect.poll(() => calls.n, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await row(page, 'Waiting for a first reply').count()).toBe(0); // not overdue yet: the server says so
  });

  it('TICKET-43 TICKET-44 under Pending a new ticket raises the notice; Show Open lists it', async () => {
    const page = await openTickets('bea', 'dark');
    await page
      .locator('label')
      .filter({ hasText: /^Pending$/ })
      .click();
    await expect.poll(() => page.getByTestId('ticket-row').count()).toBe(0);
    await create({ title: 'Arrived while Pending was shown' });
    const notice = page.getByTestId('new-ticket-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('New ticket');
    expect(await row(page, 'Arrived while Pending was shown').count()).toBe(0);
    await create({ title: 'A second arrival' });
    await expect.poll(() => notice.textContent()).toContain('2 new tickets');
    await screenshot(page, 'tickets-new-ticket-notice-dark');
    await notice.getByRole('button', { name: 'Show Open' }).click();
    await row(page, 'Arrived while Pending was shown').waitFor();
    expect(await page.getByTestId('new-ticket-notice').count()).toBe(0);
  });

  it('TICKET-46 TICKET-47 CRYPT-10 severity H pops up for the agent, never for the admin', async () => {
    const [agent, adminPage] = await Promise.all([openTickets('bea'), openTickets('ann')]);
    await create({ title: 'Server room is flooding', priority: 'H' });
    const popup = agent.getByTestId('ticket-popup');
    await popup.waitFor();
    expect(await agent.getByRole('dialog').textContent()).toContain('Server room is flooding');
    await screenshot(agent, 'tickets-arrival-popup-light');
    await row(adminPage, 'Server room is flooding').waitFor();
    expect(await adminPage.getByTestId('ticket-popup').count()).toBe(0);
    // Open goes to the ticket.
    await popup.getByRole('button', { name: 'Open' }).click();
    await agent.waitForURL(/\/ticket\/\d+$/);
  });

  it('TICKET-45 TICKET-47 a CALL ticket pops up for the agent while popup_on_call is 1 only; never for the admin', async () => {
    await apiJson(`${server.url}/api/ticket/settings`, 'POST', { popup_on_call: 1 }, admin);
    const [agent, adminPage] = await Promise.all([openTickets('bea'), openTickets('ann')]);
    await create({ title: 'Incoming call from Sam', channel: 'CALL', call_direction: 'inbound', did: '+60312345678' });
    await agent.getByTestId('ticket-popup').waitFor();
    expect(await agent.getByRole('dialog').textContent()).toContain('Incoming call from Sam');
    await row(adminPage, 'Incoming call from Sam').waitFor();
    expect(await adminPage.getByTestId('ticket-popup').count()).toBe(0);
    await agent.keyboard.press('Escape');

    await apiJson(`${server.url}/api/ticket/settings`, 'POST', { popup_on_call: 0 }, admin);
    await agent.reload();
    await agent.getByTestId('ticket-row').first().waitFor();
    await create({ title: 'Second call, popups off', channel: 'CALL', call_direction: 'inbound' });
    await row(agent, 'Second call, popups off').waitFor();
    expect(await agent.getByTestId('ticket-popup').count()).toBe(0);
  });

  /** A customer message as the list learns of it: the stored time moves, and a change sends updateTicket. */
  async function customerWrites(id: number) {
    sqlite.prepare('update tickets set last_message_at = ? where id = ?').run(Date.now(), id);
    await apiJson(`${server.url}/api/ticket/priority`, 'POST', { id, priority: 'L', type: 'ticket' }, admin);
  }

  it(
    'TICKET-41 TICKET-42 news on the open ticket of a focused page is read at once; on others it joins the new-message stack',
    { timeout: 120_000 },
    async () => {
      const open = await create({ title: 'Open in the agent page' });
      const other = await create({ title: 'Not open anywhere' });
      const page = await openTickets('bea');
      await row(page, 'Open in the agent page').click();
      await page.waitForURL(new RegExp(`/ticket/${open.id}$`));
      // The conversation screen (a chunk of its own) is up, with its list beside the pane.
      await page.getByPlaceholder(/Write a message/).waitFor();
      await page.getByTestId('ticket-row').first().waitFor();
      await page.bringToFront();
      expect(await page.evaluate(() => document.hasFocus())).toBe(true);
      // The list of the ticket's page loads once more (and on focus): news a load brings first is no event.
      await page.waitForLoadState('networkidle');
      await customerWrites(other.id);
      const stack = page.getByTestId('new-message-stack').first();
      await expect.poll(() => stack.textContent(), { timeout: 10_000 }).toBe('New messages (1)');
      await customerWrites(open.id);
      // Read on the server by the agent at once: the load call says no news for them.
      await expect
        .poll(async () => {
          const r = await apiJson(
            `${server.url}/api/ticket/load/me/0/ticket/0?field=ticket_number&fieldValue=${open.ticket_number}`,
            'GET',
            undefined,
            agentToken,
          );
          return r.data[0]?.newMessage;
        })
        .toBe(false);
      await expect.poll(() => stack.textContent()).toBe('New messages (1)');
      const r = await apiJson(
        `${server.url}/api/ticket/load/me/0/ticket/0?field=ticket_number&fieldValue=${other.ticket_number}`,
        'GET',
        undefined,
        agentToken,
      );
      expect(r.data[0].newMessage).toBe(true);
      await stack.click();
      await page.waitForURL(new RegExp(`/ticket/${other.id}$`));
      // Opening it read it: the stack keeps the rest (here none) across the screens.
      await expect.poll(() => page.getByTestId('new-message-stack').count()).toBe(0);
    },
  );

  it('TICKET-42 the new-message stack holds at most 40 tickets', async () => {
    const made: number[] = [];
    for (let i = 0; i < 42; i++) made.push((await create({ title: `Stack ticket ${i}` })).id);
    const page = await openTickets('bea');
    // The list holds them all (30, then Show More), so each update is known news.
    await page.getByRole('button', { name: 'Show More' }).click();
    await expect.poll(() => page.getByTestId('ticket-row').count()).toBeGreaterThanOrEqual(42);
    for (const id of made) await customerWrites(id);
    const stack = page.getByTestId('new-message-stack');
    await expect.poll(() => stack.textContent(), { timeout: 20_000 }).toBe('New messages (40)');
    // The page has had all 42 updates (each one would put its ticket on the stack) and drawn what they did.
    const updated = () =>
      new Set(
        received
          .get(page)!
          .filter((e) => e.name === 'updateTicket')
          .map((e) => e.data as { id: number; severity: string })
          .filter((t) => made.includes(t.id) && t.severity === 'L')
          .map((t) => t.id),
      ).size;
    await expect.poll(updated, { timeout: 20_000 }).toBe(42);
    await painted(page);
    expect(await stack.textContent()).toBe('New messages (40)');
  });

  it('TICKET-57 the highlight reads Replied when an agent has answered, New message otherwise', async () => {
    const replied = await create({ title: 'Customer wrote after our answer' });
    const fresh = await create({ title: 'Customer waits for us' });
    const now = Date.now();
    sqlite.prepare('update tickets set last_message_at = ?, has_responded = 1 where id = ?').run(now, replied.id);
    sqlite.prepare('update tickets set last_message_at = ?, has_responded = 0 where id = ?').run(now, fresh.id);
    const page = await openTickets('bea', 'dark');
    const a = row(page, 'Customer wrote after our answer');
    const b = row(page, 'Customer waits for us');
    await a.waitFor();
    expect(await a.getAttribute('data-new')).not.toBeNull();
    expect(await a.textContent()).toContain('Replied');
    expect(await a.textContent()).not.toContain('New message');
    expect(await b.textContent()).toContain('New message');
    expect(await b.textContent()).not.toContain('Replied');
    await screenshot(page, 'tickets-replied-highlight-dark');
  });
});
