import { AI_SETTINGS_STRINGS as S, TRANSLATE_STRINGS as T } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLibreTranslateStandIn, startOpenAiStandIn } from '../../testing/aiStandIns.js';
import { httpTranslator } from '../messages/index.js';
import { alreadyIn, detectLanguage, skippingTranslator } from './language.js';
import {
  modelClient,
  modelUrlProblem,
  openaiProvider,
  openaiTranslator,
  retryAfterSeconds,
  rewriteDraft,
} from './openai.js';

const KEY = 'sk-test-secret-key-7f3a';

/** What a call threw (status, code, message), or null when it answered. */
async function failure(p: Promise<unknown>) {
  try {
    await p;
    return null;
  } catch (err) {
    const e = err as { status?: number; code?: string; message: string };
    return { status: e.status, code: e.code, message: e.message };
  }
}

describe('OpenAI-compatible provider against a loopback stand-in', () => {
  let api: Awaited<ReturnType<typeof startOpenAiStandIn>>;
  let client: ReturnType<typeof modelClient>;
  beforeAll(async () => {
    api = await startOpenAiStandIn({ key: KEY });
    client = modelClient({
      baseUrl: `${api.baseUrl}/`,
      model: 'gpt-test',
      apiKey: KEY,
      timeoutMs: 400,
      allowed: [{ host: '127.0.0.1', port: String(api.port) }],
    });
  });
  afterAll(() => api?.close());

  it('AI-01 chat completions: POST {base}/chat/completions with model, messages, temperature and the Bearer key; the answer is choices[0].message.content', async () => {
    api.got.length = 0;
    const text = await client.chat([{ role: 'user', content: 'Hello there' }], { temperature: 0.1 });
    expect(text).toBe('Suggested: Hello there');
    expect(api.got).toHaveLength(1);
    expect(api.got[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      authorization: `Bearer ${KEY}`,
      body: { model: 'gpt-test', temperature: 0.1, messages: [{ role: 'user', content: 'Hello there' }] },
    });
  });

  it('AI-01 embeddings: one vector per text, in order', async () => {
    expect(await client.embed(['abc', 'hello'])).toEqual([
      [3, 0.5, -0.25],
      [5, 0.5, -0.25],
    ]);
  });

  it('AI-06 AI-09 as a hints provider it names itself and answers confidence 1', async () => {
    const hint = await openaiProvider(client).hint({
      accountId: 1,
      text: 'Where is my parcel?',
      translation: '',
      channel: 'LIVECHAT',
      messageId: 1,
    });
    expect(hint).toEqual({
      recommendation: 'Suggested: Channel: LIVECHAT\nCustomer message:\nWhere is my parcel?',
      confidence: 1,
      engine: 'openai',
      cues: [],
    });
  });

  it('AI-04 a rewrite sends the draft apart from the instructions and answers the text only', async () => {
    api.got.length = 0;
    expect(await rewriteDraft(client, 'anchor', 'We will look into it')).toBe('Suggested: We will look into it');
    const sent = api.got[0]!.body.messages;
    expect(sent[0].role).toBe('system');
    expect(sent[0].content).toContain('sets clear expectations');
    expect(sent[1]).toEqual({ role: 'user', content: 'We will look into it' });
  });

  it('AI-01 a wrong key, a rate limit, a server error, garbage and a slow answer each give a clear message, never the key nor the text, within the timeout', async () => {
    const wrong = modelClient({
      baseUrl: api.baseUrl,
      model: 'm',
      apiKey: 'sk-wrong-key-9999',
      timeoutMs: 400,
      allowed: [{ host: '127.0.0.1', port: String(api.port) }],
    });
    type Fault = (typeof api.faults)[number];
    const cases: [Fault | null, typeof client, { status: number; message: string }][] = [
      [null, wrong, { status: 502, message: S.refused }],
      [{ status: 403 }, client, { status: 502, message: S.refused }],
      [{ status: 429, retryAfter: '7' }, client, { status: 429, message: S.rateLimited(7) }],
      [{ status: 429 }, client, { status: 429, message: 'The language model is rate limited: try again shortly.' }],
      [{ status: 500 }, client, { status: 502, message: 'The language model failed (500).' }],
      [{ garbage: true }, client, { status: 502, message: S.badAnswer }],
    ];
    for (const [fault, c, want] of cases) {
      if (fault) api.faults.push(fault);
      const f = await failure(c.chat([{ role: 'user', content: 'secret text' }]));
      expect(f, want.message).toMatchObject(want);
      expect(JSON.stringify(f)).not.toContain('secret text');
      expect(JSON.stringify(f)).not.toMatch(/sk-/);
    }
    api.faults.push({ slowMs: 3_000 });
    const started = Date.now();
    const slow = await failure(client.chat([{ role: 'user', content: 'secret text' }]));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(slow).toMatchObject({ status: 502, message: S.timedOut(0.4) });
    // Nothing answers at all (a closed port): a clear 502 too.
    const gone = modelClient({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      apiKey: KEY,
      timeoutMs: 400,
      allowed: [{ host: '127.0.0.1', port: '1' }],
    });
    const refused = await failure(gone.chat([{ role: 'user', content: 'x' }]));
    expect(refused?.status).toBe(502);
    expect(refused?.message).toMatch(/^The language model failed/);
  });

  it('AI-01 the base URL is http(s) at a public address, or a host the server allows', () => {
    const allowed = [{ host: '127.0.0.1', port: '11434' }];
    expect(modelUrlProblem('https://api.openai.com/v1', allowed)).toBeNull();
    expect(modelUrlProblem('http://127.0.0.1:11434/v1', allowed)).toBeNull();
    expect(modelUrlProblem('ftp://example.com/v1', allowed)).toBe(S.badUrl);
    expect(modelUrlProblem('not a url', allowed)).toBe(S.badUrl);
    expect(modelUrlProblem('https://user:pw@example.com/v1', allowed)).toBe(S.badUrl);
    expect(modelUrlProblem('http://api.example.com/v1', allowed)).toBe(S.httpsOnly);
    expect(modelUrlProblem('https://127.0.0.1:8080/v1', allowed)).toBe(S.privateAddress);
    expect(modelUrlProblem('https://10.1.2.3/v1', allowed)).toBe(S.privateAddress);
    expect(modelUrlProblem('https://localhost/v1', allowed)).toBe(S.privateAddress);
    expect(modelUrlProblem('https://169.254.169.254/latest', allowed)).toBe(S.privateAddress);
  });

  it('AI-01 Retry-After reads as seconds or as a date', () => {
    expect(retryAfterSeconds('12')).toBe(12);
    expect(retryAfterSeconds(undefined)).toBeNull();
    expect(retryAfterSeconds('soon')).toBeNull();
    expect(retryAfterSeconds(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
  });

  it('MSG-49 the model translates a batch in one call; an answer of the wrong length is refused, never half used', async () => {
    const t = openaiTranslator(client);
    expect(await t.translate(['Good morning', 'Thanks'], 'ms')).toEqual(['[ms] Good morning', '[ms] Thanks']);
    api.answerWith(() => '["only one"]');
    expect(await failure(t.translate(['a', 'b'], 'ms'))).toMatchObject({ status: 502, message: S.badAnswer });
    api.answerWith(() => '```json\n["satu","dua"]\n```');
    expect(await t.translate(['one', 'two'], 'ms')).toEqual(['satu', 'dua']);
    api.answerWith(null);
  });
});

describe('LibreTranslate provider against a loopback stand-in', () => {
  let lt: Awaited<ReturnType<typeof startLibreTranslateStandIn>>;
  beforeAll(async () => {
    lt = await startLibreTranslateStandIn({ key: 'lt-key' });
  });
  afterAll(() => lt?.close());

  it('MSG-49 MSG-50 q goes as an array with source, target, format and api_key; the stand-in also answers a single string and lists languages', async () => {
    lt.got.length = 0;
    const t = httpTranslator(lt.url, 'lt-key', 400);
    expect(await t.translate(['Good morning', 'Thanks'], 'ms', 'en')).toEqual(['[ms] Good morning', '[ms] Thanks']);
    expect(lt.got[0]!.body).toEqual({
      q: ['Good morning', 'Thanks'],
      source: 'en',
      target: 'ms',
      format: 'text',
      api_key: 'lt-key',
    });
    const single = await fetch(`${lt.url}/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'Hi', source: 'auto', target: 'de', api_key: 'lt-key' }),
    });
    expect(await single.json()).toMatchObject({ translatedText: '[de] Hi', detectedLanguage: { language: 'en' } });
    const langs = (await (await fetch(`${lt.url}/languages`)).json()) as { code: string }[];
    expect(langs.map((l) => l.code)).toContain('ms');
  });

  it('MSG-49 a wrong key, an unknown language, a rate limit, a server error, garbage and a slow answer each give a clear message within the timeout', async () => {
    const t = httpTranslator(lt.url, 'lt-key', 400);
    const text = ['confidential words'];
    const wrongKey = await failure(httpTranslator(lt.url, 'nope', 400).translate(text, 'ms'));
    expect(wrongKey).toMatchObject({ status: 502, message: T.refusedKey });
    expect(await failure(t.translate(text, 'xx'))).toMatchObject({ status: 502, message: T.badRequest });
    lt.faults.push({ status: 429, retryAfter: '3' });
    expect(await failure(t.translate(text, 'ms'))).toMatchObject({ status: 429, message: T.rateLimited(3) });
    lt.faults.push({ status: 429 });
    expect(await failure(t.translate(text, 'ms'))).toMatchObject({ status: 429, message: T.rateLimited(null) });
    lt.faults.push({ status: 500 });
    expect(await failure(t.translate(text, 'ms'))).toMatchObject({ status: 502, message: T.failed(500) });
    lt.faults.push({ garbage: true });
    expect(await failure(t.translate(text, 'ms'))).toMatchObject({ status: 502, message: T.badAnswer });
    lt.faults.push({ slowMs: 3_000 });
    const started = Date.now();
    expect(await failure(t.translate(text, 'ms'))).toMatchObject({ status: 502, message: T.timedOut(0.4) });
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('offline language detection (eld)', () => {
  it('MSG-52 reads the language of a sentence and says nothing of too little text', () => {
    expect(detectLanguage('Good morning, my parcel has not arrived yet')).toBe('en');
    expect(detectLanguage('Selamat pagi, bungkusan saya belum sampai lagi')).toBe('ms');
    expect(detectLanguage('Guten Morgen, mein Paket ist noch nicht angekommen')).toBe('de');
    expect(detectLanguage('Bonjour, mon colis n’est pas encore arrivé')).toBe('fr');
    for (const none of ['', 'hi', 'Hello from Hana', '😀😀😀', '12345 678', 'https://x.y'])
      expect(detectLanguage(none)).toBeNull();
    expect(detectLanguage('x'.repeat(100_000))).toBeNull();
    expect(alreadyIn('Guten Morgen, mein Paket ist noch nicht angekommen', 'de-AT')).toBe(true);
    expect(alreadyIn('Good morning, my parcel has not arrived yet', 'de')).toBe(false);
  });

  it('MSG-49 a text already in the target language is not sent; the source is named when every text sent reads the same', async () => {
    const asked: { texts: string[]; source?: string }[] = [];
    const t = skippingTranslator({
      async translate(texts, target, source) {
        asked.push({ texts, source });
        return texts.map((x) => `[${target}] ${x}`);
      },
    });
    const texts = ['Selamat pagi, bungkusan saya belum sampai lagi', 'Good morning, my parcel has not arrived yet'];
    expect(await t.translate(texts, 'ms')).toEqual([texts[0], `[ms] ${texts[1]}`]);
    expect(asked).toEqual([{ texts: [texts[1]], source: 'en' }]);
    asked.length = 0;
    expect(await t.translate([texts[0]!], 'ms')).toEqual([texts[0]]);
    expect(asked).toEqual([]);
    // The caller's source wins; a short text of no clear language is sent.
    expect(await t.translate(['ok'], 'ms', 'en')).toEqual(['[ms] ok']);
    expect(asked).toEqual([{ texts: ['ok'], source: 'en' }]);
  });
});
