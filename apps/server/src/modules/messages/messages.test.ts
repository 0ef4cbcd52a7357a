import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MESSAGE_STRINGS, type Message, newQueueId, TRANSLATE_STRINGS } from '@parley/contracts';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { startLibreTranslateStandIn } from '../../testing/aiStandIns.js';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { insertTicket } from '../../testing/messages.js';
import { connectSocket, flushSockets, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { clockPast } from '../../testing/waitFor.js';
import { sendMessage } from './commands/postMessage.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Everything a socket receives of any event, by name (envelope data or the plain payload). */
function record(socket: TestSocket) {
  const got: { name: string; data: any }[] = [];
  socket.onAny((name: string, e: any) => got.push({ name, data: e && 'seq' in e && 'data' in e ? e.data : e }));
  return (name: string) => got.filter((g) => g.name === name).map((g) => g.data);
}

describe.each(dialects)('messages (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;

  const ticketOf = (accountId: number, channel = 'EMAIL') => insertTicket(db(), accountId, { channel });
  const send = (token: string, body: Record<string, unknown>) => call('POST', '/api/ticket/message', { token, body });
  const history = (token: string, id: number, q = '') => call('GET', `/ticket/data/${id}/0${q}`, { token });
  const count = async (ticketId: number) =>
    Number(
      (
        await db()
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('ticket_id', '=', ticketId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const newTeam = async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
    return { admin, agent, ticket: await ticketOf(admin.accountId) };
  };

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

  it('MSG-09 MSG-10 MSG-23 MSG-24 MSG-54 RT-22 a send stores once per queue- id and reaches the account live', async () => {
    const { admin, agent, ticket } = await newTeam();
    const watcher = await connectSocket(s.url, admin.token, opened);
    const seen = record(watcher);
    const client_id = newQueueId();
    expect(client_id).toMatch(/^queue-[A-Za-z0-9]{10}$/);
    const first = await send(agent.token, { ticket_id: ticket, message: 'Hello Pat', type: 'text', client_id });
    expect(first.status, first.text).toBe(200);
    const m: Message = first.body.data;
    expect(m).toMatchObject({ ticketId: ticket, message: 'Hello Pat', sender: agent.username, senderName: 'Bo' });
    expect(m.isSender).toBe(true);
    expect(m.client_id).toBe(client_id);
    // The same queue- id again (a retry after a lost answer): the same message, nothing new stored or sent.
    const again = await send(agent.token, { ticket_id: ticket, message: 'Hello Pat', client_id });
    expect(again.body.data.id).toBe(m.id);
    expect(await count(ticket)).toBe(1);
    await waitFor(() => seen('newMessage').length === 1, 'newMessage');
    await flushSockets(db(), admin.accountId, [watcher]);
    expect(seen('newMessage')).toHaveLength(1);
    expect(seen('newMessage')[0]).toMatchObject({ id: m.id, message: 'Hello Pat', ticketId: ticket });
    // The list learns of the activity: an agent answered.
    await waitFor(() => seen('updateTicket').some((t: any) => t.id === ticket && t.hasResponded), 'updateTicket');
    // The admin reads it as someone else's message.
    const h = await history(admin.token, ticket);
    expect(h.body.data[0]).toMatchObject({ id: m.id, isSender: false });
  });

  it('MSG-01 AI-02 every message carries recommendation, aiqon_results and scam_results, empty until the AI fills them', async () => {
    const { admin, agent, ticket } = await newTeam();
    const watcher = await connectSocket(s.url, admin.token, opened);
    const seen = record(watcher);
    const empty = { recommendation: '', aiqon_results: [], scam_results: [] };
    const sent = await send(agent.token, { ticket_id: ticket, message: 'Any news?', client_id: newQueueId() });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data).toMatchObject(empty);
    const id = sent.body.data.id as number;
    await waitFor(() => seen('newMessage').length === 1, 'newMessage');
    expect(seen('newMessage')[0]).toMatchObject({ id, ...empty });
    expect((await history(admin.token, ticket)).body.data[0]).toMatchObject({ id, ...empty });
    const check = await call('POST', `/api/ticket/data/check/${ticket}/0`, { token: admin.token, body: { ts: 0 } });
    expect(check.status, check.text).toBe(200);
    expect(check.body.missing).toEqual([expect.objectContaining({ id, ...empty })]);
  });

  it('MSG-10 MSG-23 RT-22 sends that arrive together are written in batches: each stored once, in order, every event once', async () => {
    const { admin, agent, ticket } = await newTeam();
    const events = (type: string) =>
      db()
        .selectFrom('events')
        .select(['seq', 'payload'])
        .where('account_id', '=', admin.accountId)
        .where('type', '=', type)
        .orderBy('seq')
        .execute();
    const updatesBefore = (await events('ticket.updated')).length;
    const ids = Array.from({ length: 40 }, () => newQueueId());
    // 40 sends at once, two of them repeating the first one's queue- id (a retry overtaking its original).
    const bodies = [...ids, ids[0]!, ids[0]!].map((client_id, i) => ({
      ticket_id: ticket,
      type: 'text',
      message: `batch ${i % 40}`,
      client_id,
    }));
    const answers = await Promise.all(bodies.map((b, i) => send(i % 2 ? agent.token : admin.token, b)));
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const idOf = new Map<string, number>();
    for (const [i, a] of answers.entries()) {
      const known = idOf.get(bodies[i]!.client_id);
      if (known === undefined) idOf.set(bodies[i]!.client_id, a.body.data.id);
      else expect(a.body.data.id).toBe(known);
    }
    expect(idOf.size).toBe(40);
    expect(await count(ticket)).toBe(40);

    // One newMessage event a message, in the order of the message ids, none twice.
    const created = (await events('message.created')).map((e) => JSON.parse(String(e.payload)) as Message);
    expect(created.map((m) => m.id)).toEqual([...idOf.values()].sort((a, b) => a - b));
    // One ticket update a batch, the last with the ticket's final state. Both databases batch the sends of
    // one moment (Postgres while a commit is out, SQLite those of one event-loop turn), but how many of the
    // 40 fall together depends on timing, so only the bounds are fixed.
    const updates = (await events('ticket.updated')).slice(updatesBefore);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.length).toBeLessThanOrEqual(40);
    if (dialect === 'postgres') expect(updates.length).toBeLessThan(40);
    const last = JSON.parse(String(updates.at(-1)!.payload));
    expect(last).toMatchObject({ id: ticket, hasResponded: true });
  });

  it('MSG-10 RT-22 RT-23 sends started in one turn of the event loop are written in one transaction (SQLite), in few (Postgres)', async () => {
    const { admin, ticket } = await newTeam();
    const auth = {
      sessionId: 0,
      accountId: admin.accountId,
      userId: admin.userId,
      username: admin.username,
      name: admin.name,
      type: 'admin' as const,
    };
    const headBefore = await db()
      .selectFrom('account_seq')
      .select('last_seq')
      .where('account_id', '=', admin.accountId)
      .executeTakeFirstOrThrow();
    // 20 sends started together, and one refused among them (unknown ticket): it fails alone.
    const sends = Array.from({ length: 20 }, (_, i) =>
      sendMessage(db(), conversationRules(), auth, {
        ticket_id: ticket,
        type: 'text',
        message: `turn ${i}`,
        client_id: newQueueId(),
      }),
    );
    const refused = sendMessage(db(), conversationRules(), auth, {
      ticket_id: ticket + 100_000,
      type: 'text',
      message: 'nowhere',
    });
    await expect(refused).rejects.toThrow(MESSAGE_STRINGS.ticketNotFound);
    const stored = await Promise.all(sends);
    expect(stored.map((m) => m.message)).toEqual(Array.from({ length: 20 }, (_, i) => `turn ${i}`));
    // SQLite checks them one after another, so they join the batch in the order they were sent; on Postgres
    // the checks run on several connections at once and the first goes ahead alone.
    if (dialect === 'sqlite')
      expect(stored.map((m) => m.id)).toEqual([...stored.map((m) => m.id)].sort((a, b) => a - b));
    const events = await db()
      .selectFrom('events')
      .select(['type', 'seq'])
      .where('account_id', '=', admin.accountId)
      .where('seq', '>', Number(headBefore.last_seq))
      .orderBy('seq')
      .execute();
    // 20 message.created and a ticket.updated a batch, with the ticket's state after all of its messages.
    expect(events.filter((e) => e.type === 'message.created')).toHaveLength(20);
    const updates = events.filter((e) => e.type === 'ticket.updated').length;
    if (dialect === 'sqlite') expect(updates).toBe(1);
    else expect(updates).toBeLessThan(20);
    expect(await count(ticket)).toBe(20);
  });

  it('MSG-38 MSG-39 MSG-18 history comes 30 at a time, oldest first, scrolling up by messageId', async () => {
    const { admin, ticket } = await newTeam();
    for (let i = 1; i <= 70; i++) {
      const r = await send(admin.token, { ticket_id: ticket, message: `m${i}` });
      expect(r.status).toBe(200);
    }
    const newest = await history(admin.token, ticket);
    expect(newest.body.count).toBe(70);
    expect(newest.body.more).toBe(true);
    expect(newest.body.data.map((m: Message) => m.message)).toEqual(Array.from({ length: 30 }, (_, i) => `m${41 + i}`));
    const older = await history(admin.token, ticket, `?messageId=${newest.body.data[0].id}`);
    expect(older.body.data.map((m: Message) => m.message)).toEqual(Array.from({ length: 30 }, (_, i) => `m${11 + i}`));
    const oldest = await call('GET', `/api/ticket/data3/${ticket}/0?messageId=${older.body.data[0].id}`, {
      token: admin.token,
    });
    expect(oldest.body.data.map((m: Message) => m.message)).toEqual(Array.from({ length: 10 }, (_, i) => `m${1 + i}`));
    expect(oldest.body.more).toBe(false);
  });

  it('RT-10 MSG-11 newChatMessage over the socket acks the stored message; a repeat acks the same one', async () => {
    const { agent, ticket } = await newTeam();
    const sock = await connectSocket(s.url, agent.token, opened);
    const client_id = newQueueId();
    const emit = (input: unknown) =>
      new Promise<any>((resolve) => (sock.emit as any)('newChatMessage', input, (r: unknown) => resolve(r)));
    const a = await emit({ ticket_id: ticket, message: 'via socket', client_id });
    expect(a.ok).toBe(true);
    const b = await emit({ ticket_id: ticket, message: 'via socket', client_id });
    expect(b.data.id).toBe(a.data.id);
    expect(await count(ticket)).toBe(1);
    const bad = await emit({ ticket_id: ticket, message: 'x', client_id: 'queue-short' });
    expect(bad).toEqual({ ok: false, error: MESSAGE_STRINGS.badQueueId });
    const other = await signUpVia(call);
    const foreign = await emit({ ticket_id: await ticketOf(other.accountId), message: 'x' });
    expect(foreign).toEqual({ ok: false, error: 'Ticket not found.' });
  });

  it('MSG-05 MSG-25 MSG-27 MSG-28 MSG-29 MSG-30 e-mail replies check every address and carry the reply preview; without SMTP_URL stored, not sent', async () => {
    const { agent, ticket } = await newTeam();
    const first = await send(agent.token, { ticket_id: ticket, message: 'Question?' });
    const reply = (body: Record<string, unknown>) =>
      call('POST', '/api/ticket/message/reply', { token: agent.token, body: { ticket_id: ticket, ...body } });
    const badCc = await reply({
      message: '<p>Hi</p>',
      type: 'text/html',
      email: 'pat@example.com',
      cc: 'ok@a.io,bad@a.',
    });
    expect(badCc.status).toBe(400);
    expect(badCc.body.description).toBe('Please check the email address. bad@a.');
    const noMain = await reply({ message: '<p>Hi</p>', type: 'text/html' });
    expect(noMain.body.description).toBe('Please check the email address. ');
    const badTo = await reply({ message: '<p>Hi</p>', type: 'text/html', toEmail: ['nobody'] });
    expect(badTo.body.description).toBe('Please check the email address. nobody');
    expect(await count(ticket)).toBe(1);
    const good = await reply({
      message: '<p>Answer</p>',
      type: 'text/html',
      email: 'pat@example.com',
      cc: ['boss@example.com'],
      title: 'Re: printer',
      reply_id: first.body.data.id,
      closed: 2,
    });
    expect(good.status, good.text).toBe(200);
    expect(good.body).toMatchObject({ result: 'success', file: '', fileName: '', fileType: '' });
    // This server has no SMTP_URL: the reply is stored and the answer says so clearly.
    expect(good.body).toMatchObject({ mail: 'not_configured', description: MESSAGE_STRINGS.mailNotConfigured });
    expect(good.body.data.reply).toEqual({ sender: agent.username, message: 'Question?' });
    expect(good.body.data.email).toEqual({ to: ['pat@example.com'], cc: ['boss@example.com'], subject: 'Re: printer' });
    const t = await db().selectFrom('tickets').select('closed').where('id', '=', ticket).executeTakeFirstOrThrow();
    expect(Number(t.closed)).toBe(2);
  });

  it('MSG-32 MSG-33 MSG-34 RT-26 RT-40 RT-41 MSG-44 MSG-45 a deletion reaches everyone, now and after a reconnect', async () => {
    const { admin, agent, ticket } = await newTeam();
    const other = await addUserVia(call, admin.token, { username: `other-${uniq()}`, type: 'agent' });
    const { body: auth } = await call('POST', '/api/auth/check', { token: admin.token });
    const before = Math.floor(Date.now() / 1000) - 1;
    const m1 = (await send(agent.token, { ticket_id: ticket, message: 'keep' })).body.data;
    const m2 = (await send(agent.token, { ticket_id: ticket, message: 'oops' })).body.data;
    const watcher = await connectSocket(s.url, admin.token, opened);
    const seen = record(watcher);
    const del = (token: string, body: unknown) => call('POST', '/api/ticket/message/delete', { token, body });
    // Another agent may not delete it; a wrong ticket is the spec's not-found; the sender may.
    expect((await del(other.token, { message_id: m2.id, ticket_id: ticket })).status).toBe(403);
    const wrong = await del(agent.token, { message_id: m2.id, ticket_id: ticket + 999 });
    expect(wrong.status).toBe(404);
    expect(wrong.body.description).toBe('Ticket not found.');
    const ok = await del(agent.token, { message_id: m2.id, ticket_id: ticket });
    expect(ok.body).toEqual({ result: 'success', message_id: m2.id });
    await waitFor(() => seen('syncDelete').length === 1, 'syncDelete');
    expect(seen('syncDelete')[0]).toEqual({ ticketId: ticket, messageId: m2.id });
    expect((await history(admin.token, ticket)).body.data.map((m: Message) => m.id)).toEqual([m1.id]);
    // After a reconnect: /event lists the deletion, the check call lists it and what was missed.
    const items = await call('GET', `/event/${auth.event_id}`, { token: admin.token });
    expect(items.body.data).toEqual([
      expect.objectContaining({ action: 'delete_message', ref_id: m2.id, ticket_id: ticket, session_id: null }),
    ]);
    const check = await call('POST', `/api/ticket/data/check/${ticket}/0`, {
      token: admin.token,
      body: { ts: before },
    });
    expect(check.body.deleted).toEqual([m2.id]);
    expect(check.body.missing.map((m: Message) => m.id)).toEqual([m1.id]);
    expect(check.body.complete).toBe(true);
    // A status change's system message stays.
    await call('POST', '/api/ticket/status', { token: admin.token, body: { id: ticket, status: 1 } });
    const sys = (await history(admin.token, ticket)).body.data.find((m: Message) => m.type === 'system');
    expect((await del(admin.token, { message_id: sys.id, ticket_id: ticket })).status).toBe(400);
  });

  it('RT-18 sendSyncDelete answers the ids deleted after ts, to a reader of the ticket only', async () => {
    const { admin, agent, ticket } = await newTeam();
    const before = Math.floor(Date.now() / 1000) - 1;
    const sent: Message[] = [];
    for (const text of ['one', 'two', 'three'])
      sent.push((await send(agent.token, { ticket_id: ticket, message: text })).body.data);
    const del = (m: Message) =>
      call('POST', '/api/ticket/message/delete', { token: agent.token, body: { message_id: m.id, ticket_id: ticket } });
    expect((await del(sent[0]!)).status).toBe(200);
    // The next whole second: a deletion after it is "since" it, the first one is not.
    const mid = Math.floor(Date.now() / 1000) + 1;
    await waitFor(() => Date.now() > mid * 1000 + 5, 'the next second', 2_000);
    expect((await del(sent[2]!)).status).toBe(200);

    const sock = await connectSocket(s.url, admin.token, opened);
    const ask = (so: TestSocket, r: { ticketId: number; ts: number }) => so.emitWithAck('sendSyncDelete', r);
    expect(await ask(sock, { ticketId: ticket, ts: before })).toEqual([sent[0]!.id, sent[2]!.id]);
    expect(await ask(sock, { ticketId: ticket, ts: mid })).toEqual([sent[2]!.id]);
    expect(await ask(sock, { ticketId: ticket, ts: Math.floor(Date.now() / 1000) + 1 })).toEqual([]);
    // Another account's user learns nothing of this ticket; bad input is an empty answer.
    const stranger = await signUpVia(call);
    const other = await connectSocket(s.url, stranger.token, opened);
    expect(await ask(other, { ticketId: ticket, ts: before })).toEqual([]);
    expect(await ask(sock, { ticketId: 'x', ts: before } as never)).toEqual([]);
  });

  it('MSG-42 MSG-43 /ticket/data/sync lists the tickets with activity since ts, newest first, with their last message', async () => {
    const { admin, agent, ticket } = await newTeam();
    const busy = await ticketOf(admin.accountId);
    const quiet = await ticketOf(admin.accountId);
    const hourAgo = Date.now() - 3_600_000;
    await db().updateTable('tickets').set({ updated_at: hourAgo }).where('id', 'in', [ticket, busy, quiet]).execute();
    const ts = Math.floor(Date.now() / 1000) - 1;
    const m1 = (await send(agent.token, { ticket_id: ticket, message: 'first' })).body.data as Message;
    // "Newest first" needs the second message's activity stamped after the first's.
    const { updated_at } = await db()
      .selectFrom('tickets')
      .select('updated_at')
      .where('account_id', '=', admin.accountId)
      .where('id', '=', ticket)
      .executeTakeFirstOrThrow();
    await clockPast(Number(updated_at));
    const m2 = (await send(agent.token, { ticket_id: busy, message: 'later' })).body.data as Message;
    // Activity in another account is not listed.
    const stranger = await signUpVia(call);
    await send(stranger.token, { ticket_id: await ticketOf(stranger.accountId), message: 'elsewhere' });

    const r = await call('GET', `/ticket/data/sync?ts=${ts}`, { token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.result).toBe('success');
    expect(r.body.tickets.map((t: { id: number; last_message_id: number }) => [t.id, t.last_message_id])).toEqual([
      [busy, m2.id],
      [ticket, m1.id],
    ]);
    expect(r.body.tickets[0].updated_at).toBeGreaterThan(ts * 1000);
    expect(Math.abs(r.body.ts - Date.now() / 1000)).toBeLessThan(5);
    // From the beginning, the quiet ticket (no message yet) is there too; a later ts lists nothing.
    const all = await call('GET', '/ticket/data/sync?ts=0', { token: admin.token });
    const mine = all.body.tickets.filter((t: { id: number }) => [ticket, busy, quiet].includes(t.id));
    expect(mine.map((t: { id: number; last_message_id: number }) => [t.id, t.last_message_id])).toEqual([
      [busy, m2.id],
      [ticket, m1.id],
      [quiet, 0],
    ]);
    const later = await call('GET', `/ticket/data/sync?ts=${Math.floor(Date.now() / 1000) + 1}`, {
      token: admin.token,
    });
    expect(later.body.tickets).toEqual([]);
    expect((await call('GET', `/ticket/data/sync?ts=${ts}`)).status).toBe(401);
  });

  it('MSG-21 MSG-22 GET /emoji/custom answers the list of custom emoji (none can be added yet), signed-in only', async () => {
    const { agent } = await newTeam();
    const r = await call('GET', '/emoji/custom', { token: agent.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ result: 'success', data: [] });
    expect((await call('GET', '/emoji/custom')).status).toBe(401);
  });

  it('MSG-16 MSG-17 MSG-06 MSG-19 MSG-20 MSG-55 RT-27 RT-28 RT-29 notes, reactions and pins, live and in history', async () => {
    const { admin, agent, ticket } = await newTeam();
    const m = (await send(agent.token, { ticket_id: ticket, message: 'note me' })).body.data;
    const watcher = await connectSocket(s.url, agent.token, opened);
    const seen = record(watcher);
    const post = (token: string, path: string, body: unknown) => call('POST', path, { token, body });
    const note = await post(admin.token, '/api/ticket/note/add', { message_id: m.id, text: 'Check the warranty' });
    expect(note.body.data).toMatchObject({ message_id: m.id, sender: admin.username, text: 'Check the warranty' });
    expect((await post(agent.token, '/api/ticket/note/edit', { id: note.body.data.id, text: 'x' })).status).toBe(403);
    await post(admin.token, '/api/ticket/note/edit', { id: note.body.data.id, text: 'Warranty ok' });
    await post(agent.token, '/api/ticket/reaction', { message_id: m.id, reaction: '👍', emoji_text: ':thumbsup:' });
    await post(admin.token, '/api/ticket/reaction', { message_id: m.id, reaction: '👍', emoji_text: ':thumbsup:' });
    await post(admin.token, '/api/ticket/reaction', { message_id: m.id, reaction: '👍', emoji_text: ':thumbsup:' });
    await post(admin.token, '/api/ticket/pin', { message_id: m.id, pinned: true });
    await waitFor(() => seen('addPin').length === 1, 'addPin');
    expect(seen('receiveNote').map((n: any) => n.text)).toEqual(['Check the warranty', 'Warranty ok']);
    expect(seen('addReaction')).toHaveLength(2);
    const h = (await history(agent.token, ticket)).body.data[0] as Message;
    expect(h.notes.map((n) => n.text)).toEqual(['Warranty ok']);
    expect(h.reactions_2).toEqual({ '👍': [agent.username, admin.username] });
    expect(h.pinned).toBe(true);
    await post(admin.token, '/api/ticket/reaction', { message_id: m.id, reaction: '👍', remove: true });
    await post(admin.token, '/api/ticket/note/delete', { id: note.body.data.id });
    await post(admin.token, '/api/ticket/pin', { message_id: m.id, pinned: false });
    await waitFor(() => seen('removePin').length === 1, 'removePin');
    expect(seen('deleteNote')).toEqual([{ id: note.body.data.id, message_id: m.id, ticketId: ticket }]);
    expect(seen('removeReaction')[0]).toMatchObject({ username: admin.username, reaction: '👍' });
    const after = (await history(agent.token, ticket)).body.data[0] as Message;
    expect(after).toMatchObject({ notes: [], pinned: false, reactions_2: { '👍': [agent.username] } });
  });

  it('MSG-35 MSG-36 MSG-37 uploads are sniffed, thumbnailed and served to the account only', async () => {
    const { admin, agent, ticket } = await newTeam();
    const png = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3366ff' } })
      .png()
      .toBuffer();
    const upload = async (token: string, files: { name: string; data: Buffer; type?: string }[], ticketId?: number) => {
      const form = new FormData();
      if (ticketId) form.append('ticket_id', String(ticketId));
      for (const f of files)
        form.append('attachment[]', new Blob([new Uint8Array(f.data)], { type: f.type ?? 'image/png' }), f.name);
      const res = await fetch(`${s.url}/api/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const ok = await upload(agent.token, [{ name: 'screen.png', data: png }], ticket);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.fileType).toEqual(['image/png']);
    expect(ok.body.fileName).toEqual(['screen.png']);
    expect(ok.body.thumb[0]).toMatch(/^\/files\/.+\/thumb\.jpg$/);
    const get = (token: string, p: string) => fetch(`${s.url}${p}`, { headers: { authorization: `Bearer ${token}` } });
    const served = await get(admin.token, ok.body.file[0]);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    const thumb = await get(admin.token, ok.body.thumb[0]);
    const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 240]);
    const stranger = await signUpVia(call);
    expect((await get(stranger.token, ok.body.file[0])).status).toBe(404);
    expect((await fetch(`${s.url}${ok.body.file[0]}`)).status).toBe(401);
    // An executable named .png is refused and nothing is stored; a text file named .png is stored as text.
    const exe = Buffer.concat([Buffer.from('MZ\x90\x00', 'latin1'), Buffer.alloc(512, 1)]);
    const refused = await upload(agent.token, [{ name: 'cute.png', data: exe }]);
    expect(refused.status).toBe(400);
    expect(refused.body.description).toBe(MESSAGE_STRINGS.fileType);
    const elf = await upload(agent.token, [
      { name: 'ok.png', data: png },
      { name: 'x.png', data: Buffer.from('\x7fELF....', 'latin1') },
    ]);
    expect(elf.status).toBe(400);
    const stored = await db().selectFrom('uploads').select('name').where('account_id', '=', admin.accountId).execute();
    expect(stored.map((r) => r.name)).toEqual(['screen.png']);
    const text = await upload(agent.token, [{ name: 'notes.png', data: Buffer.from('just text') }]);
    expect(text.body.fileType).toEqual(['text/plain']);
    const dl = await get(agent.token, text.body.file[0]);
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment/);
    // The file goes out with a message; another account's file cannot be attached.
    const withFile = await send(agent.token, {
      ticket_id: ticket,
      message: '',
      type: 'image',
      files: [ok.body.file[0]],
    });
    expect(withFile.body.data.files[0]).toMatchObject({ fileName: 'screen.png', fileType: 'image/png' });
    const foreign = await upload(stranger.token, [{ name: 'a.png', data: png }]);
    const steal = await send(agent.token, { ticket_id: ticket, message: 'x', files: [foreign.body.file[0]] });
    expect(steal.status).toBe(400);
  });

  it('MSG-49 MSG-50 MSG-51 MSG-52 MSG-07 MSG-53 translation answers not_configured until a provider is set; language is stored', async () => {
    const { admin, ticket } = await newTeam();
    const m = (await send(admin.token, { ticket_id: ticket, message: 'Hello' })).body.data;
    const t = await call('POST', '/api/translate', {
      token: admin.token,
      body: { ticketId: ticket, text: [{ id: m.id, message: 'Hello' }], target: 'ms' },
    });
    expect(t.status).toBe(200);
    expect(t.body).toEqual({ result: 'not_configured', description: 'Translation is not configured.' });
    expect((await call('GET', '/api/services', { token: admin.token })).body).toMatchObject({ translate: false });
    // Bad input is still refused first.
    const bad = await call('POST', '/api/translate', { token: admin.token, body: { ticketId: ticket, text: [] } });
    expect(bad.status).toBe(400);
    const lang = await call('POST', '/api/language/set', {
      token: admin.token,
      body: { ticketId: ticket, lang: 'ms' },
    });
    expect(lang.body).toEqual({ result: 'success', language: 'ms' });
    expect(
      (await call('POST', '/api/language/set', { token: admin.token, body: { ticketId: ticket, lang: 'x;' } })).status,
    ).toBe(400);
  });

  it('MSG-01 MSG-02 MSG-04 bad input is refused clearly and changes nothing', async () => {
    const { admin, ticket } = await newTeam();
    const other = await newTeam();
    const foreignMsg = (await send(other.admin.token, { ticket_id: other.ticket, message: 'theirs' })).body.data;
    const cases: [Record<string, unknown>, number, string | RegExp][] = [
      [{ ticket_id: ticket, message: 'x'.repeat(20_001) }, 400, MESSAGE_STRINGS.tooLong(20_000)],
      [{ ticket_id: ticket, message: 'x', type: 'weird' }, 400, MESSAGE_STRINGS.badType],
      [{ ticket_id: ticket, message: 'x', type: 'system' }, 400, MESSAGE_STRINGS.badType],
      [{ ticket_id: ticket, message: '   ' }, 400, MESSAGE_STRINGS.empty],
      [{ ticket_id: ticket, message: 'x', reply_id: foreignMsg.id }, 400, MESSAGE_STRINGS.replyNotFound],
      [{ ticket_id: other.ticket, message: 'x' }, 404, 'Ticket not found.'],
      [{ ticket_id: 'abc', message: 'x' }, 400, /ticket_id|number/i],
    ];
    for (const [body, status, text] of cases) {
      const r = await send(admin.token, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      if (typeof text === 'string') expect(r.body.description).toBe(text);
      else expect(r.body.description).toMatch(text);
    }
    const huge = await call('POST', '/api/ticket/message', {
      token: admin.token,
      raw: JSON.stringify({ ticket_id: ticket, message: 'x'.repeat(1_100_000) }),
    });
    expect(huge.status).toBe(413);
    expect(await count(ticket)).toBe(0);
    expect((await history(admin.token, other.ticket)).status).toBe(404);
    // An HTML body is stored as written; every answer forbids inline script.
    const html = await send(admin.token, {
      ticket_id: ticket,
      type: 'text/html',
      message: '<p>hi</p><script>alert(1)</script>',
    });
    expect(html.status).toBe(200);
    const page = await fetch(`${s.url}/api/label/get`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('RT-09 RT-11 RT-39 typing and read receipts go to the other members of the ticket room only', async () => {
    const { admin, agent, ticket } = await newTeam();
    const a = await connectSocket(s.url, admin.token, opened);
    const b = await connectSocket(s.url, agent.token, opened);
    const join = (sock: TestSocket) => new Promise<any>((r) => sock.emit('joinRoom', ticket, r));
    expect(await join(a)).toEqual({ ok: true });
    expect(await join(b)).toEqual({ ok: true });
    const seenA = record(a);
    const seenB = record(b);
    b.emit('sendTyping', ticket);
    await waitFor(() => seenA('sendTyping').length === 1, 'typing');
    expect(seenA('sendTyping')[0]).toEqual({ ticketId: ticket, username: agent.username, name: 'Bo' });
    b.emit('removeTyping', ticket);
    await waitFor(() => seenA('removeTyping').length === 1, 'removeTyping');
    a.emit('readMessage', { ticketId: ticket, messageId: 5 });
    await waitFor(() => seenB('readMessage').length === 1, 'readMessage');
    expect(seenB('readMessage')[0]).toMatchObject({ ticketId: ticket, username: admin.username, messageId: 5 });
    expect(seenB('sendTyping')).toEqual([]);
    const read = await db()
      .selectFrom('ticket_reads')
      .select('read_at')
      .where('ticket_id', '=', ticket)
      .where('user_id', '=', admin.userId)
      .executeTakeFirst();
    expect(read).toBeTruthy();
  });
});

describe('translation provider', () => {
  it('MSG-07 MSG-49 MSG-53 a LibreTranslate-compatible server translates and the text is stored per language', async () => {
    const asked: any[] = [];
    const fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const q = JSON.parse(body);
        asked.push(q);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ translatedText: q.q.map((t: string) => `[${q.target}] ${t}`) }));
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const s = await startTestServer('sqlite', {
      TRANSLATE_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    });
    try {
      const call = apiClient(s.url);
      const admin = await signUpVia(call);
      const at = Date.now();
      const t = await s.handle.db
        .insertInto('tickets')
        .values({
          account_id: admin.accountId,
          ticket_number: 1,
          title: 't',
          channel: 'EMAIL',
          closed: 0,
          priority: '',
          label: '[]',
          department_id: null,
          assignee: '',
          name: '',
          email: '',
          phone: '',
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const m = await call('POST', '/api/ticket/message', {
        token: admin.token,
        body: { ticket_id: t.id, message: 'Good morning' },
      });
      const r = await call('POST', '/api/translate', {
        token: admin.token,
        body: { ticketId: t.id, text: [{ id: m.body.data.id, message: 'Good morning' }], target: 'ms', source: 'en' },
      });
      expect(r.body.data).toEqual([{ id: m.body.data.id, message: 'Good morning', translated: '[ms] Good morning' }]);
      expect((await call('GET', '/api/services', { token: admin.token })).body).toMatchObject({ translate: true });
      expect(asked[0]).toMatchObject({ q: ['Good morning'], source: 'en', target: 'ms', format: 'text' });
      const h = await call('GET', `/ticket/data/${t.id}/0`, { token: admin.token });
      expect(h.body.data[0].translated_text).toEqual({ ms: '[ms] Good morning' });
    } finally {
      await s.stop();
      fake.close();
    }
  });

  it('MSG-49 MSG-50 MSG-51 MSG-52 with the LibreTranslate stand-in: /api/translate and /api/translate2 skip texts already in the target, name the source read offline, and pass on its errors clearly', async () => {
    const lt = await startLibreTranslateStandIn({ key: 'lt-key' });
    const s = await startTestServer('sqlite', {
      TRANSLATE_URL: lt.url,
      TRANSLATE_API_KEY: 'lt-key',
      AI_TIMEOUT_MS: '500',
    });
    try {
      const call = apiClient(s.url);
      const admin = await signUpVia(call);
      const other = await signUpVia(call);
      const ticket = await insertTicket(s.handle.db, admin.accountId);
      const en = 'Good morning, my parcel has not arrived yet';
      const ms = 'Selamat pagi, bungkusan saya belum sampai lagi';
      for (const path of ['/api/translate', '/api/translate2']) {
        lt.got.length = 0;
        const r = await call('POST', path, {
          token: admin.token,
          body: {
            ticketId: ticket,
            text: [
              { id: 0, message: en },
              { id: 0, message: ms },
            ],
            target: 'ms',
          },
        });
        expect(r.body, path).toEqual({
          result: 'success',
          target: 'ms',
          data: [
            { id: 0, message: en, translated: `[ms] ${en}` },
            { id: 0, message: ms, translated: ms },
          ],
        });
        expect(lt.got.map((g) => g.body)).toEqual([
          { q: [en], source: 'en', target: 'ms', format: 'text', api_key: 'lt-key' },
        ]);
      }
      // Nothing to translate: no call at all.
      lt.got.length = 0;
      const same = await call('POST', '/api/translate', {
        token: admin.token,
        body: { ticketId: ticket, text: [{ id: 0, message: ms }], target: 'ms' },
      });
      expect(same.body.data[0].translated).toBe(ms);
      expect(lt.got).toEqual([]);
      // Another account's ticket is not found before any provider is asked.
      const theirs = await call('POST', '/api/translate', {
        token: other.token,
        body: { ticketId: ticket, text: [{ id: 0, message: en }], target: 'ms' },
      });
      expect(theirs.status).toBe(404);
      expect(lt.got).toEqual([]);
      lt.faults.push({ status: 429, retryAfter: '9' });
      const limited = await call('POST', '/api/translate', {
        token: admin.token,
        body: { ticketId: ticket, text: [{ id: 0, message: en }], target: 'ms' },
      });
      expect(limited.status).toBe(429);
      expect(limited.body.description).toBe(TRANSLATE_STRINGS.rateLimited(9));
      lt.faults.push({ slowMs: 2_000 });
      const slow = await call('POST', '/api/translate', {
        token: admin.token,
        body: { ticketId: ticket, text: [{ id: 0, message: en }], target: 'ms' },
      });
      expect(slow.status).toBe(502);
      expect(slow.body.description).toBe(TRANSLATE_STRINGS.timedOut(0.5));
      expect(slow.text).not.toContain(en);
    } finally {
      await s.stop();
      await lt.close();
    }
  });
});
