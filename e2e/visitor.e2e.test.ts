import type { Browser, BrowserContext, Page } from 'playwright-core';
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

/**
 * In Chromium, the React visitor pages at the spec's routes (`/register/livechat/:token`,
 * `/start/livechat/:token`, `/end/livechat`), signed out. The widget's light page has its
 * own tests in livechat.e2e.test.ts. Agents accept and end through the API: the visitor's side is what
 * these tests look at.
 */
describe('the visitor live-chat pages in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';
  let amyToken = '';
  let liveToken = '';
  const contexts: BrowserContext[] = [];

  const login = async (username: string) =>
    (await apiJson(`${server.url}/api/auth2`, 'POST', { client: username, password: PASSWORD })).token as string;
  const setStatus = (token: string, status: string, reason = '') =>
    apiJson(`${server.url}/api/online_status/update`, 'POST', { status, reason }, token);

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    adminToken = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    amyToken = await login('amy');
    liveToken = await liveChatToken(server.url, adminToken);
    // Nobody is Online until the second test: the link answers noAgent.
    await setStatus(adminToken, 'AWAY', 'Not here');
    await setStatus(amyToken, 'AWAY', 'Not here');
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  /** A fresh browser (no csrf stored) on a visitor page; `warnings` collects console warnings. */
  async function visitor(): Promise<{ page: Page; warnings: string[] }> {
    const ctx = await newContext(browser);
    contexts.push(ctx);
    const page = await ctx.newPage();
    const warnings: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'warning') warnings.push(m.text());
    });
    page.on('pageerror', (e) => console.error(`[visitor] ${e.message}`));
    return { page, warnings };
  }
  const link = (query = '') => `${server.url}/register/livechat/${liveToken}${query}`;
  const path = (page: Page) => new URL(page.url()).pathname;
  /** The next register call answers a failure (VISITOR-34). */
  const failRegisterOnce = (page: Page) =>
    page.route(
      '**/api/livechat/register*',
      (route) =>
        route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ result: 'failed', code: 'CONFLICT', description: 'Refused for this test.' }),
        }),
      { times: 1 },
    );
  /** The admin's view of the account's tickets of a list type. */
  async function tickets(type: 'ticket' | 'livechat') {
    const r = await apiJson(`${server.url}/ticket/load/x/all/${type}/0`, 'GET', undefined, adminToken);
    return r.data as { id: number; title: string; channel: string; name: string; other: Record<string, unknown> }[];
  }
  async function messages(ticketId: number): Promise<string[]> {
    const r = await apiJson(`${server.url}/api/ticket/data3/${ticketId}/0`, 'GET', undefined, adminToken);
    return (r.data as { message: string }[]).map((m) => m.message);
  }
  const accept = async () =>
    (await apiJson(`${server.url}/api/livechat/accept`, 'POST', { id: null }, amyToken)).ticket_id as number;
  const end = (ticketId: number) => apiJson(`${server.url}/api/livechat/end`, 'POST', { id: ticketId }, amyToken);

  it('VISITOR-06 VISITOR-07 VISITOR-08 VISITOR-17 VISITOR-18 VISITOR-31 VISITOR-34 nobody Online: "Please wait...", the offline message whose Submit leaves a message (a failed register only logged); then "Live Chat Ended" without a rating form', async () => {
    const { page, warnings } = await visitor();
    // VISITOR-06: the info call is held: the page says "Please wait...".
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route('**/api/livechat/info', async (route) => {
      await held;
      await route.continue();
    });
    // VISITOR-31: name, phone and email given: only the message field shows.
    await page.goto(link('?name=Nia&phone=555%200101&email=nia%40example.com'));
    await page.getByText('Please wait...').waitFor();
    release();

    // VISITOR-18: noAgent: the offline message and Submit; nothing to connect to.
    await page.getByText('No agent is available right now. Leave us a message and we will get back to you.').waitFor();
    expect(await page.getByText('Please wait...').count()).toBe(0);
    await page.unroute('**/api/livechat/info');
    expect(await page.getByRole('button', { name: 'Continue' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Connect' }).count()).toBe(0);
    for (const label of ['Name', 'Phone', 'Email']) expect(await page.getByLabel(label).count()).toBe(0);
    await page.getByLabel('Message').waitFor();
    // VISITOR-07: a signed-out page: no sign-in form anywhere.
    expect(await page.getByLabel('Username', { exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Submit' }).click();
    expect(await page.getByText('This cannot be empty.').count()).toBe(1);
    await screenshot(page, 'visitor-offline-prefilled');

    // VISITOR-34: a register answer other than success is logged only: no message, the form stays.
    await page.getByLabel('Message').fill('Please call me after five');
    await failRegisterOnce(page);
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => warnings.filter((w) => w.startsWith('register')).length).toBe(1);
    expect(await page.getByText('Refused for this test.').count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByText('Thank you! Your message has been sent.').count()).toBe(0);
    expect(await page.getByText('No agent is available right now.', { exact: false }).count()).toBe(1);

    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Thank you! Your message has been sent.').waitFor();
    // A message, not a queued chat: a MANUAL ticket with all four values (three of them from the link).
    const left = (await tickets('ticket')).find((t) => t.title === 'Nia');
    expect(left).toMatchObject({ channel: 'MANUAL', name: 'Nia' });
    expect(await messages(left!.id)).toEqual(['Please call me after five']);
    const list = await apiJson(`${server.url}/api/livechat/list`, 'GET', undefined, adminToken);
    expect(list.data[0].livechats[0]).toMatchObject({ ticket_id: left!.id, state: 'offline' });
    expect(
      (await apiJson(`${server.url}/api/livechat/accept`, 'POST', { id: null }, adminToken).catch((e) => e)).message,
    ).toContain('409');

    // VISITOR-17: the link again: "closed": Live Chat Ended, and no rating form.
    await page.goto(link());
    await page.getByRole('heading', { name: 'Live Chat Ended' }).waitFor();
    await page.getByText('Thank you for contacting us!').waitFor();
    expect(await page.getByText('How was your chat?').count()).toBe(0);
    expect(await page.getByRole('radio').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Submit' }).count()).toBe(0);
    await screenshot(page, 'visitor-closed');

    // VISITOR-07, VISITOR-08: the running-chat route without a running chat goes back to the visitor page (not
    // to sign in); /end/livechat is the ended page with Close.
    await page.goto(`${server.url}/start/livechat/${liveToken}`);
    await page.waitForURL(/\/register\/livechat\//);
    await page.goto(`${server.url}/end/livechat`);
    await page.getByRole('heading', { name: 'Live Chat Ended' }).waitFor();
    await page.getByText('Thank you for contacting us!').waitFor();
    await page.getByRole('button', { name: 'Close' }).waitFor();
    expect(path(page)).toBe('/end/livechat');
    expect(await page.getByLabel('Username', { exact: true }).count()).toBe(0);
  });

  it('VISITOR-04 VISITOR-05 VISITOR-08 VISITOR-15 VISITOR-17 VISITOR-20 VISITOR-28 VISITOR-30 VISITOR-34 VISITOR-39 an agent Online: Continue, the form (no format check), Connect; accepted: /start/livechat/:token; ended: the rating form; 5 stars without a reason; /end/livechat', async () => {
    await setStatus(amyToken, 'ONLINE');
    // Amy signed in: her socket keeps her Online.
    const agentCtx = await newContext(browser);
    contexts.push(agentCtx);
    await signInUi(await agentCtx.newPage(), server.url, 'amy');
    const { page, warnings } = await visitor();

    // VISITOR-20: Continue, the form, Connect.
    await page.goto(link('?ic=IC-7'));
    await page.getByRole('heading', { name: 'Chat with us' }).waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    // VISITOR-28: name, phone, email and message (ic came with the link).
    for (const label of ['Name', 'Phone', 'Email', 'Message']) await page.getByLabel(label).waitFor();
    await page.getByRole('button', { name: 'Connect' }).click();
    expect(await page.getByText('This cannot be empty.').count()).toBe(4);
    // VISITOR-30: no format check on email or phone.
    await page.getByLabel('Name').fill('Vic');
    await page.getByLabel('Phone').fill('ask for Vic');
    await page.getByLabel('Email').fill('vic at home');
    await page.getByLabel('Message').fill('My parcel is late');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Your queue number is 1').waitFor();
    expect(await page.getByText('This cannot be empty.').count()).toBe(0);

    // VISITOR-34 again, on the register call after queueAccepted: logged, no message, the chat still opens.
    await failRegisterOnce(page);
    const ticketId = await accept();
    await page.getByText('An agent has accepted your chat.').waitFor();
    // VISITOR-04: the running chat.
    await page.waitForURL(new RegExp(`/start/livechat/${liveToken}$`));
    await page.getByTestId('visitor-message').filter({ hasText: 'My parcel is late' }).waitFor();
    expect(warnings.filter((w) => w.startsWith('register'))).toHaveLength(1);
    expect(await page.getByText('Refused for this test.').count()).toBe(0);
    const ticket = (await tickets('livechat')).find((t) => t.id === ticketId);
    expect(ticket).toMatchObject({ name: 'Vic', channel: 'LIVECHAT' });
    expect(ticket?.other).toMatchObject({ ic: 'IC-7' });
    await screenshot(page, 'visitor-chat');

    // VISITOR-15: the link again while the chat runs: straight to the running chat.
    await page.goto(link());
    await page.waitForURL(new RegExp(`/start/livechat/${liveToken}$`));
    await page.getByTestId('visitor-message').filter({ hasText: 'My parcel is late' }).waitFor();

    // VISITOR-17: ended: back to the visitor page, "Live Chat Ended" and the rating form.
    await end(ticketId);
    await page.waitForURL(new RegExp(`/register/livechat/${liveToken}$`));
    await page.getByRole('heading', { name: 'Live Chat Ended' }).waitFor();
    await page.getByText('Thank you for contacting us!').waitFor();
    await page.getByText('How was your chat?').waitFor();
    await screenshot(page, 'visitor-rating');
    // VISITOR-39: 5 stars need no reason.
    const five = await page.getByRole('radio', { name: '5', exact: true }).getAttribute('id');
    await page.locator(`label[for="${five}"]`).click();
    await page.getByRole('button', { name: 'Submit' }).click();
    // VISITOR-05, VISITOR-08: rated: /end/livechat, the ended page with Close.
    await page.waitForURL(`${server.url}/end/livechat`);
    await page.getByRole('heading', { name: 'Live Chat Ended' }).waitFor();
    await page.getByRole('button', { name: 'Close' }).waitFor();
    const list = await apiJson(`${server.url}/api/livechat/list`, 'GET', undefined, adminToken);
    const rated = (list.data as { livechats: { ticket_id: number; rating: number | null; reason: string }[] }[])
      .flatMap((g) => g.livechats)
      .find((c) => c.ticket_id === ticketId);
    expect(rated).toMatchObject({ rating: 5, reason: '' });
    await screenshot(page, 'visitor-end');
  }, 90_000);

  it('VISITOR-26 query parameters: name, phone and email prefill the form; with reason too it submits itself (ic sent along); with api=false the message is left at once', async () => {
    // Prefill only: the form holds the values, nothing is sent.
    const { page: p1 } = await visitor();
    await p1.goto(link('?name=Pat&phone=321&email=pat%40example.com'));
    await p1.getByRole('button', { name: 'Continue' }).click();
    expect(await p1.getByLabel('Name').inputValue()).toBe('Pat');
    expect(await p1.getByLabel('Phone').inputValue()).toBe('321');
    expect(await p1.getByLabel('Email').inputValue()).toBe('pat@example.com');
    expect(await p1.getByLabel('Message').inputValue()).toBe('');

    // All four with reason: the queue at once, no button pressed.
    const { page } = await visitor();
    await page.goto(link('?name=Quinn&phone=777&email=q%40example.com&reason=Where%20is%20my%20order%3F&ic=IC-9'));
    await page.getByText('Your queue number is 1').waitFor();
    const ticketId = await accept();
    await page.waitForURL(new RegExp(`/start/livechat/${liveToken}$`));
    const ticket = (await tickets('livechat')).find((t) => t.id === ticketId);
    expect(ticket).toMatchObject({ title: 'Quinn', name: 'Quinn' });
    expect(ticket?.other).toMatchObject({ ic: 'IC-9' });
    expect(await messages(ticketId)).toEqual(['Where is my order?']);
    await end(ticketId);

    // api=false: the offline variant, sent by itself.
    const { page: p3 } = await visitor();
    await p3.goto(link('?api=false&name=Rae&phone=888&email=rae%40example.com&reason=Call%20me%20back'));
    await p3.getByText('Thank you! Your message has been sent.').waitFor();
    const left = (await tickets('ticket')).find((t) => t.title === 'Rae');
    expect(left).toMatchObject({ channel: 'MANUAL', name: 'Rae' });
    expect(await messages(left!.id)).toEqual(['Call me back']);
  }, 90_000);
});
