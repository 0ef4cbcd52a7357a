import { MESSAGE_STRINGS, TRANSLATE_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLibreTranslateStandIn } from '../../testing/aiStandIns.js';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, type TestSocket } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { seedTicket } from '../ai/classify/seedTickets.js';

const EN = 'Your refund was sent this morning and should reach your card within three days.';

/**
 * MSG-49 MSG-53, "translate my reply": the agent writes in their language, the reply goes out in the
 * customer's (translated by the account's translator, here the LibreTranslate stand-in), and what the agent
 * wrote stays on the message under its language. Without a translator nothing is offered and nothing fails.
 */
describe.each(dialects)('a reply translated into the customer language (%s)', (dialect) => {
  let lt: Awaited<ReturnType<typeof startLibreTranslateStandIn>>;
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let bare: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  beforeAll(async () => {
    lt = await startLibreTranslateStandIn({ key: 'lt-key' });
    [s, bare] = await Promise.all([
      startTestServer(dialect, { TRANSLATE_URL: lt.url, TRANSLATE_API_KEY: 'lt-key', AI_TIMEOUT_MS: '500' }),
      startTestServer(dialect),
    ]);
    call = apiClient(s.url);
  });
  const opened: { close(): void }[] = [];
  afterAll(async () => {
    for (const o of opened) o.close();
    await Promise.all([s?.stop(), bare?.stop()]);
    await lt?.close();
  });

  const customerTicket = async (db: typeof s.handle.db, accountId: number) => {
    const t = await seedTicket(db, accountId, {
      channel: 'EMAIL',
      messages: [{ sender: 'visitor', text: 'Selamat pagi, bila wang saya akan dipulangkan?' }],
    });
    await db.updateTable('tickets').set({ language: 'ms' }).where('id', '=', t.id).execute();
    return t.id;
  };

  it('MSG-49 MSG-53 the reply goes out translated and keeps the agent words; errors are clear and post nothing', async () => {
    const a = await signUpVia(call);
    const ticketId = await customerTicket(s.handle.db, a.accountId);
    expect((await call('GET', '/api/services', { token: a.token })).body.translate).toBe(true);

    // The composer's translation: text not yet sent (id 0), from the agent's language into the ticket's.
    lt.got.length = 0;
    const t = await call('POST', '/api/translate', {
      token: a.token,
      body: { ticketId, text: [{ id: 0, message: EN }], target: 'ms', source: 'en' },
    });
    expect(t.status, t.text).toBe(200);
    const translated = t.body.data[0].translated as string;
    expect(translated).toBe(`[ms] ${EN}`);
    expect(lt.got.map((g) => g.body)).toEqual([
      { q: [EN], source: 'en', target: 'ms', format: 'text', api_key: 'lt-key' },
    ]);

    const sent = await call('POST', '/api/ticket/message', {
      token: a.token,
      body: { ticket_id: ticketId, message: translated, type: 'text', original: { lang: 'en', text: EN } },
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data).toMatchObject({ message: translated, translated_text: { en: EN } });
    const history = await call('GET', `/ticket/data/${ticketId}/0`, { token: a.token });
    const stored = history.body.data.find((m: { id: number }) => m.id === sent.body.data.id);
    expect(stored).toMatchObject({ message: translated, translated_text: { en: EN } });

    // Bad input: a clear 400 and nothing posted.
    const count = async () => (await call('GET', `/ticket/data/${ticketId}/0`, { token: a.token })).body.data.length;
    const before = await count();
    for (const original of [{ lang: 'english', text: EN }, { lang: 'en', text: '   ' }, { lang: 'en' }]) {
      const r = await call('POST', '/api/ticket/message', {
        token: a.token,
        body: { ticket_id: ticketId, message: translated, type: 'text', original },
      });
      expect(r.status, JSON.stringify(original)).toBe(400);
    }
    const notText = await call('POST', '/api/ticket/message', {
      token: a.token,
      body: { ticket_id: ticketId, message: '<p>x</p>', type: 'text/html', original: { lang: 'en', text: EN } },
    });
    expect(notText.status).toBe(400);
    expect(notText.body.description).toBe(MESSAGE_STRINGS.translatedTextOnly);

    // The translator rate limited or slow: a clear message within the timeout, never the text.
    lt.faults.push({ status: 429, retryAfter: '7' });
    const limited = await call('POST', '/api/translate', {
      token: a.token,
      body: { ticketId, text: [{ id: 0, message: EN }], target: 'ms', source: 'en' },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.description).toBe(TRANSLATE_STRINGS.rateLimited(7));
    lt.faults.push({ slowMs: 2_000 });
    const started = Date.now();
    const slow = await call('POST', '/api/translate', {
      token: a.token,
      body: { ticketId, text: [{ id: 0, message: EN }], target: 'ms', source: 'en' },
    });
    expect(slow.status).toBe(502);
    expect(slow.body.description).toBe(TRANSLATE_STRINGS.timedOut(0.5));
    expect(slow.text).not.toContain(EN);
    expect(Date.now() - started).toBeLessThan(1_900);
    expect(await count()).toBe(before);
  });

  it('MSG-49 without a translator the feature is not offered, and asking is an answer, not an error', async () => {
    const c = apiClient(bare.url);
    const a = await signUpVia(c);
    const ticketId = await customerTicket(bare.handle.db, a.accountId);
    expect((await c('GET', '/api/services', { token: a.token })).body.translate).toBe(false);
    const r = await c('POST', '/api/translate', {
      token: a.token,
      body: { ticketId, text: [{ id: 0, message: EN }], target: 'ms', source: 'en' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'not_configured', description: MESSAGE_STRINGS.translationOff });
  });

  it('MSG-53 AI-03 once a reply went out translated, translatebot translates the customer for the team only', async () => {
    const lc = await liveChatAccount(call, s.handle.db, 1);
    const agent = lc.agents[0]!;
    const v = await queueVisitor(call, s.url, lc.token, 'Siti', opened);
    const heard: string[] = [];
    v.socket.onAny((event: string, payload: unknown) => heard.push(`${event} ${JSON.stringify(payload)}`));
    const sock = await connectSocket(s.url, agent.token, opened as TestSocket[]);
    const accepted = await sock.emitWithAck('acceptLiveChat', null);
    if (!accepted.ok) throw new Error(accepted.error);
    const ticketId = accepted.ticket_id as number;
    const history = async () =>
      (await call('GET', `/ticket/data/${ticketId}/0`, { token: agent.token })).body.data as {
        id: number;
        sender: string;
        message: string;
        reply_id: number | null;
        translated_text: Record<string, string>;
      }[];
    const bot = async () => (await history()).filter((m) => m.sender === 'translatebot');
    const ms1 = 'Selamat pagi, bungkusan saya belum sampai lagi';
    const first = await v.socket.emitWithAck('visitorMessage', { message: ms1 });
    if (!first.ok) throw new Error(first.error);
    // No reply has gone out translated yet: nothing is translated on its own.
    await new Promise((r) => setTimeout(r, 300));
    expect(await bot()).toEqual([]);

    const sent = await call('POST', '/api/ticket/message', {
      token: agent.token,
      body: { ticket_id: ticketId, message: `[ms] ${EN}`, type: 'text', original: { lang: 'en', text: EN } },
    });
    expect(sent.status, sent.text).toBe(200);
    const ticket = () =>
      s.handle.db.selectFrom('tickets').select('source_lang').where('id', '=', ticketId).executeTakeFirstOrThrow();
    expect((await ticket()).source_lang).toBe('en');

    const ms2 = 'Terima kasih, bila wang saya akan masuk ke akaun bank?';
    const second = await v.socket.emitWithAck('visitorMessage', { message: ms2 });
    if (!second.ok) throw new Error(second.error);
    const lines = await waitFor(async () => {
      const b = await bot();
      return b.length > 0 ? b : null;
    }, 'a translatebot line');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: `[en] ${ms2}`, reply_id: second.data.id });
    const customer = (await history()).find((m) => m.id === second.data.id)!;
    expect(customer.translated_text).toEqual({});
    // A customer line already in the team's language is not translated.
    const third = await v.socket.emitWithAck('visitorMessage', {
      message: 'Thank you very much, that answers my question.',
    });
    if (!third.ok) throw new Error(third.error);
    await new Promise((r) => setTimeout(r, 400));
    expect(await bot()).toHaveLength(1);
    // The visitor heard the agent's reply, never the translation bot.
    expect(heard.some((h) => h.includes(`[ms] ${EN}`))).toBe(true);
    expect(heard.filter((h) => h.includes('translatebot') || h.includes(`[en] ${ms2}`))).toEqual([]);
    // The translator failing posts nothing, and the conversation goes on.
    lt.faults.push({ status: 500 });
    const fourth = await v.socket.emitWithAck('visitorMessage', {
      message: 'Boleh saya tahu nombor rujukan bayaran balik?',
    });
    if (!fourth.ok) throw new Error(fourth.error);
    await new Promise((r) => setTimeout(r, 400));
    expect(await bot()).toHaveLength(1);
  });
});
