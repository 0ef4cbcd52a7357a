import { CALL_STRINGS } from '@parley/contracts';
import { speechWav } from '@parley/contracts/fixtures';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  tokenOf,
} from './support.js';

const WAIT = { timeout: 15_000 };
const shout = speechWav([
  { gain: 0.8, bursts: 5 },
  { gain: 0.8, bursts: 5 },
  { gain: 0.8, bursts: 5 },
]);

/**
 * CALL-29 .. CALL-49, REC-01 .. REC-12 in Chromium: calls reported by a softphone (through the API) are
 * listed at /call with their filters and detail pane; supervisors and admins filter and play recordings at
 * /recording; /upload reads an audio file and draws its analysis.
 */
describe('calls, recordings and the voice upload in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let inboundId = 0;
  let outboundId = 0;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
    const amy = await tokenOf(server.url, 'amy');
    const form = new FormData();
    form.append('attachment[]', new Blob([new Uint8Array(shout)], { type: 'audio/wav' }), 'call.wav');
    const up = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${amy}` },
      body: form,
    });
    const recording = ((await up.json()) as { file: string[] }).file[0]!;
    const call = (path: string, body: unknown) => apiJson(`${server.url}${path}`, 'POST', body, amy);
    inboundId = (
      await call('/api/call/start', { call_id: 'in-1', direction: 'inbound', number: '+60123456789', did: 'D-1' })
    ).data.ticket_id;
    await call('/api/call/end', {
      call_id: 'in-1',
      duration: 125,
      recording,
      transcript: [
        { source: 'customer', transcription: 'My television will not turn on.', emotion: 'angry' },
        {
          source: 'agent',
          transcription: 'Let us try a reset together.',
          translated_transcription: 'Mari cuba set semula.',
        },
      ],
    });
    outboundId = (
      await call('/api/call/start', { call_id: 'out-1', direction: 'outbound', number: '+60300000000', did: 'D-X' })
    ).data.ticket_id;
    await call('/api/call/end', { call_id: 'out-1', duration: 40 });
    // 30 more recorded calls: the recordings list pages (REC-12).
    for (let i = 0; i < 30; i++) {
      await call('/api/call/start', { call_id: `more-${i}`, direction: 'inbound', number: `+6011000${i}` });
      await call('/api/call/end', { call_id: `more-${i}`, duration: i, recording });
    }
    await apiJson(`${server.url}/api/call/did`, 'POST', { did: 'D-1', description: 'Acme TV hotline' }, admin);
  }, 180_000);
  afterAll(async () => {
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

  it('CALL-29 CALL-30 CALL-32 CALL-35 CALL-36 the call list, its filters and the detail pane', async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/call`);
    await page.getByRole('heading', { name: 'Calls', exact: true }).waitFor();
    await page.getByTestId('calls-count').filter({ hasText: '32 calls' }).waitFor(WAIT);
    // 30 a page, and a second page.
    expect(await page.getByTestId('call-row').count()).toBe(30);
    await page.getByRole('navigation', { name: 'Pagination' }).getByRole('button', { name: 'Page 2' }).click();
    await page
      .getByTestId('call-row')
      .nth(2)
      .waitFor({ state: 'detached', ...WAIT });
    expect(await page.getByTestId('call-row').count()).toBe(2);

    // Filters: number and direction.
    await page.getByLabel('Number').fill('0000000');
    await page.getByTestId('calls-filter').click();
    await page.getByTestId('calls-count').filter({ hasText: '1 call' }).waitFor(WAIT);
    await page.getByTestId('call-row').filter({ hasText: '+60300000000' }).click();
    const detail = page.getByTestId('call-detail');
    await detail.getByText('Outbound').waitFor(WAIT);
    await page.waitForURL(`**/call/${outboundId}`);
    // CALL-36: an undescribed DID is the spec's alert.
    await detail.getByTestId('imc-failed').filter({ hasText: CALL_STRINGS.imcFailed }).waitFor(WAIT);
    await detail.getByText('This call has no recording.').waitFor();
    await detail.getByText('No transcript for this call.').waitFor();

    // The inbound call opened by its address: facts, DID description, recording player and transcript.
    await page.goto(`${server.url}/call/${inboundId}`);
    const d = page.getByTestId('call-detail');
    await d.getByText('D-1 (Acme TV hotline)').waitFor(WAIT);
    await d.getByText('2:05').waitFor();
    expect(await d.getByTestId('call-recording').getAttribute('src')).toBe(`/api/recordings/${inboundId}/audio`);
    const entries = d.getByTestId('transcript-entry');
    expect(await entries.count()).toBe(2);
    expect(await entries.nth(0).textContent()).toContain('My television will not turn on.');
    expect(await entries.nth(1).textContent()).toContain('Mari cuba set semula.');
    expect(await d.getByTestId('imc-failed').count()).toBe(0);
    await page.getByLabel('Direction').first().click();
    await page.getByRole('option', { name: 'Inbound' }).click();
    await page.getByTestId('calls-filter').click();
    await page.getByTestId('calls-count').filter({ hasText: '31 calls' }).waitFor(WAIT);
    await screenshot(page, 'calls-1440-light');
  });

  it('REC-01 REC-02 REC-03 REC-04 REC-05 REC-12 recordings: the filter panel, Loading, Show More...', async () => {
    const page = await open('light');
    await signInAs(page, server.url, 'ann');
    // Hold the filtered request, to see the button while it is busy.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route('**/api/recordings?*emotionFilter=*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${server.url}/recording`);
    await page.getByRole('heading', { name: 'Recordings', exact: true }).waitFor();
    const panel = page.getByTestId('rec-filters');
    for (const e of ['angry', 'happy', 'calm', 'sad', 'fearful', 'disgust', 'surprised'])
      await panel.getByText(e, { exact: true }).waitFor();
    await panel.getByLabel('From').waitFor();
    await panel.getByLabel('Department').waitFor();
    await page.getByTestId('recording').nth(29).waitFor(WAIT);
    expect(await page.getByTestId('recording').count()).toBe(30);
    await page.getByTestId('rec-more').filter({ hasText: 'Show More...' }).click();
    await page.getByTestId('recording').nth(30).waitFor(WAIT);
    await page.getByTestId('rec-more').waitFor({ state: 'detached', ...WAIT });
    expect(await page.getByTestId('recording').count()).toBe(31);

    await panel.getByText('calm', { exact: true }).click();
    await page.getByTestId('rec-filter').click();
    await page.getByTestId('rec-filter').filter({ hasText: 'Loading' }).waitFor(WAIT);
    release();
    await page.getByTestId('rec-filter').filter({ hasText: 'Filter' }).waitFor(WAIT);
    await page.getByTestId('rec-empty').filter({ hasText: 'No recordings match these filters.' }).waitFor(WAIT);
    await panel.getByText('calm', { exact: true }).click();
    await panel.getByText('angry', { exact: true }).click();
    await page.getByTestId('rec-filter').click();
    await page.getByTestId('recording').nth(29).waitFor(WAIT);
    await screenshot(page, 'recordings-1440-light');

    // REC-01: an agent is told it is for supervisors and admins.
    const agent = await open('light');
    await signInAs(agent, server.url, 'amy');
    await agent.goto(`${server.url}/recording`);
    await agent.getByText(CALL_STRINGS.recordingsNotAllowed).waitFor(WAIT);
    expect(await agent.getByTestId('recording').count()).toBe(0);
  });

  it('CALL-47 CALL-48 CALL-49 the Upload page reads an audio file and draws its analysis', async () => {
    const page = await open('dark');
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/upload`);
    await page.getByRole('heading', { name: 'Upload', exact: true }).waitFor();
    const input = page.locator('input[type="file"]');
    expect(await input.getAttribute('accept')).toBe('audio/*');
    await input.setInputFiles({ name: 'call.wav', mimeType: 'audio/wav', buffer: shout });
    const raw = page.getByTestId('voice-raw');
    await raw.waitFor(WAIT);
    expect(JSON.parse((await raw.textContent()) ?? '')).toMatchObject({ percentage: { angry: 100 } });
    await page.getByTestId('voice-bar').locator('.recharts-bar-rectangle').first().waitFor(WAIT);
    await page.getByTestId('voice-pie').locator('.recharts-pie-sector').first().waitFor(WAIT);
    // CALL-49: the value axis runs from -50 to 200.
    const axis = page.getByTestId('voice-bar');
    await axis.getByText('200', { exact: true }).waitFor(WAIT);
    await axis.getByText('-50', { exact: true }).waitFor(WAIT);
    await screenshot(page, 'upload-1440-dark');
  });

  for (const scheme of ['light', 'dark'] as const)
    it(`CALL-29 REC-02 CALL-47 the screens at 390x844 and 1440 (${scheme})`, async () => {
      const page = await open(scheme, true);
      await signInAs(page, server.url, 'ann');
      await page.goto(`${server.url}/call/${inboundId}`);
      await page.getByTestId('call-detail').getByText('D-1 (Acme TV hotline)').waitFor(WAIT);
      await screenshot(page, `calls-390-${scheme}`);
      await page.goto(`${server.url}/recording`);
      await page.getByTestId('recording').nth(29).waitFor(WAIT);
      await screenshot(page, `recordings-390-${scheme}`);
      const wide = await open(scheme);
      await signInAs(wide, server.url, 'ann');
      await wide.goto(`${server.url}/call/${inboundId}`);
      await wide.getByTestId('call-detail').getByText('D-1 (Acme TV hotline)').waitFor(WAIT);
      await screenshot(wide, `calls-1440-${scheme}-detail`);
      await wide.goto(`${server.url}/recording`);
      await wide.getByTestId('recording').nth(29).waitFor(WAIT);
      await screenshot(wide, `recordings-1440-${scheme}`);
      await wide.goto(`${server.url}/upload`);
      await wide.getByRole('heading', { name: 'Upload', exact: true }).waitFor();
      await wide
        .locator('input[type="file"]')
        .setInputFiles({ name: 'call.wav', mimeType: 'audio/wav', buffer: shout });
      await wide.getByTestId('voice-pie').locator('.recharts-pie-sector').first().waitFor(WAIT);
      await screenshot(wide, `upload-1440-${scheme}`);
      await page.goto(`${server.url}/upload`);
      await page
        .locator('input[type="file"]')
        .setInputFiles({ name: 'call.wav', mimeType: 'audio/wav', buffer: shout });
      await page.getByTestId('voice-pie').locator('.recharts-pie-sector').first().waitFor(WAIT);
      await screenshot(page, `upload-390-${scheme}`);
    }, 240_000);
});
