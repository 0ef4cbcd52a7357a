import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, type TestSocket } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

/**
 * AI-03, AI-06, AI-07, AI-09: `GET /api/wauchat/recommendation` without a provider (`not_configured`) and with
 * the HTTP provider (a small server of the test's own standing in for the AI service).
 */
describe.each(dialects)('AI hints (%s)', (dialect) => {
  let off: Awaited<ReturnType<typeof startTestServer>>;
  let on: Awaited<ReturnType<typeof startTestServer>>;
  let provider: http.Server;
  const asked: { auth?: string; body: Record<string, unknown> }[] = [];
  let answer: { status: number; body: unknown } = { status: 200, body: { recommendation: 'Offer a refund.' } };
  const opened: { close(): void }[] = [];

  beforeAll(async () => {
    provider = http.createServer((req, res) => {
      let data = '';
      req.on('data', (d) => {
        data += d;
      });
      req.on('end', () => {
        asked.push({ auth: req.headers.authorization, body: JSON.parse(data) });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(provider.address() as net.AddressInfo).port}/hint`;
    [off, on] = await Promise.all([
      startTestServer(dialect, { TRUST_PROXY: 'true' }),
      startTestServer(dialect, { TRUST_PROXY: 'true', AI_HINTS_URL: url, AI_HINTS_API_KEY: 'k-123' }),
    ]);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await Promise.all([off?.stop(), on?.stop()]);
    provider?.close();
  });

  /** A running live chat with a visitor message and an agent reply; their ids. */
  async function chatOn(server: typeof on, call: Call) {
    const { agents, token } = await liveChatAccount(call, server.handle.db, 1);
    const v = await queueVisitor(call, server.url, token, 'Hana', opened);
    const s = await connectSocket(server.url, agents[0]!.token, opened as TestSocket[]);
    const a = await s.emitWithAck('acceptLiveChat', null);
    if (!a.ok) throw new Error(a.error);
    const sent = await v.socket.emitWithAck('visitorMessage', { message: 'My parcel is late' });
    if (!sent.ok) throw new Error(sent.error);
    const reply = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: a.ticket_id, message: 'Sorry to hear that' },
    });
    return { agent: agents[0]!, visitorMsg: sent.data.id, agentMsg: reply.body.data.id as number };
  }
  const ask = (call: Call, token: string | undefined, q: Record<string, string | number>) =>
    call(
      'GET',
      `/api/wauchat/recommendation?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`,
      {
        token,
      },
    );

  it('AI-01 AI-03 AI-06 AI-07 without a provider the offline engine answers, naming itself; /api/services says hints are on; bad input, strangers and own messages refused first', async () => {
    const call = apiClient(off.url);
    const { agent, visitorMsg, agentMsg } = await chatOn(off, call);
    const q = { text: 'My parcel is late', messageId: visitorMsg, channel: 'LIVECHAT' };
    const r = await ask(call, agent.token, q);
    expect(r.status).toBe(200);
    expect(r.body.result).toBe('success');
    expect(r.body.data).toMatchObject({ messageId: visitorMsg, engine: 'offline' });
    expect(typeof r.body.data.recommendation).toBe('string');
    expect(r.body.data.recommendation.length).toBeGreaterThan(0);
    expect(r.body.data.analysis).toMatchObject({ next_action: { value: expect.any(String) } });
    const services = await call('GET', '/api/services', { token: agent.token });
    expect(services.body).toEqual({
      result: 'success',
      translate: false,
      ai_hints: true,
      mail: false,
      analytics: false,
    });
    expect((await call('GET', '/api/services', { token: undefined })).status).toBe(401);
    expect((await ask(call, undefined, q)).status).toBe(401);
    expect((await ask(call, agent.token, { ...q, text: ' ' })).status).toBe(400);
    expect((await ask(call, agent.token, { text: 'x', channel: 'LIVECHAT' })).status).toBe(400);
    // Another account's message is not found; the agent's own message gets no hint (AI-03).
    const stranger = await signUpVia(call);
    expect((await ask(call, stranger.token, q)).status).toBe(404);
    const own = await ask(call, agent.token, { ...q, messageId: agentMsg });
    expect(own.status).toBe(400);
    expect(own.body.code).toBe('NO_HINT');
  });

  it('AI-06 AI-07 AI-09 with the HTTP provider: it is asked with text, translation, channel, messageId and the key; confidence defaults to 1; a failing provider is a 502', async () => {
    const call = apiClient(on.url);
    const { agent, visitorMsg, agentMsg } = await chatOn(on, call);
    asked.length = 0;
    const r = await ask(call, agent.token, {
      text: 'My parcel is late',
      messageId: visitorMsg,
      channel: 'LIVECHAT',
      translation: 'Mein Paket ist spät',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      result: 'success',
      data: { messageId: visitorMsg, recommendation: 'Offer a refund.', confidence: 1, engine: 'external', cues: [] },
    });
    expect(asked).toEqual([
      {
        auth: 'Bearer k-123',
        body: {
          text: 'My parcel is late',
          translation: 'Mein Paket ist spät',
          channel: 'LIVECHAT',
          messageId: visitorMsg,
        },
      },
    ]);
    answer = { status: 200, body: { recommendation: 'Ask for the order number.', confidence: 0.4 } };
    const q = { text: 'My parcel is late', messageId: visitorMsg, channel: 'LIVECHAT' };
    expect((await ask(call, agent.token, q)).body.data).toMatchObject({ confidence: 0.4 });
    // The agent's own message never reaches the provider.
    asked.length = 0;
    expect((await ask(call, agent.token, { ...q, messageId: agentMsg })).status).toBe(400);
    expect(asked).toEqual([]);
    answer = { status: 503, body: {} };
    const failed = await ask(call, agent.token, q);
    expect(failed.status).toBe(502);
    expect(failed.text).not.toContain('parcel');
    answer = { status: 200, body: { recommendation: 'Offer a refund.' } };
  });
});
