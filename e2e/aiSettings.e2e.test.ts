import { randomBytes } from 'node:crypto';
import { AI_SETTINGS_STRINGS as S } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiStandIn } from '../apps/server/src/testing/aiStandIns.js';
import {
  addAgent,
  animationsSettled,
  axe,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const KEY = `sk-e2e-${randomBytes(8).toString('hex')}`;

/**
 * Settings -> AI in Chromium: an admin points the account at a language model (an OpenAI-compatible stand-in
 * on loopback, allowed by AI_ALLOWED_HOSTS), tests it (a wrong key says so), saves it with a key the page never
 * shows again, and chooses the model as translator; an agent has no AI section.
 */
describe('AI settings in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let api: Awaited<ReturnType<typeof startOpenAiStandIn>>;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    api = await startOpenAiStandIn({ key: KEY });
    [server, browser] = await Promise.all([
      startServer({
        AI_ALLOWED_HOSTS: api.host,
        AI_TIMEOUT_MS: '2000',
        SECRETS_KEY: randomBytes(32).toString('base64'),
      }),
      launchBrowser(),
    ]);
    const admin = await seedWorkspace(server.url);
    await addAgent(server.url, admin, 'amy', 'Amy Agent');
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await api?.close();
  });

  async function open(user: string, scheme: 'light' | 'dark', width = 1440): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width, height: width < 500 ? 844 : 900 },
      colorScheme: scheme,
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    const page = await ctx.newPage();
    await signInAs(page, server.url, user);
    await page.goto(`${server.url}/settings/ai`);
    return page;
  }

  it('AI-01 an admin tests a language model (a wrong key is named), saves it with a write-only key, and the engine answers /api/wauchat', async () => {
    const page = await open('ann', 'light');
    await page.getByTestId('ai-settings').waitFor();
    await page.getByTestId('ai-engine').getByText('Language model').click();
    await page.getByTestId('ai-base-url').fill(api.baseUrl);
    await page.getByTestId('ai-model').fill('gpt-e2e');
    await page.getByTestId('ai-key').fill('sk-wrong');
    await page.getByTestId('ai-test').click();
    await page.getByTestId('ai-test-result').getByText(S.refused).waitFor();
    await page.getByTestId('ai-key').fill(KEY);
    await page.getByTestId('ai-test').click();
    await page
      .getByTestId('ai-test-result')
      .getByText(/The model gpt-e2e answered in \d+ ms\./)
      .waitFor();
    await page.getByTestId('ai-translator-openai').check();
    await page.getByTestId('ai-save').click();
    await page.getByText(S.apiKeySet(KEY.slice(-4))).waitFor();
    expect(await page.getByTestId('ai-key').inputValue()).toBe('');
    await page.reload();
    await page.getByText(S.apiKeySet(KEY.slice(-4))).waitFor();
    expect(await page.content()).not.toContain(KEY);
    // The page's own session: the model rewrites a draft, and translation is on for the account.
    const answer = await page.evaluate(() =>
      fetch('/api/wauchat?type=anchor&message=We%20are%20on%20it').then((r) => r.json()),
    );
    expect(answer).toEqual({
      result: 'success',
      data: { type: 'anchor', text: 'Suggested: We are on it', engine: 'openai', cues: [] },
    });
    const services = await page.evaluate(() => fetch('/api/services').then((r) => r.json()));
    expect(services.translate).toBe(true);
    await animationsSettled(page);
    await screenshot(page, 'ai-settings-1440-light');
    expect(await axe(page, '[data-testid="ai-settings"]')).toEqual([]);
  });

  it('AI-01 the section at 1440 dark and on a phone, light and dark (screenshots); an agent has none', async () => {
    for (const [scheme, width] of [
      ['dark', 1440],
      ['light', 390],
      ['dark', 390],
    ] as const) {
      const page = await open('ann', scheme, width);
      await page.getByTestId('ai-settings').waitFor();
      await page.getByTestId('ai-test').click();
      await page.getByTestId('ai-test-result').waitFor();
      await animationsSettled(page);
      await screenshot(page, `ai-settings-${width}-${scheme}`);
      expect(await axe(page, '[data-testid="ai-settings"]')).toEqual([]);
    }
    const agent = await open('amy', 'light');
    await agent.waitForURL(/\/settings\/security/);
    expect(new URL(agent.url()).pathname).toBe('/settings/security');
    expect(await agent.getByTestId('ai-settings').count()).toBe(0);
  });
});
