import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modalSettled, newContext, type RunningServer, screenshot, startDemo, waitConnected } from './support.js';

/** In Chromium, the 60-message window, uploads, typing, replies and catching up after a drop. */
describe('the conversation pane: window, files, typing and catch-up', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';
  let agentToken = '';
  const contexts: BrowserContext[] = [];

  async function api(path: string, body: unknown) {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agentToken}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: { id: number } };
  }

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 3 }));
    const res = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'demo-agent1', password }),
    });
    agentToken = ((await res.json()) as { token: string }).token;
    // Ticket 1 gets 100 more messages, numbered, so paging can be checked by text.
    for (let i = 1; i <= 100; i++) await api('/api/ticket/message', { ticket_id: 1, message: `numbered ${i}` });
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function agent(
    username: string,
    scheme: 'light' | 'dark' = 'light',
  ): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
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
    await page.getByTestId('message-count').waitFor();
  }
  const numbers = async (page: Page) =>
    (await page.getByTestId('message-text').allTextContents())
      .map((t) => /^numbered (\d+)$/.exec(t)?.[1])
      .filter(Boolean)
      .map(Number);
  const scrollTop = (page: Page) =>
    page.getByTestId('conversation-scroll').evaluate((el) => {
      el.scrollTop = 0;
      el.dispatchEvent(new Event('scroll'));
    });

  it('MSG-38 MSG-39 MSG-40 MSG-41 30 at a time upward, never more than 60 kept, back to the latest', async () => {
    const { page } = await agent('demo-admin');
    await open(page, 1);
    await expect.poll(() => page.getByTestId('message').count()).toBe(30);
    expect((await numbers(page)).at(-1)).toBe(100);
    expect(await page.getByTestId('message-count').textContent()).toMatch(/^1\d\d messages$/);
    await scrollTop(page);
    await expect.poll(() => page.getByTestId('message').count()).toBe(60);
    expect((await numbers(page)).slice(0, 2)).toEqual([41, 42]);
    await scrollTop(page);
    // 30 older came in on top and the newest 30 left: still 60, numbers 11..70.
    await expect.poll(async () => (await numbers(page))[0]).toBe(11);
    expect(await page.getByTestId('message').count()).toBe(60);
    expect((await numbers(page)).at(-1)).toBe(70);
    // A message arriving now is counted, not shown out of place.
    await api('/api/ticket/message', { ticket_id: 1, message: 'numbered 101' });
    await page.getByRole('button', { name: 'Jump to the latest messages' }).click();
    await expect.poll(async () => (await numbers(page)).at(-1)).toBe(101);
    expect(await page.getByTestId('message').count()).toBe(30);
  });

  it('MSG-35 MSG-36 MSG-03 an image and a PDF upload and show as a thumbnail and a download link', async () => {
    const { page } = await agent('demo-admin', 'dark');
    await open(page, 2);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    await page.locator('input[type="file"]').setInputFiles([
      { name: 'photo.png', mimeType: 'image/png', buffer: png },
      { name: 'invoice.pdf', mimeType: 'application/pdf', buffer: pdf },
    ]);
    const image = page.getByTestId('message-image').last();
    await image.waitFor();
    await expect
      .poll(() => image.locator('img').evaluate((i) => (i as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    const file = page.getByTestId('message-file').filter({ hasText: 'invoice.pdf' });
    await file.waitFor();
    expect(await file.getByRole('link', { name: 'Download' }).getAttribute('href')).toMatch(/^\/files\//);
    await image.click();
    await page.getByRole('dialog', { name: 'Image' }).locator('img').waitFor();
    await modalSettled(page);
    await screenshot(page, 'conversation-image-viewer-dark');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Image' }).waitFor({ state: 'hidden' });
    await screenshot(page, 'conversation-files-dark');
  });

  it('RT-11 RT-39 MSG-05 MSG-49 typing shows on the other screen and clears; a reply carries its preview', async () => {
    const a = await agent('demo-admin');
    const b = await agent('demo-agent1');
    await open(a.page, 3);
    await open(b.page, 3);
    await b.page.getByTestId('composer-input').pressSequentially('hel');
    await expect.poll(() => a.page.getByTestId('typing').textContent()).toBe('Alex Agent is typing…');
    // Two seconds without a key: removeTyping.
    await expect.poll(() => a.page.getByTestId('typing').textContent(), { timeout: 6_000 }).toBe('');
    await b.page.getByTestId('composer-input').fill('');

    const last = a.page.getByTestId('message').last();
    const quoted = (await last.getByTestId('message-text').textContent()) ?? '';
    await last.getByRole('button', { name: 'Message actions' }).click();
    await a.page.getByRole('menuitem', { name: 'Reply' }).click();
    await a.page.getByTestId('composer-reply').waitFor();
    await a.page.getByTestId('composer-input').fill('answering that');
    await a.page.getByTestId('composer-input').press('Enter');
    const onB = b.page.getByTestId('message').filter({ hasText: 'answering that' });
    await expect.poll(() => onB.getByTestId('message-reply-preview').textContent()).toContain(quoted.slice(0, 20));

    // MSG-49 MSG-50: without a translation provider the message menu does not offer Translate.
    await onB.getByRole('button', { name: 'Message actions' }).click();
    await b.page.getByRole('menuitem', { name: 'Reply' }).waitFor();
    expect(await b.page.getByRole('menuitem', { name: 'Translate' }).count()).toBe(0);
  });

  it('RT-22 MSG-44 an agent whose connection dropped sees what was sent meanwhile, once', async () => {
    const a = await agent('demo-admin');
    const b = await agent('demo-agent1');
    await open(a.page, 3);
    await open(b.page, 3);
    await b.ctx.setOffline(true);
    await b.page.locator('[data-testid="user-menu"][data-connected="false"]').waitFor({ timeout: 15_000 });
    for (const t of ['while away 1', 'while away 2']) {
      await a.page.getByTestId('composer-input').fill(t);
      await a.page.getByTestId('composer-input').press('Enter');
    }
    await a.page.locator('[data-testid="message"][data-status="success"]', { hasText: 'while away 2' }).waitFor();
    await b.ctx.setOffline(false);
    await expect
      .poll(
        async () => (await b.page.getByTestId('message-text').allTextContents()).filter((t) => t.startsWith('while')),
        {
          timeout: 20_000,
        },
      )
      .toEqual(['while away 1', 'while away 2']);
  });
});
