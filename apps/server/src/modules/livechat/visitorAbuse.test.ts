import { VISITOR_STRINGS } from '@parley/contracts';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call } from '../../testing/api.js';
import { connectVisitor, form, liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, relayed, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { clientIp } from './rateLimit.js';

/**
 * A visitor's socket naming another visitor's chat, agent events and room joins sent on
 * the visitor namespace; and the register limit shared by HTTP and the socket, per client IP derived one
 * way (X-Forwarded-For only behind a trusted proxy).
 */
describe('clientIp', () => {
  it('VISITOR-01 X-Forwarded-For counts only behind a trusted proxy; its first address is the client', () => {
    expect(clientIp('127.0.0.1', '203.0.113.7, 10.0.0.1', true)).toBe('203.0.113.7');
    expect(clientIp('127.0.0.1', ['203.0.113.7', '10.0.0.1'], true)).toBe('203.0.113.7');
    expect(clientIp('127.0.0.1', '203.0.113.7', false)).toBe('127.0.0.1');
    expect(clientIp('::ffff:127.0.0.1', undefined, true)).toBe('127.0.0.1');
    expect(clientIp('127.0.0.1', '', true)).toBe('127.0.0.1');
    expect(clientIp(undefined, undefined, false)).toBe('unknown');
  });
});

describe.each(dialects)('visitor abuse (%s)', (dialect) => {
  let trusted: Awaited<ReturnType<typeof startTestServer>>;
  let direct: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let callDirect: Call;
  const opened: { close(): void }[] = [];
  beforeAll(async () => {
    [trusted, direct] = await Promise.all([
      startTestServer(dialect, { TRUST_PROXY: 'true' }),
      startTestServer(dialect, { TRUST_PROXY: 'false' }),
    ]);
    call = apiClient(trusted.url);
    callDirect = apiClient(direct.url);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await Promise.all([trusted?.stop(), direct?.stop()]);
  });

  it("VISITOR-01 another visitor's ticket id on the socket: visitorMessage with its ids, joinRoom(t2), agent events; nothing reaches or is stored in the other chat", async () => {
    const db = trusted.handle.db;
    const { admin, agents, token } = await liveChatAccount(call, db, 1);
    const v1 = await queueVisitor(call, trusted.url, token, 'Mallory', opened);
    const v2 = await queueVisitor(call, trusted.url, token, 'Alice', opened);
    const agent = await connectSocket(trusted.url, agents[0]!.token, opened as TestSocket[]);
    const a1 = await agent.emitWithAck('acceptLiveChat', null);
    const a2 = await agent.emitWithAck('acceptLiveChat', null);
    if (!a1.ok || !a2.ok) throw new Error('accept failed');
    const [t1, t2] = [a1.ticket_id, a2.ticket_id];
    const stored = async (ticketId: number) =>
      (
        await db
          .selectFrom('messages')
          .select(['sender', 'message'])
          .where('ticket_id', '=', ticketId)
          .orderBy('id')
          .execute()
      ).map((m) => `${m.sender}: ${m.message}`);
    const before2 = await stored(t2);
    const seen2: string[] = [];
    v2.socket.onAny((name, e) => seen2.push(`${name} ${JSON.stringify(e)}`));
    const seen1: string[] = [];
    v1.socket.onAny((name, e) => seen1.push(`${name} ${JSON.stringify(e)}`));

    // visitorMessage naming Alice's chat in every way a client might: the ids are ignored, the text goes
    // to Mallory's own chat.
    const raw = v1.socket as unknown as {
      emitWithAck(n: string, ...a: unknown[]): Promise<unknown>;
      emit(n: string, ...a: unknown[]): void;
    };
    const sent = (await raw.emitWithAck('visitorMessage', {
      message: 'forged 1',
      ticketId: t2,
      ticket_id: t2,
      livechat_id: a2.livechat_id,
      id: a2.livechat_id,
      sender: agents[0]!.username,
    })) as { ok: boolean; data?: { ticketId: number; sender: string } };
    expect(sent).toMatchObject({ ok: true, data: { ticketId: t1, sender: 'visitor' } });
    // Events a visitor has no handler for: room joins and the agents' events.
    for (const [name, ...args] of [
      ['joinRoom', t2],
      ['joinRoom', { ticketId: t2 }],
      ['join', `ticket:${t2}`],
      ['newChatMessage', { ticket_id: t2, message: 'forged 2', client_id: 'queue-abcdefghij' }],
      ['acceptLiveChat', null],
      ['getLiveChatQueue'],
      ['typing', { ticketId: t2 }],
      ['visitorHistory', { ticketId: t2 }],
    ] as [string, ...unknown[]][])
      raw.emit(name, ...args, () => seen1.push(`ack ${name}`));
    // A message id already used in Alice's chat cannot be borrowed either.
    const aliceMsg = await v2.socket.emitWithAck('visitorMessage', {
      message: 'Alice here',
      clientId: 'queue-ALICE00001',
    });
    expect(aliceMsg.ok).toBe(true);
    const borrowed = await v1.socket.emitWithAck('visitorMessage', {
      message: 'forged 3',
      clientId: 'queue-ALICE00001',
    });
    expect(borrowed.ok).toBe(false);
    // Mallory's history is Mallory's chat (it takes no ids: one passed makes the call go unanswered).
    const h = await v1.socket.emitWithAck('visitorHistory');
    expect(h.ok && h.data.map((m) => m.ticketId)).toEqual([t1, t1]);
    expect(JSON.stringify(h)).not.toContain('Alice');

    // The agent writes in Alice's chat: it reaches Alice only.
    const reply = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: t2, message: 'for Alice only' },
    });
    expect(reply.status, reply.text).toBe(200);
    await waitFor(() => seen2.some((s) => s.includes('for Alice only')), 'the reply reaches Alice');
    // Everything the relay was to write to the visitors' sockets is written; their answers to a later call
    // come after it.
    await relayed(db, admin.accountId);
    await Promise.all([v1.socket.emitWithAck('visitorHistory'), v2.socket.emitWithAck('visitorHistory')]);
    expect(seen1.join('\n')).not.toContain('for Alice only');
    expect(seen1.join('\n')).not.toContain('Alice here');
    // No handler answered the agent events or joins, nor the history call carrying an id.
    expect(seen1.filter((s) => s.startsWith('ack '))).toEqual([]);
    expect(seen2.join('\n')).not.toContain('forged');
    expect(await stored(t2)).toEqual([...before2, 'visitor: Alice here', `${agents[0]!.username}: for Alice only`]);
    expect(await stored(t1)).toEqual(['visitor: Hello from Mallory', 'visitor: forged 1']);

    // The agents' namespace does not take a visitor's csrf or link token as a session.
    for (const bad of [v1.csrf, token])
      await expect(
        new Promise((resolve, reject) => {
          const s = io(trusted.url, {
            transports: ['websocket'],
            auth: { token: bad },
            reconnection: false,
            forceNew: true,
          });
          opened.push(s);
          s.once('connect', () => resolve('connected'));
          s.once('connect_error', reject);
        }),
      ).rejects.toThrow();
  });

  it('VISITOR-01 one register budget per IP for HTTP and the socket together; behind a trusted proxy each forwarded address has its own', async () => {
    const db = trusted.handle.db;
    const { token } = await liveChatAccount(call, db, 1);
    const ip = '127.9.0.1';
    const info = (c: Call, from: string) =>
      c('POST', '/api/livechat/info', { body: { token }, headers: { 'x-forwarded-for': from } });
    // 20 HTTP calls and 20 socket registers from one forwarded address use up its 40.
    const first = await info(call, ip);
    expect(first.status).toBe(200);
    const v = await connectVisitor(trusted.url, token, first.body.csrf, opened, ip);
    for (let i = 0; i < 19; i++) expect((await info(call, ip)).status).toBe(200);
    const regs = [];
    for (let i = 0; i < 20; i++)
      regs.push(await v.emitWithAck('registerQueue', { token, csrf: first.body.csrf, ...form('Budget') }));
    expect(regs.every((r) => r.ok)).toBe(true);
    // The 41st is refused whichever way it comes.
    const over = await info(call, ip);
    expect(over.status).toBe(429);
    expect(over.body.description).toBe(VISITOR_STRINGS.tooFast);
    expect(await v.emitWithAck('registerQueue', { token, csrf: first.body.csrf, ...form('Budget') })).toEqual({
      ok: false,
      error: VISITOR_STRINGS.tooFast,
    });
    // Another forwarded address is unaffected, on both ways.
    const other = await info(call, '127.9.0.2');
    expect(other.status).toBe(200);
    const v2 = await connectVisitor(trusted.url, token, other.body.csrf, opened, '127.9.0.2');
    expect((await v2.emitWithAck('registerQueue', { token, csrf: other.body.csrf, ...form('Other') })).ok).toBe(true);
  });

  it('VISITOR-01 without a trusted proxy X-Forwarded-For is ignored: rotating it does not buy more registers', async () => {
    const db = direct.handle.db;
    const { token } = await liveChatAccount(callDirect, db, 1);
    const info = (from: string) =>
      callDirect('POST', '/api/livechat/info', { body: { token }, headers: { 'x-forwarded-for': from } });
    const first = await info('127.8.0.0');
    const v = await connectVisitor(direct.url, token, first.body.csrf, opened, '127.8.0.99');
    // 20 over HTTP, each claiming a new address; 20 on the socket claiming yet another.
    for (let i = 1; i < 20; i++) expect((await info(`127.8.0.${i}`)).status).toBe(200);
    for (let i = 0; i < 20; i++)
      expect((await v.emitWithAck('registerQueue', { token, csrf: first.body.csrf, ...form('Rot') })).ok).toBe(true);
    // All of them counted against 127.0.0.1: the next is refused on both ways.
    expect((await info('127.8.0.200')).status).toBe(429);
    expect((await v.emitWithAck('registerQueue', { token, csrf: first.body.csrf, ...form('Rot') })).ok).toBe(false);
  });
});
