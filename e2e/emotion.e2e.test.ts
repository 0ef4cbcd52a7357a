import { speechWav } from '@parley/contracts/fixtures';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  newContext,
  type RunningServer,
  screenshot,
  signInAs,
  startLiveChatWorkspace,
  visitorChatTaken,
  waitConnected,
} from './support.js';

const WAIT = { timeout: 15_000 };

/**
 * RT-24, RT-25 (text), AI-02, AI-13, AI-14 in Chromium: a customer writes through the real visitor socket of
 * a live chat; the agent's open conversation shows each message's emotion and what it is about as they are
 * read (`textEmotion`, `newContext`), and the header the customer's emotion so far (`newEmotion`). A reload
 * shows the same from history.
 */
describe('emotion and context of customer messages in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let amyToken = '';
  let liveToken = '';
  const contexts: BrowserContext[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    ({ server, browser, amyToken, liveToken } = await startLiveChatWorkspace());
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
  });

  async function open(scheme: 'light' | 'dark'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`[agent] ${e.message}`));
    return page;
  }

  const messageWith = (page: Page, text: string) => page.getByTestId('message').filter({ hasText: text });

  for (const scheme of ['light', 'dark'] as const)
    it(`RT-24 RT-25 AI-02 AI-13 AI-14 each customer message shows its emotion and context live; the header the ticket's (${scheme})`, async () => {
      const page = await open(scheme);
      await signInAs(page, server.url, 'amy');
      const c = await visitorChatTaken(server.url, {
        liveToken,
        agentToken: amyToken,
        name: scheme === 'light' ? 'Vera' : 'Walt',
        sockets,
      });
      await page.goto(`${server.url}/ticket/${c.ticketId}`);
      await page.getByTestId('conversation-pane').waitFor();
      await waitConnected(page);

      await c.says('This is the third time my parcel is late. I am really frustrated!');
      const late = messageWith(page, 'third time');
      await late.getByTestId('message-emotion').filter({ hasText: 'frustration' }).waitFor(WAIT);
      await late.getByTestId('message-context').filter({ hasText: 'Delivery' }).waitFor(WAIT);
      const header = page.getByTestId('ticket-header');
      await header.getByTestId('ticket-emotion').filter({ hasText: 'frustration' }).waitFor(WAIT);

      // An agent's own message carries no reading.
      await page.getByPlaceholder(/Write a message/).fill('Sorry about that, checking now');
      await page.keyboard.press('Enter');
      const mine = messageWith(page, 'Sorry about that');
      await mine.waitFor(WAIT);

      await c.says('Thank you so much, it works now. Can I still get a refund?');
      const thanks = messageWith(page, 'Thank you so much');
      await thanks.getByTestId('message-context').filter({ hasText: 'Refund' }).waitFor(WAIT);
      expect(await thanks.getByTestId('message-emotion').textContent()).toMatch(/gratitude|satisfaction|enquiry/);
      expect(await mine.getByTestId('message-reading').count()).toBe(0);
      // The greeting read as neutral: no badge (only what an agent acts on is shown).
      expect(await messageWith(page, `Hello, I am`).getByTestId('message-reading').count()).toBe(0);
      // The ticket's counts add up: still mostly frustration (2) over one each of the rest.
      expect(await header.getByTestId('ticket-emotion').textContent()).toBe('frustration');
      await screenshot(page, `emotion-live-${scheme}`);

      // From history after a reload: the same.
      await page.reload();
      await messageWith(page, 'third time')
        .getByTestId('message-context')
        .filter({ hasText: 'Delivery' })
        .waitFor(WAIT);
      await page
        .getByTestId('ticket-header')
        .getByTestId('ticket-emotion')
        .filter({ hasText: 'frustration' })
        .waitFor(WAIT);
    });

  it('RT-25 a call recording an agent attaches is heard: the voice emotion shows on it live', async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'amy');
    const c = await visitorChatTaken(server.url, { liveToken, agentToken: amyToken, name: 'Xena', sockets });
    await page.goto(`${server.url}/ticket/${c.ticketId}`);
    await page.getByTestId('conversation-pane').waitFor();
    await waitConnected(page);
    // Three loud, fast seconds (speech-like bursts of a tone): angry by the voice rules.
    const form = new FormData();
    form.append('ticket_id', String(c.ticketId));
    form.append(
      'attachment[]',
      new Blob([new Uint8Array(speechWav([1, 2, 3].map(() => ({ gain: 0.8, bursts: 5 }))))], { type: 'audio/wav' }),
      'call.wav',
    );
    const up = await (
      await fetch(`${server.url}/api/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${amyToken}` },
        body: form,
      })
    ).json();
    await apiJson(
      `${server.url}/api/ticket/message`,
      'POST',
      { ticket_id: c.ticketId, message: '', type: 'audio/wav', files: [up.file[0]] },
      amyToken,
    );
    const recording = page.getByTestId('message').filter({ hasText: 'call.wav' });
    await recording.getByTestId('message-emotion').filter({ hasText: 'angry' }).waitFor(WAIT);
    await screenshot(page, 'emotion-voice-light');
  });
});
