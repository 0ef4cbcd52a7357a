import { LIVECHAT_STRINGS, VISITOR_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { connectVisitor, form, liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, relayed, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { acceptLiveChat } from './commands/agent.js';
import { liveChatInfo, registerVisitor } from './commands/visitor.js';
import { sweepOffers } from './offering.js';

describe.each(dialects)('live chat (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const opened: { close(): void }[] = [];
  beforeAll(async () => {
    server = await startTestServer(dialect, { TRUST_PROXY: 'true' });
    call = apiClient(server.url);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await server?.stop();
  });

  const db = () => server.handle.db;
  /** A new account with `n` agents, all ONLINE, on a plan; its visitor token. */
  const account = (n: number, plan = 1) => liveChatAccount(call, db(), n, plan);
  const _online = async (admin: SignedUp, ids: number[]) =>
    ids.length > 0 &&
    db()
      .updateTable('users')
      .set({ status: 'ONLINE', second_status: '' })
      .where('account_id', '=', admin.accountId)
      .where('id', 'in', ids)
      .execute();
  const chats = (accountId: number) =>
    db().selectFrom('livechats').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  const agentSocket = async (token: string) => connectSocket(server.url, token, opened as TestSocket[]);

  it('VISITOR-11 VISITOR-13 VISITOR-14 VISITOR-35 info: forged token refused, noAgent, success with a csrf', async () => {
    const bad = await call('POST', '/api/livechat/info', { body: { token: 'forged-token' } });
    expect(bad.status).toBe(404);
    expect(bad.body.description).toBe(VISITOR_STRINGS.invalidLink);
    expect((await call('POST', '/api/livechat/info', { body: {} })).status).toBe(400);
    expect((await call('POST', '/api/livechat/info', { raw: '{"token":' })).status).toBe(400);

    const { admin, token } = await account(1);
    const ok = await call('POST', '/api/livechat/info', { body: { token } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ result: 'success', ticket_id: null, name: admin.company, queued: false });
    expect(ok.body.csrf).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // The same browser keeps its session.
    const again = await call('POST', '/api/livechat/info', { body: { token, csrf: ok.body.csrf } });
    expect(again.body.csrf).toBe(ok.body.csrf);

    await db().updateTable('users').set({ status: 'OFFLINE' }).where('account_id', '=', admin.accountId).execute();
    const none = await call('POST', '/api/livechat/info', { body: { token } });
    expect(none.body.result).toBe('noAgent');
  });

  it('RT-12 RT-15 RT-34 VISITOR-21 VISITOR-22 VISITOR-23 VISITOR-32 LIVECHAT-04 LIVECHAT-05 queue, Take one, numbers fall, register, messages both ways', async () => {
    const { admin, agents, token } = await account(1);
    const agent = await agentSocket(agents[0]!.token);
    const queues: number[] = [];
    agent.on('liveChatQueue', (e) => queues.push(e.data.count));
    const v1 = await queueVisitor(call, server.url, token, 'Vera', opened);
    const v2 = await queueVisitor(call, server.url, token, 'Walt', opened);
    expect([v1.queue, v2.queue]).toEqual([1, 2]);
    await waitFor(() => v2.places.at(-1) === 2, 'v2 place 2');
    const q = await agent.emitWithAck('getLiveChatQueue');
    expect(q).toMatchObject({ ok: true, count: 2 });
    await waitFor(() => queues.at(-1) === 2, 'liveChatQueue 2');

    const taken = await agent.emitWithAck('acceptLiveChat', null);
    expect(taken.ok).toBe(true);
    const ticketId = taken.ok ? taken.ticket_id : 0;
    await waitFor(() => v1.accepted[0] === ticketId, 'queueAccepted');
    await waitFor(() => v2.places.at(-1) === 1, 'v2 moves up to 1');
    await waitFor(() => queues.at(-1) === 1, 'liveChatQueue 1');
    const ticket = await db().selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirstOrThrow();
    expect(ticket).toMatchObject({
      channel: 'LIVECHAT',
      assignee: agents[0]!.username,
      name: 'Vera',
      account_id: admin.accountId,
    });

    const reg = await call('POST', '/api/livechat/register', {
      body: { _token: v1.csrf, token, title: 'Vera', name: 'Vera', email: 'v@x', phone: '1', des: 'Hello' },
    });
    expect(reg.status, reg.text).toBe(200);
    expect(reg.body).toEqual({ result: 'success', ticket_id: ticketId });
    const info = await call('POST', '/api/livechat/info', { body: { token, csrf: v1.csrf } });
    expect(info.body).toMatchObject({ result: 'success', ticket_id: ticketId });

    const got: string[] = [];
    v1.socket.on('newMessage', (e) => got.push(e.data.message.message));
    const sent = await v1.socket.emitWithAck('visitorMessage', {
      message: 'I need help',
      clientId: 'queue-abcdefghij',
    });
    expect(sent.ok).toBe(true);
    const twice = await v1.socket.emitWithAck('visitorMessage', {
      message: 'I need help',
      clientId: 'queue-abcdefghij',
    });
    expect(twice.ok && sent.ok && twice.data.id === sent.data.id).toBe(true);
    const a = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: ticketId, message: 'Hi Vera' },
    });
    expect(a.status, a.text).toBe(200);
    await waitFor(() => got.includes('Hi Vera'), 'agent message reaches the visitor');
    const msgs = await db()
      .selectFrom('messages')
      .selectAll()
      .where('ticket_id', '=', ticketId)
      .orderBy('id')
      .execute();
    expect(msgs.map((m) => [m.sender, m.message])).toEqual([
      ['visitor', 'Hello from Vera'],
      ['visitor', 'I need help'],
      [agents[0]!.username, 'Hi Vera'],
    ]);
    // The other visitor heard nothing of it.
    const h2 = await v2.socket.emitWithAck('visitorHistory');
    expect(h2).toMatchObject({ ok: true, data: [], state: 'queued' });
  });

  it('LIVECHAT-06 accept race: of 6 agents accepting one chat at once exactly one wins, the others are told', async () => {
    const { agents, token, admin } = await account(6);
    await queueVisitor(call, server.url, token, 'Race', opened);
    const [id] = (await chats(admin.accountId)).map((c) => Number(c.id));
    const sockets = await Promise.all(agents.map((a) => agentSocket(a.token)));
    const answers = await Promise.all(sockets.map((s) => s.emitWithAck('acceptLiveChat', id!)));
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok).map((a) => (a.ok ? '' : a.error))).toEqual(
      Array(5).fill(LIVECHAT_STRINGS.taken),
    );
    expect(
      await db().selectFrom('tickets').select('id').where('account_id', '=', admin.accountId).execute(),
    ).toHaveLength(1);
  });

  it('LIVECHAT-21 LIVECHAT-22 the plan limit (Starter 5) is enforced on accept, also for parallel accepts', async () => {
    const { agents, token, admin } = await account(1, 1);
    for (let i = 0; i < 8; i++) await queueVisitor(call, server.url, token, `Lim${i}`, opened);
    const s = await agentSocket(agents[0]!.token);
    const answers = await Promise.all(Array.from({ length: 8 }, () => s.emitWithAck('acceptLiveChat', null)));
    expect(answers.filter((a) => a.ok)).toHaveLength(5);
    expect(answers.filter((a) => !a.ok).every((a) => !a.ok && a.error === LIVECHAT_STRINGS.limit(5, 1))).toBe(true);
    const rows = await chats(admin.accountId);
    expect(rows.filter((r) => r.state === 'chatting')).toHaveLength(5);
    // Ending one frees a seat.
    const first = rows.find((r) => r.state === 'chatting')!;
    const end = await call('POST', '/api/livechat/end', {
      token: agents[0]!.token,
      body: { id: Number(first.ticket_id) },
    });
    expect(end.status, end.text).toBe(200);
    expect((await s.emitWithAck('acceptLiveChat', null)).ok).toBe(true);
  });

  it('RT-34 VISITOR-36..41 VISITOR-40 LIVECHAT-07 end then rate: validation strings, stored once, info moves to rating then closed', async () => {
    const { agents, token, admin } = await account(1);
    const v = await queueVisitor(call, server.url, token, 'Rita', opened);
    const ended: string[] = [];
    v.socket.on('liveChatEnded', (e) => ended.push(e.data.state));
    const s = await agentSocket(agents[0]!.token);
    const r = await s.emitWithAck('acceptLiveChat', null);
    const ticketId = r.ok ? r.ticket_id : 0;
    const early = await call('POST', '/api/livechat/rate', { body: { _token: v.csrf, token, rating: 5, reason: '' } });
    expect(early.status).toBe(409);
    expect((await call('POST', '/api/livechat/end', { token: agents[0]!.token, body: { id: ticketId } })).status).toBe(
      200,
    );
    await waitFor(() => ended[0] === 'ended', 'liveChatEnded to the visitor');
    expect((await call('POST', '/api/livechat/info', { body: { token, csrf: v.csrf } })).body.result).toBe('rating');

    const zero = await call('POST', '/api/livechat/rate', { body: { _token: v.csrf, token, rating: 0, reason: '' } });
    expect(zero.status).toBe(400);
    expect(zero.text).toContain(VISITOR_STRINGS.ratingRequired);
    const noReason = await call('POST', '/api/livechat/rate', {
      body: { _token: v.csrf, token, rating: 3, reason: ' ' },
    });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain(VISITOR_STRINGS.reasonRequired);
    const forged = await call('POST', '/api/livechat/rate', {
      body: { _token: 'forged', token, rating: 3, reason: 'x' },
    });
    expect(forged.status).toBe(403);
    const ok = await call('POST', '/api/livechat/rate', { body: { _token: v.csrf, token, rating: 3, reason: 'Slow' } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toEqual({ result: 'success', ticket_id: ticketId, rating: 3, reason: 'Slow' });
    const again = await call('POST', '/api/livechat/rate', { body: { _token: v.csrf, token, rating: 5, reason: '' } });
    expect(again.status).toBe(409);
    const row = (await chats(admin.accountId))[0]!;
    expect([row.rating, row.reason]).toEqual([3, 'Slow']);
    expect((await call('POST', '/api/livechat/info', { body: { token, csrf: v.csrf } })).body.result).toBe('closed');
    const list = await call('GET', '/api/livechat/list', { token: agents[0]!.token });
    expect(list.body.data[0].livechats[0]).toMatchObject({
      ticket_id: ticketId,
      state: 'ended',
      rating: 3,
      reason: 'Slow',
    });
    expect(list.body.data[0]).toMatchObject({ session_name: 'Rita', collapsed: true });
  });

  it('LIVECHAT-07 after a live chat has ended an agent message is refused with the reason and nothing is stored', async () => {
    const { agents, token } = await account(1);
    await queueVisitor(call, server.url, token, 'Nora', opened);
    const s = await agentSocket(agents[0]!.token);
    const r = await s.emitWithAck('acceptLiveChat', null);
    const ticketId = r.ok ? r.ticket_id : 0;
    const before = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: ticketId, message: 'While it runs' },
    });
    expect(before.status, before.text).toBe(200);
    const info = await call('GET', `/ticket/info/${agents[0]!.token}/${ticketId}`, {});
    expect(info.body.data.livechat_state).toBe('chatting');
    expect((await call('POST', '/api/livechat/end', { token: agents[0]!.token, body: { id: ticketId } })).status).toBe(
      200,
    );
    const count = async () =>
      Number(
        (
          await server.handle.db
            .selectFrom('messages')
            .select((e) => e.fn.countAll().as('n'))
            .where('ticket_id', '=', ticketId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const n = await count();
    const after = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: ticketId, message: 'Nobody will read this' },
    });
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({ code: 'LIVECHAT_ENDED', description: LIVECHAT_STRINGS.endedNoSend });
    const overSocket = await s.emitWithAck('newChatMessage', {
      ticket_id: ticketId,
      message: 'Nor this',
      type: 'text',
    });
    expect(overSocket).toMatchObject({ ok: false });
    expect(await count()).toBe(n);
    const ended = await call('GET', `/ticket/info/${agents[0]!.token}/${ticketId}`, {});
    expect(ended.body.data.livechat_state).toBe('ended');
  });

  it('PLAN-16 PLAN-21 converting a live chat to a ticket comes with Basic: on Starter refused with the way up, nothing changes', async () => {
    const { agents, token, admin } = await account(1, 1);
    await queueVisitor(call, server.url, token, 'Stan', opened);
    const s = await agentSocket(agents[0]!.token);
    const a = await s.emitWithAck('acceptLiveChat', null);
    const ticketId = a.ok ? a.ticket_id : 0;
    const ticket = () =>
      db().selectFrom('tickets').select(['channel', 'closed']).where('id', '=', ticketId).executeTakeFirstOrThrow();
    const messages = async () =>
      (await db().selectFrom('messages').select('id').where('ticket_id', '=', ticketId).execute()).length;
    const before = { ticket: await ticket(), messages: await messages() };
    // A chat that is not this account's is not found, before any word on the plan.
    const none = await call('POST', '/api/livechat/convert', { token: agents[0]!.token, body: { id: 999_999_999 } });
    expect(none.status).toBe(404);
    const r = await call('POST', '/api/livechat/convert', { token: agents[0]!.token, body: { id: ticketId } });
    expect(r.status).toBe(403);
    expect(r.body.description).toBe(
      'Converting a live chat to a ticket comes with the Basic plan and up: upgrade on the Plans page.',
    );
    expect((await chats(admin.accountId)).map((c) => c.state)).toEqual(['chatting']);
    expect({ ticket: await ticket(), messages: await messages() }).toEqual(before);
    // On Basic the same chat converts.
    await db().updateTable('accounts').set({ plan: 2 }).where('id', '=', admin.accountId).execute();
    const ok = await call('POST', '/api/livechat/convert', { token: agents[0]!.token, body: { id: ticketId } });
    expect(ok.status, ok.text).toBe(200);
    expect((await chats(admin.accountId)).map((c) => c.state)).toEqual(['converted']);
    expect((await ticket()).channel).toBe('MANUAL');
  });

  it('RT-35 VISITOR-16 LIVECHAT-09 LIVECHAT-11 LIVECHAT-14 convert, merge (livechat.merged), participant removal', async () => {
    // Converting comes with Basic (PLAN-21).
    const { agents, token, admin } = await account(1, 2);
    const v1 = await queueVisitor(call, server.url, token, 'Cora', opened);
    const v2 = await queueVisitor(call, server.url, token, 'Cora again', opened);
    const s = await agentSocket(agents[0]!.token);
    const removed: number[] = [];
    s.on('removeLiveChat', (e) => removed.push(e.data.ticket_id));
    const a = await s.emitWithAck('acceptLiveChat', null);
    const b = await s.emitWithAck('acceptLiveChat', null);
    const t1 = a.ok ? a.ticket_id : 0;
    const t2 = b.ok ? b.ticket_id : 0;
    expect((await call('POST', '/api/livechat/convert', { token: agents[0]!.token, body: { id: t1 } })).status).toBe(
      200,
    );
    expect((await call('POST', '/api/livechat/info', { body: { token, csrf: v1.csrf } })).body.result).toBe(
      'converted',
    );
    const [c1, c2] = await chats(admin.accountId);
    const m = await call('POST', '/api/livechat/merge', {
      token: agents[0]!.token,
      body: { session_id: Number(c1!.session_id), ref_id: Number(c2!.session_id) },
    });
    expect(m.status, m.text).toBe(200);
    const ev = await db()
      .selectFrom('events')
      .select(['payload'])
      .where('type', '=', 'livechat.merged')
      .where('account_id', '=', admin.accountId)
      .execute();
    expect(JSON.parse(ev[0]!.payload)).toMatchObject({
      ticket_id: t2,
      session_id: Number(c1!.session_id),
      ref_id: Number(c2!.session_id),
    });
    const list = await call('GET', '/api/livechat/list', { token: admin.token });
    expect(list.body.count).toBe(1);
    expect(list.body.data[0].livechats).toHaveLength(2);
    // An agent cannot remove someone else; an admin can; the removed agent is told.
    const other = await addUserVia(call, admin.token, { username: `o-${uniq()}`, type: 'agent' });
    expect(
      (
        await call('POST', '/api/livechat/remove', {
          token: other.token,
          body: { id: t2, username: agents[0]!.username },
        })
      ).status,
    ).toBe(403);
    const r = await call('POST', '/api/livechat/remove', {
      token: admin.token,
      body: { id: t2, username: agents[0]!.username },
    });
    expect(r.status, r.text).toBe(200);
    await waitFor(() => removed.includes(t2), 'removeLiveChat');
    void v2;
  });

  it('VISITOR-01 visitor isolation: forged csrf refused, another chat is never reachable, no notes, 100 kB message refused', async () => {
    const { admin, agents, token } = await account(1);
    const v1 = await queueVisitor(call, server.url, token, 'Iso', opened);
    const v2 = await queueVisitor(call, server.url, token, 'Other', opened);
    await expect(connectVisitor(server.url, token, 'forged-csrf', opened)).rejects.toThrow();
    await expect(connectVisitor(server.url, 'forged-token', v1.csrf, opened)).rejects.toThrow();
    // Another visitor's csrf in registerQueue is refused on this socket.
    const cross = await v1.socket.emitWithAck('registerQueue', { token, csrf: v2.csrf, ...form('x') });
    expect(cross.ok).toBe(false);
    const s = await agentSocket(agents[0]!.token);
    const a = await s.emitWithAck('acceptLiveChat', null);
    const t1 = a.ok ? a.ticket_id : 0;
    const seen2: unknown[] = [];
    v2.socket.onAny((name, e) => seen2.push([name, e]));
    const seen1: string[] = [];
    v1.socket.on('newMessage', (e) => seen1.push(e.data.message.message));
    const big = await v1.socket.emitWithAck('visitorMessage', { message: 'x'.repeat(100_000) });
    expect(big.ok).toBe(false);
    const sent = await call('POST', '/api/ticket/message', {
      token: agents[0]!.token,
      body: { ticket_id: t1, message: 'secret for Iso' },
    });
    expect(sent.status).toBe(200);
    const note = await call('POST', '/api/ticket/note/add', {
      token: agents[0]!.token,
      body: { ticket_id: t1, message_id: sent.body.data.id, text: 'internal' },
    });
    expect(note.status, note.text).toBe(200);
    await waitFor(() => seen1.includes('secret for Iso'), 'message to v1');
    // Everything the relay was to write to v2's socket is written; v2's answer to a later call comes after it.
    await relayed(db(), admin.accountId);
    await v2.socket.emitWithAck('visitorHistory');
    expect(JSON.stringify(seen2)).not.toContain('secret for Iso');
    expect(seen2.filter((x) => (x as [string])[0] !== 'queueNumber')).toEqual([]);
    // A message from a visitor who is only queued is refused.
    expect((await v2.socket.emitWithAck('visitorMessage', { message: 'hi' })).ok).toBe(false);
  });

  it('VISITOR-01 rate limits: 50 registers a second from one IP are cut off; messages are limited per visitor; the rest works', async () => {
    const { agents, token } = await account(1);
    const v = await queueVisitor(call, server.url, token, 'Rate', opened);
    const s = await agentSocket(agents[0]!.token);
    await s.emitWithAck('acceptLiveChat', null);
    // The flood comes from an address of its own (the server trusts X-Forwarded-For here), so the other
    // tests' visitors, all from 127.0.0.1, keep their budget.
    const flood = { 'x-forwarded-for': '203.0.113.50' };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => call('POST', '/api/livechat/info', { body: { token }, headers: flood })),
    );
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    const msgs = await Promise.all(
      Array.from({ length: 30 }, (_, i) => v.socket.emitWithAck('visitorMessage', { message: `m${i}` })),
    );
    expect(msgs.filter((m) => m.ok)).toHaveLength(20);
    expect(msgs.filter((m) => !m.ok).every((m) => !m.ok && m.error === VISITOR_STRINGS.tooFast)).toBe(true);
    // Signed-in users are unaffected.
    expect((await call('GET', '/api/livechat/list', { token: agents[0]!.token })).status).toBe(200);
  });

  it('VISITOR-19 VISITOR-29 VISITOR-32 offline message (api=false) and empty fields refused with nothing stored', async () => {
    const { admin, token } = await account(0);
    const info = await call('POST', '/api/livechat/info', { body: { token } });
    expect(info.body.result).toBe('noAgent');
    const body = { _token: info.body.csrf, token, title: 'Off', name: 'Off', email: 'o@x', phone: '1', des: 'Call me' };
    const empty = await call('POST', '/api/livechat/register?api=false', { body: { ...body, phone: ' ' } });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain(VISITOR_STRINGS.empty);
    const ok = await call('POST', '/api/livechat/register?api=false', { body });
    expect(ok.status, ok.text).toBe(200);
    const t = await db().selectFrom('tickets').selectAll().where('account_id', '=', admin.accountId).execute();
    expect(t.map((x) => [x.channel, x.title, x.phone])).toEqual([['MANUAL', 'Off', '1']]);
  });
  it('LIVECHAT-21 automatic offering: fewest open chats first, skipped after the set time, Take one leaves offered chats', async () => {
    const { admin, agents, token } = await account(3);
    // agent 0 already has a chat; agent 2 is not ONLINE.
    await queueVisitor(call, server.url, token, 'Busy', opened);
    const s0 = await agentSocket(agents[0]!.token);
    expect((await s0.emitWithAck('acceptLiveChat', null)).ok).toBe(true);
    await db().updateTable('users').set({ status: 'OFFLINE' }).where('id', '=', agents[2]!.id).execute();
    const set = await call('POST', '/api/livechat/settings', {
      token: admin.token,
      body: { auto_offer: true, department_id: null, offer_seconds: 30 },
    });
    expect(set.status, set.text).toBe(200);
    expect(
      (
        await call('POST', '/api/livechat/settings', {
          token: admin.token,
          body: { auto_offer: true, department_id: null, offer_seconds: 1 },
        })
      ).status,
    ).toBe(400);
    const s1 = await agentSocket(agents[1]!.token);
    const offers1: number[] = [];
    s1.on('liveChatOffer', (e) => offers1.push(e.data.livechat_id));
    await queueVisitor(call, server.url, token, 'Auto', opened);
    const offeredTo = async () => {
      const rows = await chats(admin.accountId);
      return rows.find((r) => r.name === 'Auto')!.offered_user_id;
    };
    // agent 1 has the fewest open chats (the admin and agent 2 are not ONLINE).
    expect(Number(await offeredTo())).toBe(agents[1]!.id);
    await waitFor(() => offers1.length === 1, 'liveChatOffer to agent 1');
    // Take one by agent 0 does not take a chat offered to someone else.
    const t = await s0.emitWithAck('acceptLiveChat', null);
    expect(t.ok ? '' : t.error).toBe(LIVECHAT_STRINGS.queueEmpty);
    // Not yet timed out: nothing moves.
    expect(await sweepOffers(db(), Date.now() + 5_000)).toBe(0);
    // Not accepted in time: skipped, offered to the next (agent 0, even with a chat, is below the limit).
    expect(await sweepOffers(db(), Date.now() + 31_000)).toBe(1);
    expect(Number(await offeredTo())).toBe(agents[0]!.id);
    // Everyone skipped it: it starts over.
    expect(await sweepOffers(db(), Date.now() + 62_000)).toBe(1);
    expect(Number(await offeredTo())).toBe(agents[1]!.id);
    // The offered agent accepts it.
    expect((await s1.emitWithAck('acceptLiveChat', offers1[0]!)).ok).toBe(true);
  });

  it('LIVECHAT-12 LIVECHAT-13 LIVECHAT-19 LIVECHAT-20 a group holds exactly session_id, session_name, sessions, livechats (ticket items), ts, collapsed; collapsed once no chat runs; /api/session/info answers it', async () => {
    const { admin, agents, token } = await account(1);
    await queueVisitor(call, server.url, token, 'Gina', opened);
    const s = await agentSocket(agents[0]!.token);
    const a = await s.emitWithAck('acceptLiveChat', null);
    const ticketId = a.ok ? a.ticket_id : 0;
    const ticket = await db().selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirstOrThrow();
    const [chat] = await chats(admin.accountId);
    const sessionId = Number(chat!.session_id);

    const list = await call('GET', '/api/livechat/list', { token: agents[0]!.token });
    expect(list.status, list.text).toBe(200);
    const group = list.body.data[0];
    expect(Object.keys(group).sort()).toEqual([
      'collapsed',
      'livechats',
      'session_id',
      'session_name',
      'sessions',
      'ts',
    ]);
    expect(group).toMatchObject({
      session_id: sessionId,
      session_name: 'Gina',
      sessions: [sessionId],
      collapsed: false,
    });
    expect(group.ts).toBe(Math.floor(Number(ticket.updated_at) / 1000));
    // Each item is the chat's ticket.
    expect(group.livechats).toEqual([
      {
        id: Number(chat!.id),
        ticket_id: ticketId,
        ticket_number: Number(ticket.ticket_number),
        title: ticket.title,
        name: 'Gina',
        state: 'chatting',
        agent: agents[0]!.username,
        ts: Math.floor(Number(ticket.updated_at) / 1000),
        rating: null,
        reason: '',
      },
    ]);

    // LIVECHAT-19: `_token` and `session_id`; the answer is the group as in the list (LIVECHAT-20).
    const info = await call('GET', `/api/session/info?_token=${agents[0]!.token}&session_id=${sessionId}`, {
      token: agents[0]!.token,
    });
    expect(info.status, info.text).toBe(200);
    expect(info.body).toEqual({ result: 'success', data: group });
    expect((await call('GET', '/api/session/info', { token: agents[0]!.token })).status).toBe(400);
    expect((await call('GET', `/api/session/info?session_id=${sessionId}`)).status).toBe(401);
    const stranger = await signUpVia(call);
    expect((await call('GET', `/api/session/info?session_id=${sessionId}`, { token: stranger.token })).status).toBe(
      404,
    );

    // LIVECHAT-13: no chat of the group runs any more: collapsed.
    const end = await call('POST', '/api/livechat/end', { token: agents[0]!.token, body: { id: ticketId } });
    expect(end.status, end.text).toBe(200);
    const after = await call('GET', '/api/livechat/list', { token: agents[0]!.token });
    expect(after.body.data[0]).toMatchObject({ session_id: sessionId, collapsed: true });
    expect(after.body.data[0].livechats[0].state).toBe('ended');
    const infoAfter = await call('GET', `/api/session/info?session_id=${sessionId}`, { token: agents[0]!.token });
    expect(infoAfter.body.data).toEqual(after.body.data[0]);
  });

  it('LIVECHAT-02 LIVECHAT-19 31 visitor sessions: the list answers 30 a page newest first with the whole count (Show More asks offset 30); session/info finds a session beyond the first page', async () => {
    const { admin, token } = await account(0);
    // Messages left with nobody Online (the commands themselves: 62 HTTP calls would meet the IP limit).
    for (let i = 0; i < 31; i++) {
      const info = await liveChatInfo(db(), token, undefined);
      await registerVisitor(
        db(),
        conversationRules(),
        { _token: info.csrf, token, title: `S${i}`, name: `S${i}`, email: 's@x', phone: '1', des: `m${i}` },
        true,
      );
    }
    const first = await call('GET', '/api/livechat/list?offset=0', { token: admin.token });
    expect(first.status, first.text).toBe(200);
    expect(first.body.count).toBe(31);
    expect(first.body.data).toHaveLength(30);
    expect(first.body.data[0].session_name).toBe('S30');
    expect(first.body.data[29].session_name).toBe('S1');
    const more = await call('GET', '/api/livechat/list?offset=30', { token: admin.token });
    expect(more.body.count).toBe(31);
    expect(more.body.data.map((g: { session_name: string }) => g.session_name)).toEqual(['S0']);
    const oldest = more.body.data[0];
    const info = await call('GET', `/api/session/info?session_id=${oldest.session_id}`, { token: admin.token });
    expect(info.status, info.text).toBe(200);
    expect(info.body.data).toEqual(oldest);
  });

  it('LIVECHAT-05 LIVECHAT-06 Take one by many agents at once walks past chats others won: every agent gets its own chat, none twice', async () => {
    const AGENTS = 16;
    const { admin, agents } = await account(AGENTS, 4);
    const queued: number[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const visitor = await db()
        .insertInto('livechat_visitors')
        .values({ account_id: admin.accountId, csrf_hash: `h-${uniq()}`, created_at: Date.now() })
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = await db()
        .insertInto('livechats')
        .values({
          account_id: admin.accountId,
          visitor_id: Number(visitor.id),
          session_id: Number(visitor.id),
          state: 'queued',
          name: `Walk${i}`,
          phone: '',
          email: '',
          ic: '',
          message: 'hello',
          department_id: null,
          queued_at: Date.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      queued.push(Number(row.id));
    }
    // A window of 2: an agent whose two candidates go to others meanwhile must read on, not answer "taken".
    const who = (a: (typeof agents)[number]) => ({
      accountId: admin.accountId,
      userId: a.id,
      username: a.username,
      name: a.username,
      type: 'agent' as const,
    });
    const answers = await Promise.all(agents.map((a) => acceptLiveChat(db(), conversationRules(), who(a), null, 2)));
    expect(answers.filter((r) => !r.ok)).toEqual([]);
    const won = answers.map((r) => (r.ok ? r.livechat_id : 0)).sort((x, y) => x - y);
    expect(won).toEqual(queued);
    const rows = await chats(admin.accountId);
    expect(new Set(rows.map((r) => r.agent)).size).toBe(AGENTS);
    expect(rows.every((r) => r.state === 'chatting' && r.ticket_id !== null)).toBe(true);
    // Nothing left: the next Take one says so.
    expect(await acceptLiveChat(db(), conversationRules(), who(agents[0]!), null, 2)).toEqual({
      ok: false,
      error: LIVECHAT_STRINGS.queueEmpty,
    });
  });

  it('LIVECHAT-23 an accepted live chat loads with /ticket/load/... type livechat, and not with type ticket', async () => {
    const { admin, agents, token } = await account(1);
    await queueVisitor(call, server.url, token, 'Lena', opened);
    const s = await agentSocket(agents[0]!.token);
    const a = await s.emitWithAck('acceptLiveChat', null);
    const ticketId = a.ok ? a.ticket_id : 0;
    const ids = async (path: string) => {
      const r = await call('GET', path, { token: admin.token });
      expect(r.status, `${path} ${r.text}`).toBe(200);
      return (r.body.data as { id: number; channel: string }[]).map((t) => [t.id, t.channel]);
    };
    for (const prefix of ['', '/api']) {
      expect(await ids(`${prefix}/ticket/load/${admin.token}/all/livechat/0`)).toEqual([[ticketId, 'LIVECHAT']]);
      expect(await ids(`${prefix}/ticket/load/${admin.token}/all/ticket/0`)).toEqual([]);
    }
    const mine = await call('GET', `/ticket/load/${agents[0]!.token}/all/livechat/0`, { token: agents[0]!.token });
    expect(mine.body.data.map((t: { id: number }) => t.id)).toEqual([ticketId]);
  });

  it('VISITOR-28 VISITOR-30 VISITOR-39 no format check on email or phone; the optional ic is kept; 5 stars need no reason', async () => {
    const { admin, agents, token } = await account(1);
    const info = await call('POST', '/api/livechat/info', { body: { token } });
    const csrf = info.body.csrf as string;
    const v = await connectVisitor(server.url, token, csrf, opened);
    const odd = { name: 'Odd', phone: 'call me maybe', email: 'not an email', message: 'Hi there', ic: 'IC-42' };
    const q = await v.emitWithAck('registerQueue', { token, csrf, ...odd });
    expect(q.ok).toBe(true);
    // Without ic it works too.
    const plain = await queueVisitor(call, server.url, token, 'Plain', opened);
    const s = await agentSocket(agents[0]!.token);
    const a = await s.emitWithAck('acceptLiveChat', null);
    const b = await s.emitWithAck('acceptLiveChat', null);
    const ticketId = a.ok ? a.ticket_id : 0;
    const plainId = b.ok ? b.ticket_id : 0;
    const ticket = await db().selectFrom('tickets').selectAll().where('id', '=', ticketId).executeTakeFirstOrThrow();
    expect([ticket.name, ticket.email, ticket.phone]).toEqual(['Odd', 'not an email', 'call me maybe']);
    expect(JSON.parse(ticket.other)).toMatchObject({ ic: 'IC-42' });
    const plainTicket = await db()
      .selectFrom('tickets')
      .selectAll()
      .where('id', '=', plainId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(plainTicket.other)).not.toHaveProperty('ic');
    expect((await chats(admin.accountId)).map((c) => c.ic)).toEqual(['IC-42', '']);
    // The register call takes the same values.
    const reg = await call('POST', '/api/livechat/register', {
      body: {
        _token: csrf,
        token,
        title: 'Odd',
        name: 'Odd',
        email: 'not an email',
        phone: 'call me maybe',
        des: 'Hi',
        ic: 'IC-42',
      },
    });
    expect(reg.status, reg.text).toBe(200);
    expect(reg.body).toEqual({ result: 'success', ticket_id: ticketId });

    // VISITOR-39: at 5 stars the reason may be empty (below 5 it may not).
    for (const id of [ticketId, plainId])
      expect((await call('POST', '/api/livechat/end', { token: agents[0]!.token, body: { id } })).status).toBe(200);
    const four = await call('POST', '/api/livechat/rate', {
      body: { _token: plain.csrf, token, rating: 4, reason: '' },
    });
    expect(four.status).toBe(400);
    const five = await call('POST', '/api/livechat/rate', { body: { _token: csrf, token, rating: 5, reason: '' } });
    expect(five.status, five.text).toBe(200);
    expect(five.body).toEqual({ result: 'success', ticket_id: ticketId, rating: 5, reason: '' });
    const noReason = await call('POST', '/api/livechat/rate', { body: { _token: plain.csrf, token, rating: 5 } });
    expect(noReason.status, noReason.text).toBe(200);
    expect((await chats(admin.accountId)).map((c) => [c.rating, c.reason])).toEqual([
      [5, ''],
      [5, ''],
    ]);
  });
});
