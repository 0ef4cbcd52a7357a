import { LIVECHAT_STRINGS, type LiveChatOffer, type LiveChatQueue } from '@parley/contracts';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call } from '../../testing/api.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, flushSockets, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { sweepOffers } from './offering.js';

/**
 * Automatic offering's filters (department, plan limit), the scheduled sweep as the
 * server runs it, agents coming Online (status change or connect) and leaving it, and the plan limit on
 * accept at Pro. Every test has its own account; visitors come from their own (forwarded) addresses.
 */
describe.each(dialects)('live chat routing (%s)', (dialect) => {
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
  const agentSocket = (token: string) => connectSocket(server.url, token, opened as TestSocket[]);
  /** When the server's sweep task last took its lease. */
  const sweptSince = async () =>
    Number(
      (
        await db()
          .selectFrom('task_leases')
          .select('last_run_at')
          .where('name', '=', 'sweepLiveChatOffers')
          .executeTakeFirst()
      )?.last_run_at ?? 0,
    );
  const offersOf = (s: TestSocket) => {
    const got: LiveChatOffer[] = [];
    s.on('liveChatOffer', (e) => got.push(e.data));
    return got;
  };
  const chat = (accountId: number, name: string) =>
    db()
      .selectFrom('livechats')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
  const offeredTo = async (accountId: number, name: string) => {
    const c = await chat(accountId, name);
    return c.offered_user_id === null ? null : Number(c.offered_user_id);
  };
  const settings = (
    token: string,
    body: { auto_offer: boolean; department_id: number | null; offer_seconds: number },
  ) => call('POST', '/api/livechat/settings', { token, body });
  const department = async (accountId: number, name: string) =>
    Number(
      (
        await db()
          .insertInto('departments')
          .values({ account_id: accountId, name, created_at: Date.now() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );

  it('LIVECHAT-21 department filter: a chat for department A is never offered to an agent outside A, even one the order prefers', async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), 2);
    const a = await department(admin.accountId, 'A');
    // Agent 0 (the lower id: ties go to it) is outside A; agent 1 is in A.
    await db()
      .updateTable('users')
      .set({ departments: JSON.stringify([a]) })
      .where('id', '=', agents[1]!.id)
      .execute();
    const set = await settings(admin.token, { auto_offer: true, department_id: a, offer_seconds: 30 });
    expect(set.status, set.text).toBe(200);
    const s0 = await agentSocket(agents[0]!.token);
    const s1 = await agentSocket(agents[1]!.token);
    const to0 = offersOf(s0);
    const to1 = offersOf(s1);
    await queueVisitor(call, server.url, token, 'Dept', opened);
    expect((await chat(admin.accountId, 'Dept')).department_id).toBe(a);
    expect(await offeredTo(admin.accountId, 'Dept')).toBe(agents[1]!.id);
    await waitFor(() => to1.length === 1, 'the offer to the agent of A');
    expect(to1[0]).toMatchObject({ name: 'Dept', message: 'Hello from Dept' });
    // Agent 1 lets it time out, again and again: it starts over with agent 1, never agent 0.
    for (let i = 0; i < 3; i++) {
      await db()
        .updateTable('livechats')
        .set({ offered_at: Date.now() - 60_000 })
        .where('account_id', '=', admin.accountId)
        .where('name', '=', 'Dept')
        .execute();
      await waitFor(async () => (await chat(admin.accountId, 'Dept')).offered_at! > Date.now() - 30_000, 'sweep');
      expect(await offeredTo(admin.accountId, 'Dept')).toBe(agents[1]!.id);
    }
    // Agent 1 leaves A: nobody may have it.
    await db().updateTable('users').set({ departments: '[]' }).where('id', '=', agents[1]!.id).execute();
    await db()
      .updateTable('livechats')
      .set({ offered_at: Date.now() - 60_000 })
      .where('account_id', '=', admin.accountId)
      .execute();
    await waitFor(async () => (await offeredTo(admin.accountId, 'Dept')) === null, 'no one in A');
    await flushSockets(db(), admin.accountId, [s0]);
    expect(to0).toEqual([]);
    expect(await offeredTo(admin.accountId, 'Dept')).toBeNull();
  });

  it('LIVECHAT-21 LIVECHAT-22 plan-limit filter: an agent at the limit (Starter 5) is skipped; an agent coming Online by a status change is offered the waiting chat', async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), 2, 1);
    const s0 = await agentSocket(agents[0]!.token);
    for (let i = 0; i < 5; i++) await queueVisitor(call, server.url, token, `Full${i}`, opened);
    for (let i = 0; i < 5; i++) expect((await s0.emitWithAck('acceptLiveChat', null)).ok).toBe(true);
    // Agent 1 is Away (a chosen status): not a candidate.
    await db()
      .updateTable('users')
      .set({ second_status: 'AWAY', status_reason: 'Lunch' })
      .where('id', '=', agents[1]!.id)
      .execute();
    expect((await settings(admin.token, { auto_offer: true, department_id: null, offer_seconds: 30 })).status).toBe(
      200,
    );
    const to0 = offersOf(s0);
    await queueVisitor(call, server.url, token, 'Sixth', opened);
    // Agent 0 is ONLINE with the fewest (only) open chats, but at the limit: no offer.
    expect(await offeredTo(admin.accountId, 'Sixth')).toBeNull();
    // What the sweep (every second) would do, done here: still nobody.
    await sweepOffers(db());
    expect(await offeredTo(admin.accountId, 'Sixth')).toBeNull();
    await flushSockets(db(), admin.accountId, [s0]);
    expect(to0).toEqual([]);

    // Agent 1 comes back Online through the status menu's call: offered at once.
    const s1 = await agentSocket(agents[1]!.token);
    const to1 = offersOf(s1);
    const back = await call('POST', '/api/online_status/update', {
      token: agents[1]!.token,
      body: { status: 'ONLINE' },
    });
    expect(back.status, back.text).toBe(200);
    await waitFor(() => to1.length === 1, 'the offer after coming Online');
    expect(to1[0]).toMatchObject({ name: 'Sixth', message: 'Hello from Sixth' });
    expect(await offeredTo(admin.accountId, 'Sixth')).toBe(agents[1]!.id);
    const q = (await s1.emitWithAck('getLiveChatQueue')) as { ok: true } & LiveChatQueue;
    expect(q.queue[0]).toMatchObject({
      name: 'Sixth',
      offered_user_id: agents[1]!.id,
      offered_to: agents[1]!.username,
    });
    expect((q.queue[0]?.offer_expires_at ?? 0) - Date.now()).toBeGreaterThan(25_000);

    // Leaving Online gives the offer up: nobody else may have it, so it waits unoffered.
    const away = await call('POST', '/api/online_status/update', {
      token: agents[1]!.token,
      body: { status: 'BUSY', reason: 'Meeting' },
    });
    expect(away.status, away.text).toBe(200);
    await waitFor(async () => (await offeredTo(admin.accountId, 'Sixth')) === null, 'the offer given up');
    // Agent 0 ends a chat: a seat is free, and the chat is offered to agent 0.
    const running = await db()
      .selectFrom('livechats')
      .select('ticket_id')
      .where('account_id', '=', admin.accountId)
      .where('state', '=', 'chatting')
      .executeTakeFirstOrThrow();
    const end = await call('POST', '/api/livechat/end', { token: agents[0]!.token, body: { id: running.ticket_id } });
    expect(end.status, end.text).toBe(200);
    await waitFor(() => to0.length === 1, 'offered to agent 0 once below the limit');
    expect(await offeredTo(admin.accountId, 'Sixth')).toBe(agents[0]!.id);
  });

  it('LIVECHAT-21 an agent coming Online by connecting is offered what waits; switching offering off ends offers', async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), 1);
    await db().updateTable('users').set({ status: 'OFFLINE' }).where('id', '=', agents[0]!.id).execute();
    expect((await settings(admin.token, { auto_offer: true, department_id: null, offer_seconds: 30 })).status).toBe(
      200,
    );
    await queueVisitor(call, server.url, token, 'Early', opened);
    expect(await offeredTo(admin.accountId, 'Early')).toBeNull();
    // The socket connects: presence makes the agent Online, and the waiting chat is offered.
    // (Listening before connecting: the offer may come in the same frame as the first catch-up.)
    const s: TestSocket = io(server.url, {
      transports: ['websocket'],
      auth: { token: agents[0]!.token },
      reconnection: false,
      forceNew: true,
      autoConnect: false,
    });
    opened.push(s);
    const got = offersOf(s);
    s.connect();
    await waitFor(async () => (await offeredTo(admin.accountId, 'Early')) === agents[0]!.id, 'offered on connect');
    await waitFor(() => got.length === 1, 'liveChatOffer on connect');
    const queues: LiveChatQueue[] = [];
    s.on('liveChatQueue', (e) => queues.push(e.data));
    expect((await settings(admin.token, { auto_offer: false, department_id: null, offer_seconds: 30 })).status).toBe(
      200,
    );
    expect(await offeredTo(admin.accountId, 'Early')).toBeNull();
    await waitFor(() => queues.at(-1)?.queue[0]?.offered_user_id === null, 'the queue says so');
  });

  it('LIVECHAT-21 the scheduled sweep task (not a call from the test) moves an expired offer to the next agent', async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), 2);
    expect((await settings(admin.token, { auto_offer: true, department_id: null, offer_seconds: 5 })).status).toBe(200);
    const s1 = await agentSocket(agents[1]!.token);
    const to1 = offersOf(s1);
    await queueVisitor(call, server.url, token, 'Swept', opened);
    expect(await offeredTo(admin.accountId, 'Swept')).toBe(agents[0]!.id);
    // Still within its 5 s: the running server's task leaves it alone. Two of its runs start after the offer
    // (its lease row says when), so at least one has finished.
    const offered = Date.now();
    await waitFor(async () => (await sweptSince()) >= offered + 1_000, 'two runs of the sweep task');
    expect(await offeredTo(admin.accountId, 'Swept')).toBe(agents[0]!.id);
    // Past it (the offer made 6 s ago): the task, running every second, moves it on.
    await db()
      .updateTable('livechats')
      .set({ offered_at: Date.now() - 6_000 })
      .where('account_id', '=', admin.accountId)
      .execute();
    await waitFor(async () => (await offeredTo(admin.accountId, 'Swept')) === agents[1]!.id, 'the sweep task', 5_000);
    await waitFor(() => to1.length === 1, 'liveChatOffer to the next agent');
    expect(JSON.parse((await chat(admin.accountId, 'Swept')).skipped)).toEqual([agents[0]!.id]);
    const lease = await db()
      .selectFrom('task_leases')
      .selectAll()
      .where('name', '=', 'sweepLiveChatOffers')
      .executeTakeFirstOrThrow();
    expect(Number(lease.last_run_at)).toBeGreaterThan(Date.now() - 5_000);
  });

  it('LIVECHAT-21 LIVECHAT-22 at Pro (plan 3) one agent accepts 15 chats and the 16th is refused with the limit message', async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), 1, 3);
    for (let i = 0; i < 16; i++) await queueVisitor(call, server.url, token, `Pro${i}`, opened);
    const s = await agentSocket(agents[0]!.token);
    const answers = [];
    for (let i = 0; i < 16; i++) answers.push(await s.emitWithAck('acceptLiveChat', null));
    expect(answers.slice(0, 15).every((a) => a.ok)).toBe(true);
    expect(answers[15]).toEqual({ ok: false, error: LIVECHAT_STRINGS.limit(15, 3) });
    expect(answers[15]).toEqual({
      ok: false,
      error:
        "You have reached your plan's limit of 15 concurrent live chats. Enterprise has no limit: contact sales from the Plans page.",
    });
    const rows = await db().selectFrom('livechats').select('state').where('account_id', '=', admin.accountId).execute();
    expect(rows.filter((r) => r.state === 'chatting')).toHaveLength(15);
    expect(rows.filter((r) => r.state === 'queued')).toHaveLength(1);
    // Over HTTP (the web app's Take one) the same refusal, as a 409.
    const http = await call('POST', '/api/livechat/accept', { token: agents[0]!.token, body: { id: null } });
    expect(http.status).toBe(409);
    expect(http.body.description).toBe(LIVECHAT_STRINGS.limit(15, 3));
  });
});
