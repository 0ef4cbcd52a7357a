import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { AI_SETTINGS_STRINGS as S } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../app.js';
import { startOpenAiStandIn } from '../../testing/aiStandIns.js';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, type TestSocket } from '../../testing/sockets.js';
import { dialects, startTestServer, testConfig } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

const KEY = `sk-${randomBytes(12).toString('hex')}`;

/**
 * AI-01, AI-04, AI-05, AI-06, AI-09, MSG-49, MSG-52: an account's AI settings (engine, language model, key,
 * translator) against a loopback OpenAI-compatible stand-in; `/api/wauchat`; translation by the model; the
 * ticket language read from the customer's messages.
 */
describe.each(dialects)('AI settings (%s)', (dialect) => {
  let api: Awaited<ReturnType<typeof startOpenAiStandIn>>;
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const logs: string[] = [];
  const opened: { close(): void }[] = [];

  beforeAll(async () => {
    api = await startOpenAiStandIn({ key: KEY });
    const stream = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    s = await startTestServer(
      dialect,
      {
        SECRETS_KEY: randomBytes(32).toString('base64'),
        AI_ALLOWED_HOSTS: api.host,
        AI_TIMEOUT_MS: '500',
        TRUST_PROXY: 'true',
      },
      // The server's own logger (its redaction), at every level.
      { logger: createLogger(testConfig({ LOG_LEVEL: 'trace' }), stream) },
    );
    call = apiClient(s.url);
  });
  afterAll(async () => {
    for (const o of opened) o.close();
    await s?.stop();
    await api?.close();
  });

  const model = () => ({ provider: 'openai', base_url: api.baseUrl, model: 'gpt-test', api_key: KEY });
  const put = (token: string, body: unknown) => call('PUT', '/api/ai/settings', { token, body });
  const wauchat = (token: string | undefined, q: Record<string, string>) =>
    call('GET', `/api/wauchat?${new URLSearchParams(q)}`, { token });

  it('AI-01 an account starts on the built-in engine; only admins change it; the key is write-only (set, last 4) and sealed; another account never sees it', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const first = await call('GET', '/api/ai/settings', { token: agent.token });
    expect(first.body).toEqual({
      result: 'success',
      data: {
        provider: 'offline',
        base_url: '',
        model: '',
        key_set: false,
        key_last4: '',
        translator: 'installation',
        installation: { hints_service: false, translate: false, secrets: true },
      },
    });
    expect((await put(agent.token, model())).status).toBe(403);
    expect((await call('GET', '/api/ai/settings', { token: undefined })).status).toBe(401);
    const saved = await put(a.token, model());
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data).toMatchObject({
      provider: 'openai',
      base_url: api.baseUrl,
      model: 'gpt-test',
      key_set: true,
      key_last4: KEY.slice(-4),
    });
    expect(saved.text).not.toContain(KEY);
    const row = await s.handle.db
      .selectFrom('ai_settings')
      .selectAll()
      .where('account_id', '=', a.accountId)
      .executeTakeFirstOrThrow();
    expect(row.key_sealed.startsWith('v1.')).toBe(true);
    expect(row.key_sealed).not.toContain(KEY);
    expect((await call('GET', '/api/ai/settings', { token: a.token })).text).not.toContain(KEY);
    // The change is audited without the key.
    const audit = await s.handle.db
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'ai.settings_changed')
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.detail)).toEqual({
      provider: 'openai',
      model: 'gpt-test',
      translator: 'installation',
      key: 'set',
    });
    // Saved without a key: the stored one stays; '' removes it.
    const kept = await put(a.token, { ...model(), api_key: undefined, model: 'gpt-other' });
    expect(kept.body.data).toMatchObject({ model: 'gpt-other', key_set: true, key_last4: KEY.slice(-4) });
    // Account B is untouched, and still answered by the built-in engine.
    expect((await call('GET', '/api/ai/settings', { token: b.token })).body.data).toMatchObject({
      provider: 'offline',
      key_set: false,
    });
    api.got.length = 0;
    const theirs = await wauchat(b.token, { type: 'alternative', message: 'We will refund you.' });
    expect(theirs.body).toEqual({ result: 'not_configured', description: S.needsModel });
    const mine = await wauchat(a.token, { type: 'alternative', message: 'We will refund you.' });
    expect(mine.body).toEqual({
      result: 'success',
      data: { type: 'alternative', text: 'Suggested: We will refund you.', engine: 'openai', cues: [] },
    });
    expect(api.got).toHaveLength(1);
    expect(api.got[0]).toMatchObject({ authorization: `Bearer ${KEY}`, body: { model: 'gpt-other' } });
    const removed = await put(a.token, { ...model(), api_key: '' });
    expect(removed.body.data).toMatchObject({ key_set: false, key_last4: '' });
    // Without its key the stand-in refuses: the answer says so, and still names no key.
    const refused = await wauchat(a.token, { type: 'anchor', message: 'We will call you.' });
    expect(refused.status).toBe(502);
    expect(refused.body.description).toBe(S.refused);
    expect(logs.join('')).not.toContain(KEY);
  });

  it('AI-01 bad settings are refused clearly and change nothing', async () => {
    const a = await signUpVia(call);
    expect((await put(a.token, { ...model(), translator: 'openai' })).status).toBe(200);
    const cases: [unknown, string | RegExp][] = [
      [{ ...model(), provider: 'gpt' }, /expected one of/],
      [{ ...model(), base_url: 'ftp://example.com/v1' }, S.badUrl],
      [{ ...model(), base_url: 'not a url' }, S.badUrl],
      [{ ...model(), base_url: 'http://api.example.com/v1' }, S.httpsOnly],
      [{ ...model(), base_url: 'https://127.0.0.1:9/v1' }, S.privateAddress],
      [{ ...model(), base_url: 'https://169.254.169.254/v1' }, S.privateAddress],
      [{ ...model(), base_url: 'https://localhost/v1' }, S.privateAddress],
      [{ ...model(), model: '' }, S.incomplete],
      [{ provider: 'offline', translator: 'openai' }, S.incomplete],
      [{ ...model(), api_key: 'k'.repeat(501) }, /500|api_key/i],
      [{ ...model(), translator: 'deepl' }, /expected one of/],
      [{ ...model(), base_url: `https://x.example.com/${'a'.repeat(600)}` }, /500|base_url/i],
      ['not json', /./],
    ];
    for (const [body, text] of cases) {
      const r =
        typeof body === 'string'
          ? await call('PUT', '/api/ai/settings', { token: a.token, raw: body })
          : await put(a.token, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      if (typeof text === 'string') expect(r.body.description).toBe(text);
      else expect(r.body.description).toMatch(text);
    }
    expect((await call('GET', '/api/ai/settings', { token: a.token })).body.data).toMatchObject({
      provider: 'openai',
      base_url: api.baseUrl,
      model: 'gpt-test',
      key_last4: KEY.slice(-4),
      translator: 'openai',
    });
  });

  it('AI-01 Test: the model answers with its time, or the Test says why not (key, rate limit, timeout) within the timeout', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const test = (token: string, body: unknown) => call('POST', '/api/ai/settings/test', { token, body });
    const form = { base_url: api.baseUrl, model: 'gpt-test', api_key: KEY };
    const ok = await test(a.token, form);
    expect(ok.body).toMatchObject({
      result: 'success',
      model: 'gpt-test',
      sample: expect.stringContaining('Suggested'),
    });
    expect(typeof ok.body.ms).toBe('number');
    expect((await test(agent.token, form)).status).toBe(403);
    expect((await test(a.token, { ...form, api_key: 'sk-wrong' })).body).toEqual({
      result: 'failed',
      description: S.refused,
    });
    // No key in the form: the stored one (none yet) is used.
    expect((await test(a.token, { ...form, api_key: undefined })).body.description).toBe(S.refused);
    await put(a.token, model());
    expect((await test(a.token, { ...form, api_key: undefined })).body.result).toBe('success');
    api.faults.push({ status: 429, retryAfter: '20' });
    expect((await test(a.token, form)).body).toEqual({ result: 'failed', description: S.rateLimited(20) });
    api.faults.push({ slowMs: 2_000 });
    const started = Date.now();
    expect((await test(a.token, form)).body).toEqual({ result: 'failed', description: S.timedOut(0.5) });
    expect(Date.now() - started).toBeLessThan(1_800);
    expect((await test(a.token, { ...form, base_url: 'http://10.0.0.1/v1' })).status).toBe(400);
    expect((await test(a.token, { ...form, model: '' })).body.description).toBe(S.incomplete);
    expect(logs.join('')).not.toContain(KEY);
  });

  it('AI-04 AI-05 /api/wauchat: every type rewritten by the model; the built-in engine reads personality and asks for a model for the rest; bad input refused', async () => {
    const a = await signUpVia(call);
    for (const type of ['alternative', 'advocacy', 'forwardresolution', 'anchor'])
      expect((await wauchat(a.token, { type, message: 'We are looking into it.' })).body).toEqual({
        result: 'not_configured',
        description: S.needsModel,
      });
    const read = await wauchat(a.token, { type: 'personality', message: 'I need this fixed NOW!!!' });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ type: 'personality', engine: 'offline' });
    expect(read.body.data.analysis).toMatchObject({ personality: expect.any(Object) });
    expect(read.body.data.text.length).toBeGreaterThan(0);
    for (const [q, status] of [
      [{ type: 'rewrite', message: 'x' }, 400],
      [{ type: 'alternative', message: '   ' }, 400],
      [{ type: 'alternative' }, 400],
      [{ type: 'alternative', message: 'x'.repeat(4_001) }, 400],
    ] as const)
      expect((await wauchat(a.token, q as Record<string, string>)).status).toBe(status);
    expect((await wauchat(undefined, { type: 'alternative', message: 'x' })).status).toBe(401);
    await put(a.token, model());
    api.got.length = 0;
    for (const type of ['alternative', 'personality', 'advocacy', 'forwardresolution', 'anchor']) {
      const r = await wauchat(a.token, { type, message: 'We are looking into it.' });
      expect(r.body, type).toEqual({
        result: 'success',
        data: { type, text: 'Suggested: We are looking into it.', engine: 'openai', cues: [] },
      });
    }
    expect(new Set(api.got.map((g) => g.body.messages[0].content)).size).toBe(5);
    api.faults.push({ status: 500 });
    const failed = await wauchat(a.token, { type: 'anchor', message: 'private draft words' });
    expect(failed.status).toBe(502);
    expect(failed.text).not.toContain('private draft words');
    // The draft is in the query string: the request log shows it redacted.
    expect(logs.join('')).toContain('/api/wauchat?type=anchor&message=[redacted]');
    expect(logs.join('')).not.toContain('private');
    // Mixed scripts and emoji only: an answer, not an error.
    expect((await wauchat(a.token, { type: 'alternative', message: '你好 hello مرحبا' })).status).toBe(200);
    expect((await wauchat(a.token, { type: 'alternative', message: '😀🙏' })).status).toBe(200);
  });

  it('AI-06 AI-09 live-chat hints come from the account model (engine openai, confidence 1); another account keeps the built-in engine', async () => {
    const lc = await liveChatAccount(call, s.handle.db, 1);
    const other = await liveChatAccount(call, s.handle.db, 1);
    await put(lc.admin.token, model());
    const hintFor = async (acc: typeof lc) => {
      const v = await queueVisitor(call, s.url, acc.token, 'Hana', opened);
      const sock = await connectSocket(s.url, acc.agents[0]!.token, opened as TestSocket[]);
      const acc1 = await sock.emitWithAck('acceptLiveChat', null);
      if (!acc1.ok) throw new Error(acc1.error);
      const sent = await v.socket.emitWithAck('visitorMessage', { message: 'My parcel is late' });
      if (!sent.ok) throw new Error(sent.error);
      const q = new URLSearchParams({
        text: 'My parcel is late',
        messageId: String(sent.data.id),
        channel: 'LIVECHAT',
      });
      return call('GET', `/api/wauchat/recommendation?${q}`, { token: acc.agents[0]!.token });
    };
    const mine = await hintFor(lc);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data).toMatchObject({ engine: 'openai', confidence: 1 });
    expect(mine.body.data.recommendation).toContain('My parcel is late');
    const theirs = await hintFor(other);
    expect(theirs.body.data).toMatchObject({ engine: 'offline' });
  });

  it('MSG-49 MSG-50 MSG-52 MSG-53 the model translates for its account only (texts already in the target are not sent); /api/services says so per account; an unknown ticket language is read from the customer', async () => {
    const lc = await liveChatAccount(call, s.handle.db, 1);
    const other = await signUpVia(call);
    await put(lc.admin.token, { ...model(), provider: 'offline', translator: 'openai' });
    const services = async (token: string) => (await call('GET', '/api/services', { token })).body.translate;
    expect(await services(lc.admin.token)).toBe(true);
    expect(await services(other.token)).toBe(false);
    const v = await queueVisitor(call, s.url, lc.token, 'Hana', opened);
    const sock = await connectSocket(s.url, lc.agents[0]!.token, opened as TestSocket[]);
    const accepted = await sock.emitWithAck('acceptLiveChat', null);
    if (!accepted.ok) throw new Error(accepted.error);
    const ticketId = accepted.ticket_id as number;
    const en = 'Good morning, my parcel has not arrived yet';
    const sent = await v.socket.emitWithAck('visitorMessage', { message: en });
    if (!sent.ok) throw new Error(sent.error);
    const language = () =>
      s.handle.db.selectFrom('tickets').select('language').where('id', '=', ticketId).executeTakeFirstOrThrow();
    let last = '';
    await waitFor(
      async () => {
        last = (await language()).language;
        return last === 'en';
      },
      () => `the ticket language read as en (it is '${last}')`,
    );
    api.got.length = 0;
    const ms = 'Selamat pagi, bungkusan saya belum sampai lagi';
    const t = await call('POST', '/api/translate', {
      token: lc.agents[0]!.token,
      body: {
        ticketId,
        text: [
          { id: sent.data.id, message: en },
          { id: 0, message: ms },
        ],
        target: 'ms',
      },
    });
    expect(t.status, t.text).toBe(200);
    expect(t.body.data).toEqual([
      { id: sent.data.id, message: en, translated: `[ms] ${en}` },
      { id: 0, message: ms, translated: ms },
    ]);
    expect(api.got).toHaveLength(1);
    expect(JSON.parse(api.got[0]!.body.messages[1].content)).toEqual([en]);
    const history = await call('GET', `/ticket/data/${ticketId}/0`, { token: lc.agents[0]!.token });
    expect(history.body.data.find((m: { id: number }) => m.id === sent.data.id).translated_text).toEqual({
      ms: `[ms] ${en}`,
    });
    // A language set by an agent is kept whatever the customer writes next.
    await call('POST', '/api/language/set', { token: lc.agents[0]!.token, body: { ticketId, lang: 'de' } });
    await v.socket.emitWithAck('visitorMessage', { message: 'Another English sentence about my parcel' });
    await new Promise((r) => setTimeout(r, 200));
    expect((await language()).language).toBe('de');
    // A model that fails answers a clear 502 for the translation; the other account still has none.
    api.faults.push({ status: 503 });
    const down = await call('POST', '/api/translate', {
      token: lc.agents[0]!.token,
      body: { ticketId, text: [{ id: 0, message: en }], target: 'ms' },
    });
    expect(down.status).toBe(502);
    expect(down.text).not.toContain(en);
  });
});

describe('AI settings without SECRETS_KEY', () => {
  it('AI-01 a key cannot be stored, and the answer says why; a keyless local model can', async () => {
    const api = await startOpenAiStandIn();
    const s = await startTestServer('sqlite', { AI_ALLOWED_HOSTS: api.host });
    try {
      const call = apiClient(s.url);
      const a = await signUpVia(call);
      const body = { provider: 'openai', base_url: api.baseUrl, model: 'llama3' };
      const withKey = await call('PUT', '/api/ai/settings', { token: a.token, body: { ...body, api_key: KEY } });
      expect(withKey.status).toBe(400);
      expect(withKey.body.description).toBe(S.noSecretsKey);
      const keyless = await call('PUT', '/api/ai/settings', { token: a.token, body });
      expect(keyless.body.data).toMatchObject({ provider: 'openai', key_set: false, installation: { secrets: false } });
      const r = await call('GET', `/api/wauchat?${new URLSearchParams({ type: 'anchor', message: 'Soon.' })}`, {
        token: a.token,
      });
      expect(r.body.data).toMatchObject({ engine: 'openai', text: 'Suggested: Soon.' });
      expect(api.got[0]!.authorization).toBeUndefined();
    } finally {
      await s.stop();
      await api.close();
    }
  });
});
