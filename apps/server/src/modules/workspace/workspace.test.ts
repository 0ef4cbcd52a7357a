import { type ChatItem, newQueueId, WORKSPACE_STRINGS as W } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { type Cluster, startCluster } from '../../testing/cluster.js';
import { insertTicket } from '../../testing/messages.js';
import { connectSocket, flushSockets, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, redisUrl, startTestServer } from '../../testing/support.js';
import { clockPast } from '../../testing/waitFor.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Everything a socket receives, by event name (envelope data or the plain payload). */
function record(socket: TestSocket) {
  const got: { name: string; data: any }[] = [];
  socket.onAny((name: string, e: any) => got.push({ name, data: e && 'seq' in e && 'data' in e ? e.data : e }));
  return (name: string) => got.filter((g) => g.name === name).map((g) => g.data);
}

describe.each(dialects)('workspace chats (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;

  const team = async () => {
    const admin = await signUpVia(call);
    const add = (name: string) => addUserVia(call, admin.token, { username: `${name}-${uniq()}`, type: 'agent', name });
    return { admin, ann: await add('Ann'), bob: await add('Bob'), cy: await add('Cy') };
  };
  const create = (token: string, body: unknown) => call('POST', '/api/chat/create', { token, body });
  const list = async (token: string) => {
    const r = await call('GET', '/api/chat/list', { token });
    expect(r.status, r.text).toBe(200);
    return r.body as { data: ChatItem[]; count: number; unread: number };
  };
  const send = (token: string, ticket_id: number, message: string, client_id?: string) =>
    call('POST', '/api/ticket/message', { token, body: { ticket_id, message, client_id } });
  const rows = async (table: 'tickets' | 'chat_members' | 'messages' | 'workspace_chats', accountId: number) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

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

  it('CHAT-01 CHAT-04 CHAT-07 a 1:1 chat is one per pair, a group has a title and its members', async () => {
    const { admin, ann, bob, cy } = await team();
    const a = await create(ann.token, { members: [bob.id] });
    expect(a.status, a.text).toBe(200);
    const chat = a.body.data as ChatItem;
    expect(chat).toMatchObject({ kind: 'direct', title: 'Bob', encryption: false, unread: 0 });
    expect(chat.members.map((m) => m.name).sort()).toEqual(['Ann', 'Bob']);
    expect(typeof chat.ts).toBe('number');
    // Asking again, from either side and at the same time, answers the same chat.
    const again = await Promise.all([
      create(bob.token, { members: [ann.id] }),
      create(ann.token, { members: [bob.id, bob.id] }),
    ]);
    for (const r of again) expect(r.body.data.id).toBe(chat.id);
    expect(await rows('workspace_chats', admin.accountId)).toBe(1);
    const ticket = await db().selectFrom('tickets').selectAll().where('id', '=', chat.id).executeTakeFirstOrThrow();
    expect(ticket.channel).toBe('chat');

    const g = await create(ann.token, { members: [bob.id, cy.id], title: '  Night shift ' });
    expect(g.status, g.text).toBe(200);
    expect(g.body.data).toMatchObject({ kind: 'group', title: 'Night shift' });
    expect(g.body.data.members).toHaveLength(3);
    // An untitled group is named by the others' names.
    const u = await create(ann.token, { members: [bob.id, cy.id] });
    expect(u.body.data.title).toBe('Bob, Cy');
    expect((await list(cy.token)).data.map((c) => c.id).sort()).toEqual([g.body.data.id, u.body.data.id].sort());
  });

  it('CHAT-02 the list pages 30 at a time (Show More), newest activity first', async () => {
    const { ann, bob } = await team();
    const ids: number[] = [];
    for (let i = 0; i < 31; i++)
      ids.push(((await create(ann.token, { members: [bob.id], title: `Group ${i}` })).body.data as ChatItem).id);
    // Activity moves a chat to the top.
    await send(bob.token, ids[0]!, 'bump');
    const first = await call('GET', '/api/chat/list?offset=0', { token: ann.token });
    const second = await call('GET', '/api/chat/list?offset=30', { token: ann.token });
    expect(first.body.data).toHaveLength(30);
    expect(first.body.count).toBe(31);
    expect(first.body.data[0].id).toBe(ids[0]);
    expect(first.body.data[1].id).toBe(ids[30]);
    expect(second.body.data.map((c: ChatItem) => c.id)).toEqual([ids[1]]);
    expect((await call('GET', '/api/chat/list?offset=-1', { token: ann.token })).status).toBe(400);
  });

  it('CHAT-07 bad input is a clear 400 and changes nothing', async () => {
    const { admin, ann, bob } = await team();
    const other = await signUpVia(call);
    const before = await rows('tickets', admin.accountId);
    const cases: [unknown, number, string?][] = [
      [{}, 400],
      [{ members: [] }, 400, W.pickMembers],
      [{ members: [ann.id] }, 400, W.pickMembers], // only oneself
      [{ members: ['x'] }, 400],
      [{ members: [bob.id], title: 'x'.repeat(101) }, 400],
      [{ members: [other.userId] }, 400, W.unknownMember], // another account's user
      [{ members: [bob.id, 987654321] }, 400, W.unknownMember],
    ];
    for (const [body, status, text] of cases) {
      const r = await create(ann.token, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (text) expect(r.text).toContain(text);
    }
    expect(await rows('tickets', admin.accountId)).toBe(before);
    expect(await rows('chat_members', admin.accountId)).toBe(0);
    const noAuth = await call('POST', '/api/chat/create', { body: { members: [bob.id] } });
    expect(noAuth.status).toBe(401);
  });

  it('CHAT-05 RT-19 RT-22 members chat live; unread counts and last message; reading clears unread', async () => {
    const { admin, ann, bob, cy } = await team();
    const chat = (await create(ann.token, { members: [bob.id] })).body.data as ChatItem;
    const bobSock = await connectSocket(s.url, bob.token, opened);
    const cySock = await connectSocket(s.url, cy.token, opened);
    const adminSock = await connectSocket(s.url, admin.token, opened);
    const bobGot = record(bobSock);
    const cyGot = record(cySock);
    const adminGot = record(adminSock);

    const client_id = newQueueId();
    const first = await send(ann.token, chat.id, 'hello Bob', client_id);
    expect(first.status, first.text).toBe(200);
    // Idempotent by queue- id: a retry stores nothing new.
    const retry = await send(ann.token, chat.id, 'hello Bob', client_id);
    expect(retry.body.data.id).toBe(first.body.data.id);
    await send(ann.token, chat.id, 'are you there?');
    await waitFor(() => bobGot('newMessage').length >= 2, 'Bob receives both messages');
    expect(bobGot('newMessage').map((m) => m.message)).toEqual(['hello Bob', 'are you there?']);

    const bobs = await list(bob.token);
    const item = bobs.data.find((c) => c.id === chat.id)!;
    expect(item.unread).toBe(2);
    expect(item.title).toBe('Ann');
    expect(item.last_message).toMatchObject({ message: 'are you there?', sender: ann.username, sender_name: 'Ann' });
    expect(bobs.unread).toBe(1);
    expect(bobs.count).toBe(1);
    // The sender has nothing unread in their own chat.
    expect((await list(ann.token)).data[0]!.unread).toBe(0);

    // Bob reads: unread goes to 0; a new message from Ann makes it 1 again.
    expect((await call('POST', '/api/chat/read', { token: bob.token, body: { id: chat.id } })).status).toBe(200);
    expect((await list(bob.token)).unread).toBe(0);
    // The next message must be stamped after the read mark to count as unread.
    const mark = await db()
      .selectFrom('ticket_reads')
      .select('read_at')
      .where('account_id', '=', admin.accountId)
      .where('ticket_id', '=', chat.id)
      .where('user_id', '=', bob.id)
      .executeTakeFirstOrThrow();
    await clockPast(Number(mark.read_at));
    await send(ann.token, chat.id, 'ping');
    expect((await list(bob.token)).data[0]!.unread).toBe(1);
    // Reading through the pane's read receipt (readMessage) clears it too.
    await new Promise<void>((resolve) => bobSock.emit('joinChat', chat.id, () => resolve()));
    bobSock.emit('readMessage', { ticketId: chat.id, messageId: 0 });
    await waitFor(async () => (await list(bob.token)).data[0]!.unread === 0, 'read receipt clears unread');

    // RT-19: the totals over the socket.
    const refresh = (bobSock as unknown as { emitWithAck(e: string): Promise<unknown> }).emitWithAck(
      'refreshChatUnreadCount',
    );
    expect(await refresh).toEqual({ ok: true, unread: 0, count: 1 });

    // Bob answers over the socket; Ann's list shows it.
    const ack = await bobSock.emitWithAck('newChatMessage', {
      ticket_id: chat.id,
      message: 'yes!',
      type: 'text',
      client_id: newQueueId(),
    });
    expect(ack.ok).toBe(true);
    expect((await list(ann.token)).data[0]!.last_message?.message).toBe('yes!');

    // Nobody else in the account heard any of it, not even the ticket update.
    await flushSockets(s.handle.db, admin.accountId, [cySock, adminSock]);
    expect(cyGot('newMessage')).toEqual([]);
    expect(adminGot('newMessage')).toEqual([]);
    expect(cyGot('updateTicket').filter((t) => t.id === chat.id)).toEqual([]);
    expect(adminGot('updateTicket').filter((t) => t.id === chat.id)).toEqual([]);
  });

  it('CHAT-01 MSG-47 RT-07 only members read, write or join a chat; another account sees nothing', async () => {
    const { admin, ann, bob, cy } = await team();
    const chat = (await create(ann.token, { members: [bob.id] })).body.data as ChatItem;
    await send(ann.token, chat.id, 'secret');
    const before = await rows('messages', admin.accountId);
    for (const token of [cy.token, admin.token]) {
      expect((await call('GET', `/ticket/data/${chat.id}/0`, { token })).status).toBe(403);
      expect((await send(token, chat.id, 'let me in')).status).toBe(403);
      expect((await call('GET', `/api/chat/${chat.id}`, { token })).status).toBe(403);
      expect((await call('POST', '/api/chat/read', { token, body: { id: chat.id } })).status).toBe(403);
      expect((await call('POST', '/api/chat/update', { token, body: { id: chat.id, title: 'x' } })).status).toBe(403);
      expect((await list(token)).data).toEqual([]);
    }
    const stranger = await signUpVia(call);
    expect((await call('GET', `/ticket/data/${chat.id}/0`, { token: stranger.token })).status).toBe(404);
    expect((await call('GET', `/api/chat/${chat.id}`, { token: stranger.token })).status).toBe(404);
    expect((await send(stranger.token, chat.id, 'hi')).status).toBe(404);
    expect((await call('GET', '/api/chat/abc', { token: ann.token })).status).toBe(400);
    expect((await call('GET', `/api/chat/${chat.id}`, { token: bob.token })).status).toBe(200);
    expect(await rows('messages', admin.accountId)).toBe(before);

    // Over the socket: joinChat, joinRoom, newChatMessage and joinMeeting are refused to a non-member.
    const cySock = await connectSocket(s.url, cy.token, opened);
    expect(await cySock.emitWithAck('joinChat', chat.id)).toEqual({ ok: false, error: 'Not found.' });
    expect(await cySock.emitWithAck('joinRoom', chat.id)).toEqual({ ok: false, error: 'Not found.' });
    expect((await cySock.emitWithAck('joinMeeting', chat.id)).ok).toBe(false);
    const sent = await cySock.emitWithAck('newChatMessage', { ticket_id: chat.id, message: 'sneaky', type: 'text' });
    expect(sent.ok).toBe(false);
    // Typing is not relayed to someone who could not join.
    const annSock = await connectSocket(s.url, ann.token, opened);
    const bobSock = await connectSocket(s.url, bob.token, opened);
    const cyGot = record(cySock);
    const bobGot = record(bobSock);
    expect(await annSock.emitWithAck('joinChat', chat.id)).toEqual({ ok: true });
    expect(await bobSock.emitWithAck('joinChat', chat.id)).toEqual({ ok: true });
    annSock.emit('sendTyping', chat.id);
    // The member's copy shows the typing was relayed; Cy's answer to a later call comes after anything the
    // relay wrote to Cy's socket.
    await waitFor(() => bobGot('sendTyping').length === 1, 'the member to see the typing');
    expect(await cySock.emitWithAck('joinChat', chat.id)).toEqual({ ok: false, error: 'Not found.' });
    expect(cyGot('sendTyping')).toEqual([]);
    expect(await rows('messages', admin.accountId)).toBe(before);
  });

  it('MSG-19 MSG-47 AI-06 a non-member cannot add notes, reactions or pins to a chat message, nor ask a hint on it; a member can', async () => {
    const { admin, ann, bob, cy } = await team();
    const chat = (await create(ann.token, { members: [bob.id] })).body.data as ChatItem;
    const sent = await send(ann.token, chat.id, 'secret');
    expect(sent.status, sent.text).toBe(200);
    const messageId = sent.body.data.id as number;
    const note = await call('POST', '/api/ticket/note/add', {
      token: ann.token,
      body: { message_id: messageId, text: 'mine' },
    });
    expect(note.status, note.text).toBe(200);
    const state = async () => ({
      notes: await db()
        .selectFrom('message_notes')
        .select(['id', 'text'])
        .where('account_id', '=', admin.accountId)
        .orderBy('id')
        .execute(),
      reactions: await db()
        .selectFrom('message_reactions')
        .select('id')
        .where('account_id', '=', admin.accountId)
        .execute(),
      pinned: Number(
        (await db().selectFrom('messages').select('pinned').where('id', '=', messageId).executeTakeFirstOrThrow())
          .pinned,
      ),
      events: Number(
        (
          await db()
            .selectFrom('account_seq')
            .select('last_seq')
            .where('account_id', '=', admin.accountId)
            .executeTakeFirstOrThrow()
        ).last_seq,
      ),
    });
    const before = await state();
    for (const token of [cy.token, admin.token]) {
      const tries = [
        await call('POST', '/api/ticket/note/add', { token, body: { message_id: messageId, text: 'peek' } }),
        await call('POST', '/api/ticket/reaction', { token, body: { message_id: messageId, reaction: '👍' } }),
        await call('POST', '/api/ticket/pin', { token, body: { message_id: messageId, pinned: true } }),
      ];
      for (const r of tries) {
        expect(r.status, r.text).toBe(403);
        expect(r.body).toMatchObject({ result: 'failed', description: 'You cannot read this conversation.' });
        expect(r.text).not.toContain('secret');
      }
    }
    // Nor does a non-member learn that the message exists by asking for an AI hint on it; a member may ask.
    const hint = (token: string) =>
      call('GET', `/api/wauchat/recommendation?text=x&channel=CHAT&messageId=${messageId}`, { token });
    expect((await hint(cy.token)).status).toBe(404);
    expect((await hint(bob.token)).status).toBe(200);
    // An admin may edit or delete any note, but not one of a chat they cannot read.
    const noteId = note.body.data.id as number;
    expect(
      (await call('POST', '/api/ticket/note/edit', { token: admin.token, body: { id: noteId, text: 'x' } })).status,
    ).toBe(403);
    expect((await call('POST', '/api/ticket/note/delete', { token: admin.token, body: { id: noteId } })).status).toBe(
      403,
    );
    expect(await state()).toEqual(before);

    for (const [path, body] of [
      ['/api/ticket/note/add', { message_id: messageId, text: 'seen' }],
      ['/api/ticket/reaction', { message_id: messageId, reaction: '👍' }],
      ['/api/ticket/pin', { message_id: messageId, pinned: true }],
    ] as const) {
      const r = await call('POST', path, { token: bob.token, body });
      expect(r.status, `${path}: ${r.text}`).toBe(200);
    }
    const after = await state();
    expect(after.notes).toHaveLength(2);
    expect(after.reactions).toHaveLength(1);
    expect(after.pinned).toBe(1);
  });

  it("MSG-42 RT-40 a chat's activity is not in the sync or event answers of a non-member", async () => {
    const { ann, bob, cy } = await team();
    const chat = (await create(ann.token, { members: [bob.id] })).body.data as ChatItem;
    const sent = await send(ann.token, chat.id, 'secret');
    expect(sent.status, sent.text).toBe(200);
    const del = await call('POST', '/api/ticket/message/delete', {
      token: ann.token,
      body: { message_id: sent.body.data.id, ticket_id: chat.id },
    });
    expect(del.status, del.text).toBe(200);
    const synced = async (token: string) => {
      const r = await call('GET', '/ticket/data/sync?ts=0', { token });
      expect(r.status, r.text).toBe(200);
      return (r.body.tickets as { id: number }[]).map((t) => t.id);
    };
    const deletions = async (token: string) => {
      const r = await call('GET', '/event/0', { token });
      expect(r.status, r.text).toBe(200);
      return (r.body.data as { action: string; ticket_id: number; ref_id: number }[]).filter(
        (e) => e.ticket_id === chat.id,
      );
    };
    for (const member of [ann, bob]) {
      expect(await synced(member.token)).toContain(chat.id);
      expect(await deletions(member.token)).toEqual([
        expect.objectContaining({ action: 'delete_message', ref_id: sent.body.data.id }),
      ]);
    }
    expect(await synced(cy.token)).not.toContain(chat.id);
    expect(await deletions(cy.token)).toEqual([]);
  });

  it("MSG-10 a queue- id of a private chat sent to a readable ticket does not answer the chat's message", async () => {
    const { admin, ann, bob, cy } = await team();
    const chat = (await create(ann.token, { members: [bob.id] })).body.data as ChatItem;
    const open = await insertTicket(db(), admin.accountId);
    const queueId = newQueueId();
    const sent = await send(ann.token, chat.id, 'secret', queueId);
    expect(sent.status, sent.text).toBe(200);
    const before = await rows('messages', admin.accountId);
    const stolen = await send(cy.token, open, 'guess', queueId);
    expect(stolen.status, stolen.text).toBe(400);
    expect(stolen.body).toMatchObject({ result: 'failed', code: 'VALIDATION_FAILED' });
    expect(stolen.text).not.toContain('secret');
    // Nor through the reply call, which reads the id before it mails anything.
    const replied = await call('POST', '/api/ticket/message/reply', {
      token: cy.token,
      body: { ticket_id: open, message: 'guess', client_id: queueId },
    });
    expect(replied.status, replied.text).toBe(400);
    expect(replied.text).not.toContain('secret');
    // Over the socket too.
    const cySock = await connectSocket(s.url, cy.token, opened);
    const acked = await cySock.emitWithAck('newChatMessage', {
      ticket_id: open,
      message: 'guess',
      type: 'text',
      client_id: queueId,
    });
    expect(acked.ok).toBe(false);
    expect(JSON.stringify(acked)).not.toContain('secret');
    expect(await rows('messages', admin.accountId)).toBe(before);
    // The owner's repeat still answers the stored message.
    const again = await send(ann.token, chat.id, 'secret', queueId);
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.id).toBe(sent.body.data.id);

    // Sent at the same time to the chat and to the open ticket (the batched path): neither answer carries
    // the other's message, and one message is stored.
    for (let i = 0; i < 5; i++) {
      const id = newQueueId();
      const [a, c] = await Promise.all([
        send(ann.token, chat.id, `secret ${i}`, id),
        send(cy.token, open, `mine ${i}`, id),
      ]);
      expect([a.status, c.status].sort()).toEqual([200, 400]);
      if (c.status === 200) expect(c.body.data).toMatchObject({ ticketId: open, message: `mine ${i}` });
      else expect(c.text).not.toContain('secret');
      if (a.status === 200) expect(a.body.data).toMatchObject({ ticketId: chat.id, message: `secret ${i}` });
      else expect(a.text).not.toContain('mine');
      const stored = await db().selectFrom('messages').select('id').where('client_id', '=', id).execute();
      expect(stored).toHaveLength(1);
    }
  });

  it('CHAT-06 a chat is listed and shown only to its members (ticket lists and ticket info)', async () => {
    const { ann, bob, cy } = await team();
    const created = await create(ann.token, { members: [bob.id], title: 'Private plans' });
    expect(created.status, created.text).toBe(200);
    const chat = created.body.data as ChatItem;
    const load = async (token: string) => {
      const r = await call('GET', '/api/ticket/load/me/all/chat/0', { token });
      expect(r.status, r.text).toBe(200);
      return r.body as { data: { id: number; title: string }[]; count: number };
    };
    for (const member of [ann, bob]) {
      const mine = await load(member.token);
      expect(mine.data.map((t) => t.id)).toContain(chat.id);
      const shown = await call('GET', `/ticket/info/me/${chat.id}`, { token: member.token });
      expect(shown.status, shown.text).toBe(200);
    }
    const outsider = await load(cy.token);
    expect(outsider.data.map((t) => t.id)).not.toContain(chat.id);
    expect(outsider.count).toBe(0);
    const info = await call('GET', `/ticket/info/me/${chat.id}`, { token: cy.token });
    expect(info.status).toBe(404);
    expect(info.text).not.toContain('Private plans');
  });

  it('CHAT-07 RT-30 a group is renamed, members added and removed; a removed member loses access', async () => {
    const { ann, bob, cy } = await team();
    const g = (await create(ann.token, { members: [bob.id], title: 'Ops' })).body.data as ChatItem;
    const bobSock = await connectSocket(s.url, bob.token, opened);
    const bobGot = record(bobSock);
    const r = await call('POST', '/api/chat/update', {
      token: ann.token,
      body: { id: g.id, title: 'Ops team', add: [cy.id] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.title).toBe('Ops team');
    expect(r.body.data.members).toHaveLength(3);
    expect((await call('GET', `/ticket/data/${g.id}/0`, { token: cy.token })).status).toBe(200);
    const gone = await call('POST', '/api/chat/update', { token: cy.token, body: { id: g.id, remove: [bob.id] } });
    expect(gone.status, gone.text).toBe(200);
    await waitFor(() => bobGot('participantChanged').some((e) => e.removed.includes(bob.username)), 'Bob told');
    expect((await call('GET', `/ticket/data/${g.id}/0`, { token: bob.token })).status).toBe(403);
    // A group keeps two members at least; a 1:1 chat does not change.
    const last = await call('POST', '/api/chat/update', { token: ann.token, body: { id: g.id, remove: [cy.id] } });
    expect(last.status).toBe(400);
    expect(last.text).toContain(W.lastMember);
    const d = (await create(ann.token, { members: [bob.id] })).body.data as ChatItem;
    const direct = await call('POST', '/api/chat/update', { token: ann.token, body: { id: d.id, add: [cy.id] } });
    expect(direct.status).toBe(400);
    const history = await call('GET', `/ticket/data/${g.id}/0`, { token: ann.token });
    expect(history.body.data.map((m: { type: string }) => m.type)).toEqual(['system', 'system', 'system']);
  });

  it('CHAT-08 CHAT-09 CHAT-11 RT-02 RT-13 meeting counts over the socket; a disconnect ends the meeting', async () => {
    const { ann, bob, cy } = await team();
    const chat = (await create(ann.token, { members: [bob.id, cy.id], title: 'Standup' })).body.data as ChatItem;
    const other = (await create(bob.token, { members: [cy.id] })).body.data as ChatItem;
    const annSock = await connectSocket(s.url, ann.token, opened);
    const annTab2 = await connectSocket(s.url, ann.token, opened);
    const bobSock = await connectSocket(s.url, bob.token, opened);
    const cySock = await connectSocket(s.url, cy.token, opened);
    const cyGot = record(cySock);

    expect(await cySock.emitWithAck('getMeetingCount', [chat.id])).toEqual({ ok: true, counts: { [chat.id]: 0 } });
    expect(await annSock.emitWithAck('joinMeeting', chat.id)).toEqual({ ok: true, count: 1 });
    // The same person in two tabs counts once.
    expect(await annTab2.emitWithAck('joinMeeting', chat.id)).toEqual({ ok: true, count: 1 });
    expect(await bobSock.emitWithAck('joinMeeting', chat.id)).toEqual({ ok: true, count: 2 });
    await waitFor(() => cyGot('meetingCount').some((e) => e.ticketId === chat.id && e.count === 2), 'Cy sees 2');
    // Ann asks about a chat she is not in: it is left out of the answer.
    expect(await annSock.emitWithAck('getMeetingCount', [chat.id, other.id])).toEqual({
      ok: true,
      counts: { [chat.id]: 2 },
    });
    expect(await bobSock.emitWithAck('leaveMeeting', chat.id)).toEqual({ ok: true, count: 1 });
    expect((await bobSock.emitWithAck('leaveMeeting', chat.id)).ok).toBe(false);
    annSock.disconnect();
    annTab2.disconnect();
    await waitFor(() => cyGot('meetingCount').at(-1)?.count === 0, 'the disconnect ends the meeting');
    expect(await cySock.emitWithAck('getMeetingCount', [chat.id])).toEqual({ ok: true, counts: { [chat.id]: 0 } });
    // Bad input.
    expect((await cySock.emitWithAck('getMeetingCount', 'x' as never)).ok).toBe(false);
    expect((await cySock.emitWithAck('joinMeeting', -1)).ok).toBe(false);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL || !redisUrl)('workspace chats on two nodes (postgres + redis)', () => {
  let cluster: Cluster;
  let urls: string[] = [];
  const opened: TestSocket[] = [];

  beforeAll(async () => {
    cluster = await startCluster(['ws-a', 'ws-b']);
    ({ urls } = cluster);
  });
  afterAll(async () => {
    for (const o of opened.splice(0)) o.disconnect();
    await cluster?.stop();
  });

  it('CHAT-09 CHAT-11 RT-22 meeting counts and messages reach members connected to another node', async () => {
    const call = apiClient(urls[0]!);
    const admin = await signUpVia(call);
    const ann = await addUserVia(call, admin.token, { username: `ann-${uniq()}`, type: 'agent', name: 'Ann' });
    const bob = await addUserVia(call, admin.token, { username: `bob-${uniq()}`, type: 'agent', name: 'Bob' });
    const chat = (await call('POST', '/api/chat/create', { token: ann.token, body: { members: [bob.id] } })).body
      .data as ChatItem;
    const annSock = await connectSocket(urls[0]!, ann.token, opened);
    const bobSock = await connectSocket(urls[1]!, bob.token, opened);
    const bobGot = record(bobSock);
    expect(await annSock.emitWithAck('joinMeeting', chat.id)).toEqual({ ok: true, count: 1 });
    await waitFor(() => bobGot('meetingCount').some((e) => e.count === 1), 'Bob on node B sees the count');
    expect(await bobSock.emitWithAck('joinMeeting', chat.id)).toEqual({ ok: true, count: 2 });
    expect(await annSock.emitWithAck('getMeetingCount', [chat.id])).toEqual({ ok: true, counts: { [chat.id]: 2 } });
    const sent = await annSock.emitWithAck('newChatMessage', { ticket_id: chat.id, message: 'across', type: 'text' });
    expect(sent.ok).toBe(true);
    await waitFor(() => bobGot('newMessage').some((m) => m.message === 'across'), 'the message crosses nodes');
    annSock.disconnect();
    await waitFor(() => bobGot('meetingCount').at(-1)?.count === 1, 'a disconnect on node A ends that meeting');
  });
});
