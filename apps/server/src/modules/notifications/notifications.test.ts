import { NotificationCheckAnswer, NotificationGetAnswer } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { connectSocket, flushSockets, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { notifyUsers } from './index.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('notifications API (%s)', (dialect) => {
  let server: Server;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { id: number; token: string; username: string };
  const sockets: TestSocket[] = [];

  const raise = (accountId: number, userId: number, category: 'sla' | 'system' | 'trade', n: number, tag = 'n') =>
    runCommand(server.handle.db, async (trx) => {
      for (let i = 1; i <= n; i++)
        await notifyUsers(trx, {
          accountId,
          userIds: [userId],
          category,
          type: category === 'trade' ? 'Bullish' : 'warning',
          title: `${tag} ${i}`,
          body: `body ${i}`,
          ticketNumber: i,
        });
    });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    call = apiClient(server.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await server?.stop();
  });

  it('NOTIF-22 NOTIF-23 check flags map unread to SLA, unread_2 to System, unread_3 to Trade', async () => {
    const empty = await call('GET', `/notification/check?_token=${a.token}`);
    expect(empty.status).toBe(200);
    expect(NotificationCheckAnswer.parse(empty.body)).toEqual({
      result: 'success',
      unread: false,
      unread_2: false,
      unread_3: false,
    });
    await raise(a.accountId, a.userId, 'system', 1);
    const r = await call('GET', '/notification/check', { token: a.token });
    expect(r.body).toMatchObject({ unread: false, unread_2: true, unread_3: false });
    await raise(a.accountId, a.userId, 'trade', 1);
    await raise(a.accountId, a.userId, 'sla', 1);
    const all = await call('GET', '/notification/check', { token: a.token });
    expect(all.body).toMatchObject({ unread: true, unread_2: true, unread_3: true });
    // Another user of the account sees none of them.
    const other = await call('GET', '/notification/check', { token: agent.token });
    expect(other.body).toMatchObject({ unread: false, unread_2: false, unread_3: false });
  });

  it('NOTIF-07 NOTIF-24 NOTIF-25 NOTIF-26 first page, lastId paging, offset paging, newest first', async () => {
    await raise(a.accountId, agent.id, 'sla', 23, 'page');
    const first = await call('GET', '/notification/get?type=sla&offset=0', { token: agent.token });
    expect(first.status).toBe(200);
    const p1 = NotificationGetAnswer.parse(first.body);
    expect(p1.map((n) => n.title)).toEqual(Array.from({ length: 10 }, (_, i) => `page ${23 - i}`));
    expect(p1[0]).toMatchObject({ seen: false, type: 'warning', channel: 'ticket', category: 'sla', img: null });
    expect(Math.abs(p1[0]!.ts - Date.now() / 1000)).toBeLessThan(60);
    const second = await call('GET', `/notification/get?type=sla&lastId=${p1.at(-1)!.id}&offset=10`, {
      token: agent.token,
    });
    const p2 = NotificationGetAnswer.parse(second.body);
    expect(p2.map((n) => n.title)).toEqual(Array.from({ length: 10 }, (_, i) => `page ${13 - i}`));
    const third = await call('GET', `/notification/get?type=sla&lastId=${p2.at(-1)!.id}&offset=20`, {
      token: agent.token,
    });
    expect(NotificationGetAnswer.parse(third.body).map((n) => n.title)).toEqual(['page 3', 'page 2', 'page 1']);
    const byOffset = await call('GET', '/notification/get?type=sla&offset=20', { token: agent.token });
    expect(byOffset.body).toHaveLength(3);
    // Other tabs hold none of them.
    expect((await call('GET', '/notification/get?type=system&offset=0', { token: agent.token })).body).toEqual([]);
  });

  it('NOTIF-24 bad input: a lastId of letters, an unknown type, no session', async () => {
    for (const q of ['type=sla&lastId=abc', 'type=sla&lastId=1e3', 'type=news', 'type=sla&offset=-1', '']) {
      const r = await call('GET', `/notification/get?${q}`, { token: agent.token });
      expect(r.status, q).toBe(400);
      expect(r.body.result).toBe('failed');
    }
    expect((await call('GET', '/notification/get?type=sla')).status).toBe(401);
    expect((await call('GET', '/notification/check')).status).toBe(401);
  });

  it('NOTIF-12 NOTIF-27 NOTIF-28 read marks the category up to lastId; trade is accepted', async () => {
    const page = NotificationGetAnswer.parse(
      (await call('GET', '/notification/get?type=sla&offset=0', { token: agent.token })).body,
    );
    const mid = page[5]!;
    const r = await call('POST', '/api/notification/read', {
      token: agent.token,
      body: { lastId: mid.id, category: 'sla' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success' });
    const after = NotificationGetAnswer.parse(
      (await call('GET', '/notification/get?type=sla&offset=0', { token: agent.token })).body,
    );
    expect(after.slice(0, 5).every((n) => !n.seen)).toBe(true);
    expect(after.slice(5).every((n) => n.seen)).toBe(true);
    await call('POST', '/api/notification/read', { token: agent.token, body: { category: 'sla' } });
    expect((await call('GET', '/notification/check', { token: agent.token })).body.unread).toBe(false);
    await raise(a.accountId, agent.id, 'trade', 1);
    expect((await call('GET', '/notification/check', { token: agent.token })).body.unread_3).toBe(true);
    const t = await call('POST', '/api/notification/read', { token: agent.token, body: { category: 'trade' } });
    expect(t.status).toBe(200);
    expect((await call('GET', '/notification/check', { token: agent.token })).body.unread_3).toBe(false);
  });

  it("NOTIF-13 NOTIF-27 NOTIF-29 another user's or account's notification cannot be read or removed", async () => {
    await raise(b.accountId, b.userId, 'system', 1, 'theirs');
    const theirs = NotificationGetAnswer.parse(
      (await call('GET', '/notification/get?type=system&offset=0', { token: b.token })).body,
    )[0]!;
    const mine = NotificationGetAnswer.parse(
      (await call('GET', '/notification/get?type=system&offset=0', { token: a.token })).body,
    )[0]!;
    for (const token of [a.token, agent.token]) {
      const rm = await call('POST', '/api/notification/remove', { token, body: { id: theirs.id } });
      expect(rm.status).toBe(404);
      expect(rm.body.description).toBe('Notification not found.');
      const rd = await call('POST', '/api/notification/read', {
        token,
        body: { lastId: theirs.id, category: 'system' },
      });
      expect(rd.status).toBe(404);
    }
    // The agent cannot touch the admin's either (same account, another user).
    expect((await call('POST', '/api/notification/remove', { token: agent.token, body: { id: mine.id } })).status).toBe(
      404,
    );
    for (const body of [{ id: 'x' }, {}, { id: -1 }])
      expect((await call('POST', '/api/notification/remove', { token: a.token, body })).status).toBe(400);
    expect((await call('POST', '/api/notification/read', { token: a.token, body: { category: 'news' } })).status).toBe(
      400,
    );
    // Nothing changed for the owners.
    const still = NotificationGetAnswer.parse(
      (await call('GET', '/notification/get?type=system&offset=0', { token: b.token })).body,
    );
    expect(still[0]).toMatchObject({ id: theirs.id, seen: false });
    expect((await call('GET', '/notification/check', { token: b.token })).body.unread_2).toBe(true);
    // The owner removes it.
    const ok = await call('POST', '/api/notification/remove', { token: b.token, body: { id: theirs.id } });
    expect(ok.body).toEqual({ result: 'success' });
    expect((await call('GET', '/notification/get?type=system&offset=0', { token: b.token })).body).toEqual([]);
  });

  it('NOTIF-16 newNotification goes to the user room only, with the category and fields', async () => {
    const mine = await connectSocket(server.url, agent.token, sockets);
    const admin = await connectSocket(server.url, a.token, sockets);
    const got: unknown[] = [];
    const adminGot: unknown[] = [];
    (mine as unknown as { on(n: string, f: (e: { data: unknown }) => void): void }).on('newNotification', (e) =>
      got.push(e.data),
    );
    (admin as unknown as { on(n: string, f: (e: { data: unknown }) => void): void }).on('newNotification', (e) =>
      adminGot.push(e.data),
    );
    await raise(a.accountId, agent.id, 'system', 1, 'live');
    await waitFor(() => got.length === 1, 'newNotification');
    expect(got[0]).toMatchObject({ category: 'system', title: 'live 1', seen: false, ticket_number: 1 });
    await flushSockets(server.handle.db, a.accountId, [admin]);
    expect(adminGot).toHaveLength(0);
  });

  it('NOTIF-16 "assigned to you": a manual assignment tells the new assignee once, not the one who assigned', async () => {
    const db = server.handle.db;
    const t = await db
      .insertInto('tickets')
      .values({
        account_id: a.accountId,
        ticket_number: 501,
        title: 'Printer on fire',
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: '',
        name: 'C',
        email: 'c@example.net',
        phone: '',
        created_at: 1,
        updated_at: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const r = await call('POST', '/api/ticket/assign', {
      token: a.token,
      body: { id: Number(t.id), assignee: [agent.username, a.username] },
    });
    expect(r.status).toBe(200);
    const list = await waitFor(async () => {
      const l = NotificationGetAnswer.parse(
        (await call('GET', '/notification/get?type=system&offset=0', { token: agent.token })).body,
      );
      return l.find((n) => n.ticket_number === 501) ? l : null;
    }, 'assigned notification');
    const n = list!.filter((x) => x.ticket_number === 501);
    expect(n).toHaveLength(1);
    expect(n[0]).toMatchObject({ title: 'Assigned to you: #501', category: 'system' });
    expect(n[0]!.body).toContain('Printer on fire');
    // The admin assigned themselves: no notice.
    const adminList = NotificationGetAnswer.parse(
      (await call('GET', '/notification/get?type=system&offset=0', { token: a.token })).body,
    );
    expect(adminList.some((x) => x.ticket_number === 501)).toBe(false);
  });
  it('NOTIF-10 NOTIF-07 an assignment by a user with a picture carries it; /cdn/avatar serves it in the account only', async () => {
    const db = server.handle.db;
    const key = `k${uniq()}`.padEnd(22, 'x').slice(0, 22);
    const photo = `/files/${key}/thumb.jpg`;
    await db.updateTable('users').set({ photo }).where('id', '=', a.userId).execute();
    const t = await db
      .insertInto('tickets')
      .values({
        account_id: a.accountId,
        ticket_number: 502,
        title: 'Kettle leaks',
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: '',
        name: 'C',
        email: 'c@example.net',
        phone: '',
        created_at: 1,
        updated_at: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const r = await call('POST', '/api/ticket/assign', {
      token: a.token,
      body: { id: Number(t.id), assignee: [agent.username] },
    });
    expect(r.status).toBe(200);
    const n = await waitFor(async () => {
      const l = NotificationGetAnswer.parse(
        (await call('GET', '/notification/get?type=system&offset=0', { token: agent.token })).body,
      );
      return l.find((x) => x.ticket_number === 502) ?? null;
    }, 'assigned notification');
    expect(n!.img).toEqual({ uid: a.username, file_name: key });

    const url = `/cdn/avatar/${encodeURIComponent(a.username)}/${key}?w=50&h=50`;
    const ok = await fetch(`${server.url}${url}`, {
      headers: { authorization: `Bearer ${agent.token}` },
      redirect: 'manual',
    });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toBe(photo);
    // Another account's user, an unknown user, no session, a bad size: refused.
    for (const [token, path, status] of [
      [b.token, url, 404],
      [agent.token, `/cdn/avatar/nobody-${uniq()}/${key}`, 404],
      [undefined, url, 401],
      [agent.token, `/cdn/avatar/${encodeURIComponent(a.username)}/${key}?w=abc`, 400],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        redirect: 'manual',
      });
      expect(res.status, path).toBe(status);
    }
    // Without a picture, no avatar: the item shows its type's icon.
    await db.updateTable('users').set({ photo: null }).where('id', '=', a.userId).execute();
    const gone = await fetch(`${server.url}${url}`, {
      headers: { authorization: `Bearer ${agent.token}` },
      redirect: 'manual',
    });
    expect(gone.status).toBe(404);
  });
});
