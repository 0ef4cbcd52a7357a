import { type Message, newQueueId } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { queueVisitor } from '../../testing/livechat.js';
import { insertTicket } from '../../testing/messages.js';
import { connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Calls and socket events of conversations not covered by messages.test.ts. */
describe.each(dialects)('conversation calls (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  const ticketOf = (accountId: number, channel: string, lastMessageAt = 0) =>
    insertTicket(db(), accountId, { channel, title: 'Help', lastMessageAt });
  const send = (token: string, body: Record<string, unknown>) => call('POST', '/api/ticket/message', { token, body });
  const stored = async (ticketId: number) =>
    db().selectFrom('messages').select(['id', 'client_id']).where('ticket_id', '=', ticketId).execute();

  it('RT-19 RT-09 refreshLiveChatUnreadCount answers how many live chats the user has unread; reading one lowers it', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `a-${uniq()}`, type: 'agent' });
    const now = Date.now();
    const chatA = await ticketOf(admin.accountId, 'LIVECHAT', now);
    const chatB = await ticketOf(admin.accountId, 'livechat', now);
    await ticketOf(admin.accountId, 'EMAIL', now); // a ticket, not a live chat
    await ticketOf(admin.accountId, 'LIVECHAT', 0); // no visitor message yet
    const other = await signUpVia(call);
    await ticketOf(other.accountId, 'LIVECHAT', now); // another account's
    const sock = await connectSocket(s.url, agent.token, opened);
    expect(await sock.emitWithAck('refreshLiveChatUnreadCount')).toEqual({ ok: true, unread: 2 });
    expect((await call('POST', '/api/ticket/read', { token: agent.token, body: { id: chatA } })).status).toBe(200);
    expect(await sock.emitWithAck('refreshLiveChatUnreadCount')).toEqual({ ok: true, unread: 1 });
    // RT-09: a read receipt acks once it is stored, so a count asked after it counts it.
    expect(await sock.emitWithAck('readMessage', { ticketId: chatB, messageId: 1 })).toEqual({ ok: true });
    expect(await sock.emitWithAck('refreshLiveChatUnreadCount')).toEqual({ ok: true, unread: 0 });
    // Per user: the admin has read nothing.
    const adminSock = await connectSocket(s.url, admin.token, opened);
    expect(await adminSock.emitWithAck('refreshLiveChatUnreadCount')).toEqual({ ok: true, unread: 2 });
  });

  it('RT-09 readMessage2 in a Workspace chat reaches the other member as readMessage2 and marks the chat read', async () => {
    const admin = await signUpVia(call);
    const ann = await addUserVia(call, admin.token, { username: `ann-${uniq()}`, type: 'agent', name: 'Ann' });
    const bob = await addUserVia(call, admin.token, { username: `bob-${uniq()}`, type: 'agent', name: 'Bob' });
    const created = await call('POST', '/api/chat/create', { token: ann.token, body: { members: [bob.id] } });
    const chatId = created.body.data.id as number;
    const msg = await send(bob.token, { ticket_id: chatId, message: 'Lunch?' });
    const annSock = await connectSocket(s.url, ann.token, opened);
    const bobSock = await connectSocket(s.url, bob.token, opened);
    expect(await annSock.emitWithAck('joinChat', chatId)).toEqual({ ok: true });
    expect(await bobSock.emitWithAck('joinChat', chatId)).toEqual({ ok: true });
    const got: { name: string; e: unknown }[] = [];
    bobSock.on('readMessage2', (e) => got.push({ name: 'readMessage2', e }));
    bobSock.on('readMessage', (e) => got.push({ name: 'readMessage', e }));
    const before = await call('GET', '/api/chat/list', { token: ann.token });
    expect(before.body.data[0].unread).toBe(1);
    annSock.emit('readMessage2', { ticketId: chatId, messageId: msg.body.data.id });
    await waitFor(() => got.length === 1, 'the read receipt');
    expect(got[0]).toEqual({
      name: 'readMessage2',
      e: { ticketId: chatId, username: ann.username, messageId: msg.body.data.id, ts: expect.any(Number) },
    });
    const after = await call('GET', '/api/chat/list', { token: ann.token });
    expect(after.body.data[0].unread).toBe(0);
    // A non-member's readMessage2 goes nowhere.
    const cy = await addUserVia(call, admin.token, { username: `cy-${uniq()}`, type: 'agent' });
    const cySock = await connectSocket(s.url, cy.token, opened);
    // Its answer comes once the handler is done, so anything it passed on has been written to Bob's socket;
    // Bob's answer to a later call comes after that.
    expect(await cySock.emitWithAck('readMessage2', { ticketId: chatId, messageId: msg.body.data.id })).toEqual({
      ok: false,
    });
    expect(await bobSock.emitWithAck('refreshLiveChatUnreadCount')).toMatchObject({ ok: true });
    expect(got).toHaveLength(1);
  });

  it('RT-40 RT-41 GET /event/{id} lists a live chat merge as merge_session after that event id', async () => {
    const admin = await signUpVia(call);
    await db().updateTable('accounts').set({ plan: 1 }).where('id', '=', admin.accountId).execute();
    const agent = await addUserVia(call, admin.token, { username: `lc-${uniq()}`, type: 'agent' });
    await db().updateTable('users').set({ status: 'ONLINE', second_status: '' }).where('id', '=', agent.id).execute();
    const settings = await call('GET', '/api/livechat/settings', { token: admin.token });
    const token = settings.body.data.token as string;
    const visitors: { close(): void }[] = [];
    try {
      await queueVisitor(call, s.url, token, 'Cora', visitors);
      await queueVisitor(call, s.url, token, 'Cora again', visitors);
      const sock = await connectSocket(s.url, agent.token, opened);
      const a = await sock.emitWithAck('acceptLiveChat', null);
      const b = await sock.emitWithAck('acceptLiveChat', null);
      expect([a.ok, b.ok]).toEqual([true, true]);
      const chats = await db()
        .selectFrom('livechats')
        .select(['session_id', 'ticket_id'])
        .where('account_id', '=', admin.accountId)
        .orderBy('id')
        .execute();
      const [target, merged] = chats.map((c) => ({ session: Number(c.session_id), ticket: Number(c.ticket_id) }));
      const from = (await call('GET', '/event/0', { token: agent.token })).body.head as number;
      const m = await call('POST', '/api/livechat/merge', {
        token: agent.token,
        body: { session_id: target!.session, ref_id: merged!.session },
      });
      expect(m.status, m.text).toBe(200);
      const events = await call('GET', `/event/${from}`, { token: agent.token });
      expect(events.status).toBe(200);
      expect(events.body.data).toEqual([
        {
          id: expect.any(Number),
          action: 'merge_session',
          ref_id: merged!.session,
          ticket_id: merged!.ticket,
          session_id: target!.session,
        },
      ]);
      expect(events.body.data[0].id).toBeGreaterThan(from);
      expect(events.body.head).toBeGreaterThanOrEqual(events.body.data[0].id);
      // After the merge's own id, nothing.
      const later = await call('GET', `/event/${events.body.data[0].id}`, { token: agent.token });
      expect(later.body.data).toEqual([]);
      // Another account sees none of it.
      const stranger = await signUpVia(call);
      expect((await call('GET', `/event/${from}`, { token: stranger.token })).body.data).toEqual([]);
    } finally {
      for (const v of visitors) v.close();
    }
  });

  it('MSG-09 MSG-10 the same queue- id sent at the same moment, over HTTP and the socket, stores one message', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `q-${uniq()}`, type: 'agent' });
    const ticket = await ticketOf(admin.accountId, 'EMAIL');
    const sock = await connectSocket(s.url, agent.token, opened);
    for (let round = 0; round < 3; round++) {
      const client_id = newQueueId();
      const body = { ticket_id: ticket, message: `once ${round}`, type: 'text', client_id };
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, () => send(agent.token, body).then((r) => r.body.data as Message)),
        sock.emitWithAck('newChatMessage', body).then((r) => (r.ok ? r.data : null)),
      ]);
      const ids = new Set(answers.map((a) => a?.id));
      expect(ids.size, JSON.stringify(answers)).toBe(1);
      expect([...ids][0]).toEqual(expect.any(Number));
      expect((await stored(ticket)).filter((m) => m.client_id === client_id)).toHaveLength(1);
    }
    expect(await stored(ticket)).toHaveLength(3);
  });

  it('MSG-38 /ticket/data/{id}/{count} with count > 0 skips the newest count messages; the answer names the channel', async () => {
    const admin = await signUpVia(call);
    const ticket = await ticketOf(admin.accountId, 'WHATSAPP');
    for (let i = 1; i <= 70; i++)
      expect((await send(admin.token, { ticket_id: ticket, message: `m${i}` })).status).toBe(200);
    const page = async (count: number) => {
      const r = await call('GET', `/ticket/data/${ticket}/${count}`, { token: admin.token });
      expect(r.status, r.text).toBe(200);
      return r.body as { data: Message[]; count: number; more: boolean; channel: string };
    };
    const newest = await page(0);
    expect(newest.channel).toBe('WHATSAPP');
    const second = await page(30);
    expect(second.data.map((m) => m.message)).toEqual(Array.from({ length: 30 }, (_, i) => `m${11 + i}`));
    expect([second.count, second.more]).toEqual([70, true]);
    const third = await page(60);
    expect(third.data.map((m) => m.message)).toEqual(Array.from({ length: 10 }, (_, i) => `m${1 + i}`));
    expect(third.more).toBe(false);
    const beyond = await page(90);
    expect([beyond.data, beyond.more]).toEqual([[], false]);
    const data3 = await call('GET', `/api/ticket/data3/${ticket}/45`, { token: admin.token });
    expect(data3.body.data.map((m: Message) => m.message).at(-1)).toBe('m25');
  });
});
