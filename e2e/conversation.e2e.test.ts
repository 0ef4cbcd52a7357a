import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newContext, type RunningServer, screenshot, startDemo, waitConnected } from './support.js';

/** In Chromium, two agents in one conversation, offline sending, live deletes, reactions and notes. */
describe('the conversation pane in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 4 }));
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function token(username: string): Promise<string> {
    const res = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: username, password }),
    });
    return ((await res.json()) as { token: string }).token;
  }
  async function post(username: string, path: string, body: unknown) {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token(username)}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function agent(
    username: string,
    scheme: 'light' | 'dark' = 'light',
  ): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[${username}] ${e.message}`));
    await page.goto(server.url);
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('welcome').waitFor();
    await waitConnected(page);
    return { ctx, page };
  }
  async function open(page: Page, ticketId: number) {
    await page.goto(`${server.url}/ticket/${ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await page.getByTestId('message-count').waitFor();
  }
  /** The bodies of the conversation's messages, in order. */
  const bodies = async (page: Page) =>
    page
      .getByTestId('message')
      .evaluateAll((els) => els.map((e) => e.querySelector('[data-testid="message-text"]')?.textContent ?? ''));
  const send = async (page: Page, text: string) => {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-input').press('Enter');
  };

  it('MSG-09 MSG-10 MSG-11 RT-01 RT-22 offline: three messages wait, then both agents see them once, in order', async () => {
    const a = await agent('demo-admin');
    const b = await agent('demo-agent1');
    await open(a.page, 1);
    await open(b.page, 1);
    await a.ctx.setOffline(true);
    await a.page.locator('[data-testid="user-menu"][data-connected="false"]').waitFor({ timeout: 15_000 });
    for (const t of ['offline one', 'offline two', 'offline three']) await send(a.page, t);
    await expect.poll(() => a.page.getByTestId('message-sending').count()).toBe(3);
    await a.page.getByTestId('offline-queued').waitFor();
    // A reload while offline would lose nothing either: the queue is in local storage.
    const stored = await a.page.evaluate(() =>
      Object.keys(localStorage)
        .filter((k) => k.startsWith('parley.outbox.'))
        .map((k) => JSON.parse(localStorage.getItem(k) ?? '[]').length),
    );
    expect(stored).toEqual([3]);
    expect((await bodies(b.page)).filter((t) => t.startsWith('offline'))).toEqual([]);

    await a.ctx.setOffline(false);
    const expected = ['offline one', 'offline two', 'offline three'];
    for (const p of [a.page, b.page])
      await expect
        .poll(async () => (await bodies(p)).filter((t) => t.startsWith('offline')), { timeout: 20_000 })
        .toEqual(expected);
    // The last acks may still be on their way when the texts already match: every one is confirmed soon.
    await expect.poll(() => a.page.getByTestId('message-sending').count(), { timeout: 20_000 }).toBe(0);
    // Still once after a reload (the server stored each queue- id once).
    await b.page.reload();
    await b.page.getByTestId('message-count').waitFor();
    expect((await bodies(b.page)).filter((t) => t.startsWith('offline'))).toEqual(expected);
    await screenshot(a.page, 'conversation-offline-after-light');
  });

  it('MSG-32 MSG-33 RT-26 a deleted message disappears from both agents', async () => {
    const a = await agent('demo-admin');
    const b = await agent('demo-agent1');
    await open(a.page, 2);
    await open(b.page, 2);
    await send(a.page, 'to be deleted');
    const mine = a.page.getByTestId('message').filter({ hasText: 'to be deleted' });
    await a.page.locator('[data-testid="message"][data-status="success"]', { hasText: 'to be deleted' }).waitFor();
    await b.page.getByTestId('message').filter({ hasText: 'to be deleted' }).waitFor();
    await mine.getByRole('button', { name: 'Message actions' }).click();
    await a.page.getByRole('menuitem', { name: 'Delete' }).click();
    for (const p of [a.page, b.page])
      await expect.poll(() => p.getByTestId('message').filter({ hasText: 'to be deleted' }).count()).toBe(0);
  });

  it('MSG-06 MSG-16 MSG-17 MSG-55 RT-27 RT-29 a reaction and a note appear live on the other screen', async () => {
    const a = await agent('demo-admin');
    const b = await agent('demo-agent1');
    await open(a.page, 3);
    await open(b.page, 3);
    await send(a.page, 'react to me');
    const onB = b.page.getByTestId('message').filter({ hasText: 'react to me' });
    await onB.waitFor();
    // The message may still re-render as its sending settles (closing a just-opened picker): open until shown.
    const thumbs = b.page.getByRole('button', { name: ':thumbsup:' });
    await expect
      .poll(
        async () => {
          if (await thumbs.isVisible()) return true;
          await onB.getByRole('button', { name: 'React' }).click();
          return thumbs.isVisible();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toBe(true);
    await thumbs.click();
    const onA = a.page.getByTestId('message').filter({ hasText: 'react to me' });
    await expect.poll(() => onA.getByTestId('message-reaction').textContent()).toContain('👍 1');
    expect(await onA.getByTestId('message-reaction').getAttribute('title')).toBe('demo-agent1');

    await onA.getByRole('button', { name: 'Message actions' }).click();
    await a.page.getByRole('menuitem', { name: 'Add note' }).click();
    await onA.getByRole('textbox', { name: /Note for the team/ }).fill('Call them back tomorrow');
    await onA.getByRole('button', { name: 'Save note' }).click();
    await expect.poll(() => onB.getByTestId('message-note').textContent()).toContain('Call them back tomorrow');
    // Edit and delete, live too.
    await onA.getByRole('button', { name: 'Edit note' }).click();
    await onA.getByRole('textbox', { name: /Note for the team/ }).fill('Call them back on Friday');
    await onA.getByRole('button', { name: 'Save note' }).click();
    await expect.poll(() => onB.getByTestId('message-note').textContent()).toContain('Friday');
    await onA.getByRole('button', { name: 'Delete note' }).click();
    await expect.poll(() => onB.getByTestId('message-note').count()).toBe(0);

    // Pin: the pinned bar shows on both.
    await onA.getByRole('button', { name: 'Message actions' }).click();
    await a.page.getByRole('menuitem', { name: 'Pin' }).click();
    await expect.poll(() => b.page.getByTestId('pinned-bar').textContent()).toContain('react to me');
    await screenshot(b.page, 'conversation-live-light');
  });

  it('MSG-02 MSG-18 a text/html body with a script does not run (DOMPurify and the CSP), in light and dark', async () => {
    const r = await post('demo-agent1', '/api/ticket/message', {
      ticket_id: 4,
      type: 'text/html',
      message:
        '<p>Hello <b id="bold">there</b></p><script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">',
    });
    expect(r.status).toBe(200);
    for (const scheme of ['light', 'dark'] as const) {
      const a = await agent('demo-admin', scheme);
      await open(a.page, 4);
      const html = a.page.getByTestId('message-html').last();
      await html.locator('#bold').waitFor();
      expect(await html.locator('script').count()).toBe(0);
      expect(await html.locator('img').getAttribute('onerror')).toBeNull();
      // The image has finished (loaded or failed): an error handler left in it would have run by now.
      await expect.poll(() => html.locator('img').evaluate((i) => (i as HTMLImageElement).complete)).toBe(true);
      expect(await a.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      // MSG-18: the count entry and a DD/MM/YYYY day.
      expect(await a.page.getByTestId('message-count').textContent()).toMatch(/^\d+ messages$/);
      expect(await a.page.getByTestId('message-day').first().textContent()).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
      await screenshot(a.page, `conversation-${scheme}`);
    }
  });

  it('MSG-14 MSG-15 a refused message shows the failure modal; Retry sends the same queue- id', async () => {
    const a = await agent('demo-admin');
    await open(a.page, 4);
    await send(a.page, 'x'.repeat(20_001));
    const modal = a.page.getByRole('dialog', { name: 'Message not sent' });
    await modal.waitFor();
    expect(await modal.getByRole('alert').textContent()).toBe(
      'Opps, message failed to send. The error is The message is too long (at most 20000 characters).',
    );
    const id = await a.page.locator('[data-status="failed"]').getAttribute('data-id');
    expect(id).toMatch(/^queue-[A-Za-z0-9]{10}$/);
    await modal.getByRole('button', { name: 'Retry' }).click();
    await modal.waitFor();
    expect(await a.page.locator('[data-status="failed"]').getAttribute('data-id')).toBe(id);
    await modal.getByRole('button', { name: 'OK' }).click();
    await a.page.getByRole('button', { name: 'Discard' }).click();
    expect(await a.page.locator('[data-status="failed"]').count()).toBe(0);
  });

  it('MSG-48 SHELL-27 a ticket that does not exist, or a broken address: the crash text, where it was opened', async () => {
    const a = await agent('demo-admin');
    await a.page.goto(`${server.url}/ticket/99999`);
    await a.page.getByTestId('conversation-crashed').getByText('Ops! The chat has crashed unexpectedly.').waitFor();
    expect(new URL(a.page.url()).pathname).toBe('/ticket/99999');
    expect(await a.page.getByText('You cannot read this conversation.').count()).toBe(0);
    await a.page.goto(`${server.url}/ticket/abc`);
    await a.page.getByText('Ops! The chat has crashed unexpectedly.').waitFor();
  });
});
