import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgent,
  apiJson,
  axe,
  launchBrowser,
  modalSettled,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/** The knowledge base: written and published at /kb, read signed out, inserted from a conversation's popup. */
describe('knowledge base in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin: string;
  let ticket: { id: number; ticket_number: number };
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url);
    await addAgent(server.url, admin, 'bea', 'Bea Agent');
    ticket = (
      await apiJson(`${server.url}/api/ticket/create`, 'POST', { title: 'Cannot sign in', name: 'Carla' }, admin)
    ).data;
  }, 180_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => console.error(e.message));
    return p;
  }

  it('KB SHELL-09 SHELL-10 an admin publishes an article at /kb; signed out, its public URL shows it with script inert', async () => {
    const p = await open();
    await p.setViewportSize({ width: 1440, height: 900 });
    let alerted = false;
    p.on('dialog', (d) => {
      alerted = true;
      void d.dismiss();
    });
    await signInAs(p, server.url, 'ann');
    await p.goto(`${server.url}/kb`);
    await p.getByTestId('kb-editor').waitFor();
    await p.getByRole('button', { name: 'New article' }).click();
    await p.getByLabel('Title').fill('Reset your password');
    await p.getByLabel('Slug (optional)').fill('reset-password');
    await p
      .getByRole('textbox', { name: 'Article (Markdown)' })
      .fill(
        '## Steps\n\n1. Open **Settings**\n2. Choose *Security*\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[Help](javascript:alert(3))',
      );
    await p.getByRole('button', { name: 'Add question' }).click();
    await p.getByLabel('Question 1').fill('How long is the link valid?');
    await p.getByLabel('Answer 1').fill('One **hour**.');
    await p.getByRole('tab', { name: 'Preview' }).click();
    await p.getByTestId('kb-preview').getByText('Settings').waitFor();
    await screenshot(p, 'kb-editor-1440-light');
    await p.getByRole('button', { name: 'Publish' }).click();
    await p.getByTestId('kb-public-link').waitFor();
    const href = (await p.getByTestId('kb-public-link').getAttribute('href')) ?? '';
    expect(href).toMatch(/^\/support\/kb\/en\/reset-password\?site=[A-Za-z0-9_-]+$/);
    expect(await axe(p, '[data-testid="kb-editor"]')).toEqual([]);
    // Signed in, the navigation's Knowledgebase reads the account's own published articles, no token needed.
    await p.getByRole('link', { name: 'Knowledgebase' }).first().click();
    await p.getByTestId('kb-reader').getByRole('link', { name: 'Reset your password' }).waitFor();

    for (const [scheme, width, height] of [
      ['light', 1440, 900],
      ['dark', 1440, 900],
      ['light', 390, 844],
      ['dark', 390, 844],
    ] as const) {
      const visitor = await open(scheme);
      visitor.on('dialog', (d) => {
        alerted = true;
        void d.dismiss();
      });
      await visitor.setViewportSize({ width, height });
      await visitor.goto(`${server.url}${href}`);
      await visitor.getByRole('heading', { name: 'Reset your password' }).waitFor();
      const article = visitor.getByTestId('kb-markdown').first();
      await article.getByText('<script>alert(1)</script>').waitFor();
      // Raw HTML is text: no script or image element came out of it, and the javascript: link is plain text.
      expect(await visitor.locator('[data-testid="kb-markdown"] script, [data-testid="kb-markdown"] img').count()).toBe(
        0,
      );
      expect(await visitor.locator('a[href^="javascript"]').count()).toBe(0);
      await article.getByText('Help', { exact: true }).waitFor();
      await visitor.getByRole('button', { name: 'How long is the link valid?' }).click();
      await visitor.getByText('hour', { exact: true }).waitFor();
      await expect.poll(() => new URL(visitor.url()).pathname).toMatch(/^\/support\/kb\/en\/reset-password\/\d+$/);
      expect(await axe(visitor)).toEqual([]);
      await screenshot(visitor, `kb-public-${width}-${scheme}`);
      if (width === 1440 && scheme === 'light') {
        // The collection lists it; the sitemap names it.
        await visitor.getByRole('link', { name: 'All articles' }).click();
        await visitor.getByRole('link', { name: 'Reset your password' }).waitFor();
        expect(await axe(visitor)).toEqual([]);
        await screenshot(visitor, 'kb-public-index-1440-light');
        const site = new URL(`${server.url}${href}`).searchParams.get('site');
        const map = await (await fetch(`${server.url}/support/sitemap.xml?site=${site}`)).text();
        expect(map).toContain('/support/kb/en/reset-password?site=');
      }
    }
    expect(alerted).toBe(false);

    // The editor on a phone, dark: the list above the form.
    const phone = await open('dark');
    await phone.setViewportSize({ width: 390, height: 844 });
    await signInAs(phone, server.url, 'ann');
    await phone.goto(`${server.url}/kb`);
    await phone.getByRole('button', { name: /Reset your password/ }).click();
    await phone.getByLabel('Title').waitFor();
    await expect.poll(() => phone.getByLabel('Title').inputValue()).toBe('Reset your password');
    expect(await axe(phone, '[data-testid="kb-editor"]')).toEqual([]);
    await screenshot(phone, 'kb-editor-390-dark');
  }, 240_000);

  it('KB SHELL-31 an agent finds the article from the conversation popup and inserts its text and link into the reply', async () => {
    for (const [scheme, width, height] of [
      ['light', 1440, 900],
      ['dark', 390, 844],
    ] as const) {
      const p = await open(scheme);
      await p.setViewportSize({ width, height });
      await signInAs(p, server.url, 'bea');
      await p.goto(`${server.url}/ticket/${ticket.id}`);
      await p.getByTestId('conversation-pane').waitFor();
      const input = p.getByTestId('composer-input');
      await input.fill('Hi Carla,');
      await p.getByRole('button', { name: 'Knowledge base' }).click();
      await p.getByTestId('kb-popup').waitFor();
      await p.getByRole('textbox', { name: 'Search published articles' }).fill('passw');
      await p.getByRole('textbox', { name: 'Search published articles' }).press('Enter');
      const hit = p.getByRole('listitem', { name: 'Reset your password' });
      await hit.waitFor();
      await modalSettled(p);
      expect(await axe(p, '[data-testid="kb-popup"]')).toEqual([]);
      await screenshot(p, `kb-popup-${width}-${scheme}`);
      await hit.getByRole('button', { name: 'Insert answer' }).click();
      await expect
        .poll(() => input.inputValue())
        .toContain('Hi Carla,\n\nSteps\n\n1. Open Settings\n2. Choose Security');
      await p.getByRole('button', { name: 'Knowledge base' }).click();
      await p.getByRole('textbox', { name: 'Search published articles' }).fill('reset');
      await p.getByRole('textbox', { name: 'Search published articles' }).press('Enter');
      await p
        .getByRole('listitem', { name: 'Reset your password' })
        .getByRole('button', { name: 'Insert link' })
        .click();
      await expect.poll(() => input.inputValue()).toMatch(/\/support\/kb\/en\/reset-password\?site=[A-Za-z0-9_-]+$/);
      if (width === 1440) {
        await input.press('Enter');
        await p.getByTestId('message-text').filter({ hasText: 'Choose Security' }).first().waitFor();
      }
    }
  }, 240_000);
});
