import { SHELL_STRINGS, WORKSPACE_STRINGS as W } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/** Workspace: two agents chat live at /chat, unread counts, members only, meeting counts. */
describe('Workspace chats in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await seedWorkspace(server.url, [
      { username: 'bob', name: 'Bo Agent' },
      { username: 'cyd', name: 'Cy Agent' },
    ]);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function agent(username: string, scheme: 'light' | 'dark'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[${username}] ${e.message}`));
    await signInAs(page, server.url, username);
    return page;
  }
  const token = async (username: string) =>
    (await apiJson(`${server.url}/api/auth2`, 'POST', { client: username, password: PASSWORD })).token as string;
  const bodies = (page: Page) =>
    page
      .getByTestId('message')
      .evaluateAll((els) => els.map((e) => e.querySelector('[data-testid="message-text"]')?.textContent ?? ''))
      // The chat's opening line is a system message (no message text).
      .then((all) => all.filter(Boolean));
  const send = async (page: Page, text: string) => {
    await page.getByTestId('composer-input').fill(text);
    await page.getByTestId('composer-input').press('Enter');
  };

  it('CHAT-01 CHAT-02 CHAT-03 CHAT-05 CHAT-07 CHAT-08 CHAT-09 CHAT-10 SHELL-24 SHELL-25 two agents chat live; unread clears on reading; meetings; members only', async () => {
    const ann = await agent('ann', 'light');
    const bo = await agent('bob', 'dark');

    // CHAT-03: nothing selected.
    for (const page of [ann, bo]) {
      await page.goto(`${server.url}/chat`);
      await page.getByText(W.empty, { exact: true }).waitFor();
      await page.getByText(W.emptyBody, { exact: true }).waitFor();
      await page.getByRole('heading', { name: W.title, exact: true }).waitFor();
    }
    await screenshot(ann, 'chat-empty-light');
    await screenshot(bo, 'chat-empty-dark');

    // CHAT-07: Ann starts a 1:1 chat with Bo.
    await ann.getByRole('button', { name: W.newChat }).click();
    await ann.getByRole('dialog', { name: W.newChat }).waitFor();
    await ann.getByTestId('chat-members').click();
    await ann.getByRole('option', { name: 'Bo Agent (bob)' }).click();
    await ann.getByRole('button', { name: W.create, exact: true }).click();
    await ann.waitForURL(/\/chat\/\d+$/);
    const chatId = Number(/\/chat\/(\d+)$/.exec(ann.url())![1]);
    await ann.getByTestId('conversation-pane').waitFor();
    await ann.getByTestId('chat-title').filter({ hasText: 'Bo Agent' }).waitFor();

    // Bo's list learns of the chat live, without a reload.
    const boItem = bo.getByTestId(`chat-item-${chatId}`);
    await boItem.filter({ hasText: 'Ann Admin' }).waitFor();

    // Ann writes; Bo's list shows the unread count and the last message live (CHAT-05).
    await send(ann, 'Hello Bo, can you take the Acme escalation?');
    await boItem.getByTestId('chat-unread').filter({ hasText: '1' }).waitFor();
    await boItem.getByText('Hello Bo, can you take', { exact: false }).waitFor();

    // Bo opens it: the message is there and the unread count is gone.
    await boItem.click();
    await bo.getByTestId('conversation-pane').waitFor();
    // SHELL-24, SHELL-25: the conversation opens beside the list, which stays.
    expect(await boItem.isVisible()).toBe(true);
    await expect.poll(() => bodies(bo)).toContain('Hello Bo, can you take the Acme escalation?');
    await boItem.getByTestId('chat-unread').waitFor({ state: 'detached' });

    // Bo answers; Ann sees it live, in order.
    await send(bo, 'Sure, on it.');
    await expect.poll(() => bodies(ann)).toEqual(['Hello Bo, can you take the Acme escalation?', 'Sure, on it.']);
    // Ann has the chat open: her list shows no unread for it.
    await expect.poll(() => ann.getByTestId(`chat-item-${chatId}`).getByTestId('chat-unread').count()).toBe(0);

    // CHAT-08, CHAT-09, CHAT-10: Ann joins the meeting; Bo sees the count, Ann the meeting panel.
    await ann.getByRole('button', { name: W.joinMeeting }).click();
    await ann.getByTestId('meeting-panel').waitFor();
    await bo
      .getByTestId('meeting-count')
      .filter({ hasText: W.inMeeting(1) })
      .waitFor();
    await bo.getByRole('button', { name: W.joinMeeting }).click();
    await ann
      .getByTestId('meeting-count')
      .filter({ hasText: W.inMeeting(2) })
      .waitFor();
    await screenshot(ann, 'chat-open-light');
    await screenshot(bo, 'chat-open-dark');
    await bo.getByRole('button', { name: W.leaveMeeting }).click();
    await ann
      .getByTestId('meeting-count')
      .filter({ hasText: W.inMeeting(1) })
      .waitFor();

    // Only members read it: Cy gets 403 from the API, and the screen sends Cy back with the toast.
    const cyToken = await token('cyd');
    const res = await fetch(`${server.url}/ticket/data/${chatId}/0`, {
      headers: { authorization: `Bearer ${cyToken}` },
    });
    expect(res.status).toBe(403);
    const cy = await agent('cyd', 'light');
    await cy.goto(`${server.url}/chat/${chatId}`);
    await cy.getByText(W.cannotRead).waitFor();
    await cy.waitForURL(/\/chat$/);
    await cy.getByText(W.empty, { exact: true }).waitFor();
    expect(await cy.getByTestId(`chat-item-${chatId}`).count()).toBe(0);
    expect(await bodies(cy)).toEqual([]);
  });
  it('CHAT-05 CHAT-07 SHELL-55 SHELL-57 a group with a title; the Workspace tab badge on a narrow screen; a removed member gets the removal modal', async () => {
    const ann = await agent('ann', 'light');
    // Cy on a phone-sized screen: the bottom tabs show.
    const ctx = await browser.newContext({ viewport: { width: 390, height: 800 }, colorScheme: 'dark' });
    contexts.push(ctx);
    const cy = await ctx.newPage();
    await signInAs(cy, server.url, 'cyd').catch(async () => {
      // The narrow shell may hide the welcome until the drawer closes; the socket is what matters.
      await cy.locator('[data-testid="tab-chat"]').waitFor();
    });
    const badge = cy.getByTestId('tab-chat').locator('.mantine-Indicator-indicator');
    expect(await badge.count()).toBe(0);

    await ann.goto(`${server.url}/chat`);
    await ann.getByRole('button', { name: W.newChat }).click();
    await ann.getByTestId('chat-members').click();
    await ann.getByRole('option', { name: 'Bo Agent (bob)' }).click();
    await ann.getByRole('option', { name: 'Cy Agent (cyd)' }).click();
    await ann.keyboard.press('Escape');
    await ann.getByLabel(W.chatTitle).fill('Night shift');
    await ann.getByRole('button', { name: W.create, exact: true }).click();
    await ann.waitForURL(/\/chat\/\d+$/);
    const groupId = Number(/\/chat\/(\d+)$/.exec(ann.url())![1]);
    await ann.getByTestId('chat-title').filter({ hasText: 'Night shift' }).waitFor();
    await send(ann, 'Who covers tonight?');

    // CHAT-05: Cy's Workspace tab shows the badge; opening the chat clears it.
    await badge.waitFor();
    await cy.getByTestId('tab-chat').click();
    await cy.getByTestId(`chat-item-${groupId}`).click();
    await expect.poll(() => bodies(cy)).toContain('Who covers tonight?');
    await badge.waitFor({ state: 'detached' });
    await screenshot(cy, 'chat-narrow-dark');

    // CHAT-07 SHELL-55 SHELL-57: Ann removes Cy from the group; Cy, who has it open, gets the removal modal
    // and is sent back to the list; the modal's Close link goes to /.
    await ann.getByRole('button', { name: W.members, exact: true }).click();
    await ann.getByRole('button', { name: 'Remove Cy Agent' }).click();
    await ann.getByRole('button', { name: 'Save' }).click();
    await ann.getByText('Ann Admin removed cyd.', { exact: false }).waitFor();
    const removal = cy.getByRole('dialog', { name: SHELL_STRINGS.removedTitle });
    await removal.getByText(SHELL_STRINGS.removedBody).waitFor();
    await cy.waitForURL(/\/chat$/);
    await expect.poll(() => cy.getByTestId(`chat-item-${groupId}`).count()).toBe(0);
    expect(await cy.getByText(W.cannotRead).count()).toBe(0);
    await removal.getByRole('link', { name: 'Close' }).click();
    await cy.waitForURL((u) => new URL(u).pathname === '/');
    await removal.waitFor({ state: 'detached' });
  });
});
