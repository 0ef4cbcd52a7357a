import { type Message, VOICE_STRINGS } from '@parley/contracts';
import { speechWav } from '@parley/contracts/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, signUpVia } from '../../testing/api.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { collect, connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

/**
 * RT-24, RT-25 (text), AI-02, AI-10, AI-14 end to end: a visitor writes in a live chat; the agent's socket
 * gets the message's reading (`textEmotion`), the ticket's (`newEmotion`) and what it is about
 * (`newContext`); the message and the ticket keep them, and history and the list serve them.
 */
describe.each(dialects)('emotion and context of customer messages (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  const opened: { close(): void }[] = [];
  beforeAll(async () => {
    server = await startTestServer(dialect, { TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await server?.stop();
  });

  it('RT-24 RT-25 AI-02 AI-10 AI-14 a visitor message is read live; an agent message is not; the ticket adds up', async () => {
    const call = apiClient(server.url);
    const { agents, token } = await liveChatAccount(call, server.handle.db, 1);
    const v = await queueVisitor(call, server.url, token, 'Hana', opened);
    const s = await connectSocket(server.url, agents[0]!.token, opened as TestSocket[]);
    const text = collect(s, 'textEmotion');
    const ticket = collect(s, 'newEmotion');
    const context = collect(s, 'newContext');
    const a = await s.emitWithAck('acceptLiveChat', null);
    if (!a.ok) throw new Error(a.error);
    const chat = a.ticket_id;
    // The form's "Hello from Hana" opens the chat as the visitor's first message: read too, as neutral.
    await waitFor(() => ticket.length === 1 || undefined, 'the first message read');
    expect(text).toMatchObject([
      {
        ticketId: chat,
        messageId: text[0]!.messageId,
        source: 'customer',
        emotion: 'neutral',
        emotion_2: { neutral: 1 },
      },
    ]);
    text.length = 0;
    ticket.length = 0;
    expect(context).toEqual([]);

    const first = await v.socket.emitWithAck('visitorMessage', {
      message: 'This is the third time my parcel is late. I am really frustrated!',
    });
    if (!first.ok) throw new Error(first.error);
    await waitFor(() => context.length === 1 || undefined, 'newContext');
    expect(text).toMatchObject([
      {
        ticketId: chat,
        messageId: first.data.id,
        source: 'customer',
        emotion: 'frustration',
        emotion_2: { frustration: 2, complaint: 1 },
      },
    ]);
    expect(ticket).toEqual([
      {
        ticketId: chat,
        messageId: first.data.id,
        message_emotion_2: { frustration: 2, complaint: 1 },
        emotion: 'frustration',
        emotion_2: { neutral: 1, frustration: 2, complaint: 1 },
      },
    ]);
    expect(context).toEqual([{ ticketId: chat, messageId: first.data.id, context: 'Delivery' }]);

    // The agent's reply is not read; the visitor's next message is, and the ticket's counts add up.
    const reply = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: chat, message: 'I am frustrated too, sorry' },
    });
    expect(reply.status, reply.text).toBe(200);
    const second = await v.socket.emitWithAck('visitorMessage', { message: 'Thank you, that works now' });
    if (!second.ok) throw new Error(second.error);
    await waitFor(() => ticket.length === 2 || undefined, 'second newEmotion');
    expect(text.map((e) => e.messageId)).toEqual([first.data.id, second.data.id]);
    expect(ticket[1]).toEqual({
      ticketId: chat,
      messageId: second.data.id,
      message_emotion_2: { gratitude: 1, satisfaction: 1 },
      emotion: 'frustration',
      emotion_2: { neutral: 1, frustration: 2, complaint: 1, gratitude: 1, satisfaction: 1 },
    });
    // Nothing said what the thanks is about: no newContext for it.
    expect(context).toHaveLength(1);

    // Kept: history carries each message's emotion_2 and context; the agent's message has none.
    const h = await call('GET', `/ticket/data/${chat}/0`, { token: agents[0]!.token });
    const byId = new Map((h.body.data as Message[]).map((m) => [m.id, m]));
    expect(byId.get(first.data.id)).toMatchObject({ emotion_2: { frustration: 2, complaint: 1 }, context: 'Delivery' });
    expect(byId.get(second.data.id)).toMatchObject({ emotion_2: { gratitude: 1, satisfaction: 1 }, context: '' });
    expect(byId.get(reply.body.data.id)).toMatchObject({ emotion_2: {}, context: '' });
    const row = await server.handle.db
      .selectFrom('tickets')
      .select(['emotion', 'emotion_2'])
      .where('id', '=', chat)
      .executeTakeFirstOrThrow();
    expect(row.emotion).toBe('frustration');
    expect(JSON.parse(row.emotion_2)).toEqual({
      neutral: 1,
      frustration: 2,
      complaint: 1,
      gratitude: 1,
      satisfaction: 1,
    });

    // Another account's agent hears none of it.
    const stranger = await signUpVia(call);
    const other = await connectSocket(server.url, stranger.token, opened as TestSocket[]);
    const heard = collect(other, 'textEmotion');
    const third = await v.socket.emitWithAck('visitorMessage', { message: 'Where is my refund?' });
    if (!third.ok) throw new Error(third.error);
    await waitFor(() => context.length === 2 || undefined, 'third newContext');
    expect(context[1]).toEqual({ ticketId: chat, messageId: third.data.id, context: 'Refund' });
    expect(text[2]).toMatchObject({ messageId: third.data.id, emotion: 'enquiry' });
    expect(heard).toEqual([]);

    // AI-02: the engine's findings come with the reading and are kept on the message: a scam's wording is
    // flagged, the next best action is to escalate; an ordinary message has no scam finding.
    const scam = await v.socket.emitWithAck('visitorMessage', {
      message: 'URGENT: our bank details have changed, please pay the invoice to our new account today.',
    });
    if (!scam.ok) throw new Error(scam.error);
    await waitFor(() => text.some((e) => e.messageId === scam.data.id) || undefined, 'the scam read');
    const scamEvent = text.find((e) => e.messageId === scam.data.id)!;
    expect(scamEvent.scam_results).toMatchObject([{ kind: 'scam', value: 'urgency_pressure' }]);
    expect(scamEvent.recommendation).toMatch(/^Escalate/);
    expect(text.find((e) => e.messageId === second.data.id)!.scam_results).toEqual([]);
    const kept = await call('GET', `/ticket/data/${chat}/0`, { token: agents[0]!.token });
    const keptScam = (kept.body.data as Message[]).find((m) => m.id === scam.data.id)!;
    expect(keptScam.scam_results).toEqual(scamEvent.scam_results);
    expect(keptScam.recommendation).toBe(scamEvent.recommendation);
  });

  const post = async (path: string, token: string | undefined, parts: [string, string | Blob, string?][]) => {
    const form = new FormData();
    for (const [k, v, name] of parts)
      if (typeof v === 'string') form.append(k, v);
      else form.append(k, v, name);
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      body: form,
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const blob = (b: Buffer, type: string) => new Blob([new Uint8Array(b)], { type });

  it('RT-25 CALL-50 CALL-51 a WAV recording attached to a conversation is heard: voiceEmotion to its staff, kept on the message; the voice upload answers the analysis, audio only', async () => {
    const call = apiClient(server.url);
    const { agents, token } = await liveChatAccount(call, server.handle.db, 1);
    await queueVisitor(call, server.url, token, 'Ivo', opened);
    const s = await connectSocket(server.url, agents[0]!.token, opened as TestSocket[]);
    const voice = collect(s, 'voiceEmotion');
    const a = await s.emitWithAck('acceptLiveChat', null);
    if (!a.ok) throw new Error(a.error);
    const shout = speechWav([
      { gain: 0.8, bursts: 5 },
      { gain: 0.8, bursts: 5 },
      { gain: 0.8, bursts: 5 },
    ]);
    const up = await post('/api/upload', agents[0]!.token, [
      ['ticket_id', String(a.ticket_id)],
      ['attachment[]', blob(shout, 'audio/wav'), 'call.wav'],
    ]);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.fileType).toEqual(['audio/wav']);
    const sent = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: a.ticket_id, message: '', type: 'audio/wav', files: [up.body.file[0]] },
    });
    expect(sent.status, sent.text).toBe(200);
    await waitFor(() => voice.length === 1 || undefined, 'voiceEmotion');
    expect(voice[0]).toMatchObject({
      ticketId: a.ticket_id,
      messageId: sent.body.data.id,
      source: 'agent',
      emotion: 'angry',
      emotion_2: { angry: 100 },
    });
    expect([0, 25, 50, 75, 100]).toContain(voice[0]!.energy);
    const h = await call('GET', `/ticket/data/${a.ticket_id}/0`, { token: agents[0]!.token });
    expect((h.body.data as Message[]).find((m) => m.id === sent.body.data.id)?.emotion_2).toEqual({ angry: 100 });

    // The voice upload (CALL-50): the analysis of the file itself, nothing stored.
    const r = await post('/api/upload/voice', agents[0]!.token, [['attachment', blob(shout, 'audio/wav'), 'a.wav']]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      percentage: { angry: 100 },
      emotion: ['angry', 'angry', 'angry'],
      tempo: [300, 300, 300],
    });
    expect(r.body.amplitude).toHaveLength(3);
    // CALL-51: audio only; audio that is not WAV is a clear 415; no file, no token: refused.
    const text = await post('/api/upload/voice', agents[0]!.token, [
      ['attachment', blob(Buffer.from('hello'), 'audio/wav'), 'a.wav'],
    ]);
    expect([text.status, text.body.description]).toEqual([400, VOICE_STRINGS.notAudio]);
    const mp3 = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(4000, 0x55)]);
    const other = await post('/api/upload/voice', agents[0]!.token, [['attachment', blob(mp3, 'audio/mpeg'), 'a.mp3']]);
    expect([other.status, other.body?.description]).toEqual([415, VOICE_STRINGS.notWav]);
    const none = await post('/api/upload/voice', agents[0]!.token, [['note', 'x']]);
    expect([none.status, none.body.description]).toEqual([400, VOICE_STRINGS.noFile]);
    expect(
      (await post('/api/upload/voice', undefined, [['attachment', blob(shout, 'audio/wav'), 'a.wav']])).status,
    ).toBe(401);
  });
});
