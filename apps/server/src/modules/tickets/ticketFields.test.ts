import {
  TICKET_CREATE_STRINGS,
  TicketCreateAnswer,
  TicketInfoAnswer,
  type TicketListItem,
  TicketLoadAnswer,
  TYPING_REMOTE_MS,
} from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { manualClock } from '../../testing/clock.js';
import { connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('the spec ticket fields (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  /** The typing list clears on this clock, moved by hand. */
  const clock = manualClock();
  beforeAll(async () => {
    s = await startTestServer(dialect, {}, { clock });
    call = apiClient(s.url);
    a = await signUpVia(call);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  const create = async (token: string, body: Record<string, unknown>) => {
    const r = await call('POST', '/api/ticket/create', { token, body });
    expect(r.status, r.text).toBe(200);
    return TicketCreateAnswer.parse(r.body).data;
  };
  const info = async (id: number, token = a.token) => {
    const r = await call('GET', `/ticket/info/me/${id}`, { token });
    expect(r.status, r.text).toBe(200);
    return TicketInfoAnswer.parse(r.body).data;
  };
  const listed = async (id: number, qs = '') => {
    const r = await call('GET', `/api/ticket/load/me/4/call2/0${qs}`, { token: a.token });
    expect(r.status, r.text).toBe(200);
    return TicketLoadAnswer.parse(r.body).data.find((t) => t.id === id);
  };

  it('TICKET-14 TICKET-15 TICKET-16 TICKET-17 a call logged by hand: call_direction, did and the opener in the list and info answers', async () => {
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const t = await create(agent.token, {
      title: 'Caller asks about delivery',
      channel: 'CALL',
      call_direction: 'outbound',
      did: '+60 3-1234 5678',
      phone: '+60123456789',
    });
    const want: Partial<TicketListItem> = {
      channel: 'CALL',
      call_direction: 'outbound',
      did: '+60 3-1234 5678',
      attachment: false,
      ref: '',
      receiver_email: '',
      emotion: '',
      emotion_2: {},
    };
    expect(t).toMatchObject(want);
    expect(await listed(t.id)).toMatchObject(want);
    const full = await info(t.id);
    expect(full).toMatchObject({ ...want, userId: agent.id, session_id: null, typing: [], default_chat: false });
    // A MANUAL ticket has no call fields, and the API refuses them on one.
    const manual = await create(a.token, { title: 'Walk-in' });
    expect(manual).toMatchObject({ channel: 'MANUAL', call_direction: '', did: '' });
    const before = (await db().selectFrom('tickets').select('id').execute()).length;
    for (const body of [
      { title: 'x', did: '123' },
      { title: 'x', call_direction: 'inbound' },
      { title: 'x', channel: 'CALL', call_direction: 'sideways' },
      { title: 'x', channel: 'CALL', did: 'call me' },
      { title: 'x', channel: 'EMAIL' },
    ]) {
      const r = await call('POST', '/api/ticket/create', { token: a.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const refused = await call('POST', '/api/ticket/create', { token: a.token, body: { title: 'x', did: '1' } });
    expect(refused.text).toContain(TICKET_CREATE_STRINGS.callFieldsWithoutCall);
    expect((await db().selectFrom('tickets').select('id').execute()).length).toBe(before);
  });

  it('TICKET-14 TICKET-15 stored fields reach both answers: emotion, emotion_2, ref, receiver_email, language, source_lang, encryption_method, default_chat, session_id', async () => {
    const t = await create(a.token, { title: 'Mail thread', channel: 'CALL' });
    await db()
      .updateTable('tickets')
      .set({
        ref: '<abc@mail.example>',
        receiver_email: 'help@acme.example',
        emotion: 'joy',
        emotion_2: JSON.stringify({ joy: 3, anger: 1 }),
        language: 'ms',
        source_lang: 'en',
        encryption_method: 'aes',
        default_chat: 1,
      })
      .where('id', '=', t.id)
      .execute();
    const item = {
      ref: '<abc@mail.example>',
      receiver_email: 'help@acme.example',
      emotion: 'joy',
      emotion_2: { joy: 3, anger: 1 },
      encryption: true,
    };
    expect(await listed(t.id)).toMatchObject(item);
    expect(await info(t.id)).toMatchObject({
      ...item,
      language: 'ms',
      source_lang: 'en',
      encryption_method: 'aes',
      default_chat: true,
    });

    // A live chat's ticket answers its session.
    const lc = await create(a.token, { title: 'Visitor chat' });
    await db().updateTable('tickets').set({ channel: 'LIVECHAT' }).where('id', '=', lc.id).execute();
    const visitor = await db()
      .insertInto('livechat_visitors')
      .values({ account_id: a.accountId, csrf_hash: `h-${uniq()}`, created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('livechats')
      .values({
        account_id: a.accountId,
        visitor_id: Number(visitor.id),
        session_id: 4242,
        state: 'accepted',
        name: 'V',
        phone: '',
        email: '',
        message: 'hi',
        department_id: null,
        ticket_id: lc.id,
        queued_at: Date.now(),
        accepted_at: Date.now(),
        ended_at: null,
        offered_user_id: null,
        offered_at: null,
        rating: null,
        rated_at: null,
      })
      .execute();
    expect((await info(lc.id)).session_id).toBe(4242);
  });

  it('TICKET-14 TICKET-15 attachment: set by the first message with files, not by others', async () => {
    const withFile = await create(a.token, { title: 'Sends a photo' });
    const without = await create(a.token, { title: 'Only words' });
    const message = (ticketId: number, files: string) =>
      db()
        .insertInto('messages')
        .values({
          account_id: a.accountId,
          ticket_id: ticketId,
          type: 'text',
          message: 'hello',
          sender: 'visitor',
          client_id: null,
          created_at: Date.now(),
          files,
          reply_id: null,
          deleted_at: null,
          deleted_by: null,
          email_meta: null,
        })
        .execute();
    await message(without.id, '[]');
    await message(withFile.id, '[]');
    expect((await info(withFile.id)).attachment).toBe(false);
    await message(withFile.id, JSON.stringify([{ file: '/files/x/a.png', fileName: 'a.png', fileType: 'image/png' }]));
    await message(
      withFile.id,
      JSON.stringify([{ file: '/files/y/b.pdf', fileName: 'b.pdf', fileType: 'application/pdf' }]),
    );
    expect((await info(withFile.id)).attachment).toBe(true);
    expect((await info(without.id)).attachment).toBe(false);
    const r = await call('GET', '/api/ticket/load/me/4/ticket/0?field=title&fieldValue=Sends a photo', {
      token: a.token,
    });
    expect(TicketLoadAnswer.parse(r.body).data[0]).toMatchObject({ id: withFile.id, attachment: true });
  });

  it('TICKET-66 RT-11 RT-39 typing: who is typing now, from the sockets, cleared by removeTyping and after 5 s', async () => {
    const t = await create(a.token, { title: 'Typing here' });
    const agent = await addUserVia(call, a.token, { username: `typer-${uniq()}`, type: 'agent' });
    const b = await signUpVia(call);
    const so = await connectSocket(s.url, agent.token, opened);
    const outsider = await connectSocket(s.url, b.token, opened);
    // Typing in a ticket the socket has not joined counts for nothing. A second socket of the agent that
    // never joins types: its answer to a later call comes once it has been heard, and however late its
    // typing is handled, the socket is not in the room then either.
    const idle = await connectSocket(s.url, agent.token, opened);
    idle.emit('sendTyping', t.id);
    expect(await idle.emitWithAck('joinRoom', 0)).toMatchObject({ ok: false });
    expect((await info(t.id)).typing).toEqual([]);
    expect(await new Promise((r) => so.emit('joinRoom', t.id, r))).toEqual({ ok: true });
    // Another account's socket cannot join the room, so it cannot type there.
    expect(await new Promise((r) => outsider.emit('joinRoom', t.id, r))).toMatchObject({ ok: false });
    outsider.emit('sendTyping', t.id);
    so.emit('sendTyping', t.id);
    await waitFor(async () => (await info(t.id)).typing.length === 1, 'typing');
    expect((await info(t.id)).typing).toEqual([agent.username]);
    so.emit('removeTyping', t.id);
    await waitFor(async () => (await info(t.id)).typing.length === 0, 'removeTyping');
    // A keystroke keeps it 5 s; without another it clears by itself.
    const started = clock();
    so.emit('sendTyping', t.id);
    await waitFor(async () => (await info(t.id)).typing.length === 1, 'typing again');
    // Its clear falls due 5 s after the keystroke was handled, which was after `started`.
    clock.advance(Math.max(0, started + 4_000 - clock()));
    expect((await info(t.id)).typing).toEqual([agent.username]);
    clock.advance(TYPING_REMOTE_MS);
    await waitFor(async () => (await info(t.id)).typing.length === 0, 'typing to clear');
    expect(clock() - started).toBeGreaterThan(4_000);
  });
});
