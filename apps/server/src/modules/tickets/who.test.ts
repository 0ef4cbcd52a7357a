import { NotificationGetAnswer, TICKET_CREATE_STRINGS, VISITOR_DETAILS_STRINGS } from '@parley/contracts';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { form, liveChatAccount, nextVisitorIp, type VisitorClient } from '../../testing/livechat.js';
import { waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

/** Who said what: ticket notes with mentions, a new ticket with its customer, a live chat's visitor details. */
describe.each(dialects)('who said what (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const opened: { close(): void }[] = [];
  const db = () => server.handle.db;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    call = apiClient(server.url);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await server?.stop();
  });

  const count = async (table: 'tickets' | 'messages' | 'ticket_notes', accountId: number) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("a new ticket takes a customer, a first message stored as the customer's, assignees, department and labels", async () => {
    const a = await signUpVia(call);
    const dana = await addUserVia(call, a.token, { username: `dana-${uniq()}`, name: 'Dana Scully', type: 'agent' });
    const dep = await call('POST', '/api/departments', { token: a.token, body: { name: `Sales ${uniq()}` } });
    const labels = await call('POST', '/api/label/update', {
      token: a.token,
      body: { labelArray: [{ name: 'VIP', color: '#FF0000', colorDark: '#FFFFFF', level: 0, sla: 30 }], delete: [] },
    });
    expect(labels.status, labels.text).toBe(200);
    const labelId = (await call('GET', '/api/label/get', { token: a.token })).body.data.find(
      (l: { name: string }) => l.name === 'VIP',
    ).id as number;
    const r = await call('POST', '/api/ticket/create', {
      token: a.token,
      body: {
        title: 'Broken kettle',
        name: 'Carla Customer',
        email: 'carla@example.com',
        message: 'My kettle stopped working.',
        assignee: [dana.username],
        department_id: dep.body.data.id,
        label: [labelId],
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      name: 'Carla Customer',
      email: 'carla@example.com',
      assignee: dana.username,
      department_id: dep.body.data.id,
      label: [labelId],
    });
    const history = await call('GET', `/api/ticket/data3/${r.body.data.id}/0`, { token: a.token });
    const customer = history.body.data.find((m: { message: string }) => m.message === 'My kettle stopped working.');
    expect(customer).toMatchObject({ sender: 'visitor', senderName: 'Carla Customer' });
  });

  it('a new ticket refuses a message without a customer, a bad e-mail and an unknown assignee, creating nothing', async () => {
    const a = await signUpVia(call);
    const before = [await count('tickets', a.accountId), await count('messages', a.accountId)];
    const cases: [unknown, string | RegExp][] = [
      [{ title: 'x', message: 'hello' }, TICKET_CREATE_STRINGS.customerRequired],
      [{ title: 'x', email: 'not-an-address' }, TICKET_CREATE_STRINGS.badEmail('not-an-address')],
      [{ title: 'x', name: 'C', message: 'hi', assignee: ['nobody-here'] }, /nobody-here/],
      [{ title: 'x', name: 'C', assignee: 'dana' }, /./],
      [{ title: 'x', name: 'C', message: 'x'.repeat(20_001) }, /./],
      [{ title: 'x', name: 'C', assignee: [''] }, /./],
    ];
    for (const [body, description] of cases) {
      const r = await call('POST', '/api/ticket/create', { token: a.token, body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.description).toMatch(description);
    }
    expect([await count('tickets', a.accountId), await count('messages', a.accountId)]).toEqual(before);
  });

  it('ticket notes: staff only, @mention notifies the other agent, author or admin deletes, bad input refused', async () => {
    const a = await signUpVia(call);
    const dana = await addUserVia(call, a.token, { username: `dana-${uniq()}`, name: 'Dana Scully', type: 'agent' });
    const fox = await addUserVia(call, a.token, { username: `fox-${uniq()}`, name: 'Fox Mulder', type: 'agent' });
    const t = (await call('POST', '/api/ticket/create', { token: a.token, body: { title: 'Noted', name: 'C' } })).body
      .data as { id: number; ticket_number: number };
    const add = await call('POST', '/api/ticket/notes/add', {
      token: dana.token,
      body: { ticketId: t.id, text: `  Refund approved, @${fox.username} please send it.  ` },
    });
    expect(add.status, add.text).toBe(200);
    expect(add.body.data).toMatchObject({
      ticketId: t.id,
      sender: dana.username,
      senderName: 'Dana Scully',
      text: `Refund approved, @${fox.username} please send it.`,
    });
    const list = await call('GET', `/api/ticket/notes/${t.id}`, { token: fox.token });
    expect(list.body.data.map((n: { text: string }) => n.text)).toEqual([add.body.data.text]);
    // Never a message of the conversation.
    const history = await call('GET', `/api/ticket/data3/${t.id}/0`, { token: a.token });
    expect(JSON.stringify(history.body)).not.toContain('Refund approved');
    // The mention arrives through the mention listener, to the named agent only.
    const told = await waitFor(async () => {
      const l = NotificationGetAnswer.parse(
        (await call('GET', '/notification/get?type=system&offset=0', { token: fox.token })).body,
      ).filter((n) => n.ticket_number === t.ticket_number);
      return l.length > 0 ? l : null;
    }, 'mention notification');
    expect(told?.[0]?.body).toContain('Dana Scully');
    const danaList = NotificationGetAnswer.parse(
      (await call('GET', '/notification/get?type=system&offset=0', { token: dana.token })).body,
    );
    expect(danaList.filter((n) => n.ticket_number === t.ticket_number)).toEqual([]);

    // Bad input: 400 and nothing stored.
    const before = await count('ticket_notes', a.accountId);
    for (const body of [
      { ticketId: t.id, text: '   ' },
      { ticketId: t.id, text: 'x'.repeat(5_001) },
      { ticketId: 'x', text: 'a' },
      { ticketId: -1, text: 'a' },
      { text: 'a' },
      { ticketId: t.id, text: 42 },
    ]) {
      const r = await call('POST', '/api/ticket/notes/add', { token: dana.token, body });
      expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(r.body.description).toBeTruthy();
    }
    expect((await call('GET', '/api/ticket/notes/abc', { token: dana.token })).status).toBe(400);
    expect((await call('POST', '/api/ticket/notes/delete', { token: dana.token, body: { id: 'x' } })).status).toBe(400);
    expect(await count('ticket_notes', a.accountId)).toBe(before);

    // Another account sees and changes nothing.
    const b = await signUpVia(call);
    expect((await call('GET', `/api/ticket/notes/${t.id}`, { token: b.token })).status).toBe(404);
    const foreign = await call('POST', '/api/ticket/notes/add', {
      token: b.token,
      body: { ticketId: t.id, text: 'x' },
    });
    expect(foreign.status).toBe(404);
    const id = add.body.data.id as number;
    expect((await call('POST', '/api/ticket/notes/delete', { token: b.token, body: { id } })).status).toBe(404);
    // Only the author or an admin deletes.
    expect((await call('POST', '/api/ticket/notes/delete', { token: fox.token, body: { id } })).status).toBe(403);
    expect((await call('POST', '/api/ticket/notes/delete', { token: a.token, body: { id } })).status).toBe(200);
    expect((await call('GET', `/api/ticket/notes/${t.id}`, { token: dana.token })).body.data).toEqual([]);
  });

  it("a live chat's visitor details: form fields, page, browser, the session's chats and the contact's tickets (e-mail any case, phone digits)", async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), 1);
    const email = `vera-${uniq()}@example.com`;
    // An earlier ticket of the same contact.
    const earlier = await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: { title: 'Earlier order', name: 'Vera', email: email.toUpperCase() },
    });
    // One with the same phone written another way; one with another number.
    const samePhone = await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: { title: 'Called about the order', name: 'V.', phone: '(01) 2-3' },
    });
    await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: { title: 'Someone else', name: 'W.', phone: '01234' },
    });
    const ip = nextVisitorIp();
    const info = await call('POST', '/api/livechat/info', { body: { token }, headers: { 'x-forwarded-for': ip } });
    const csrf = info.body.csrf as string;
    const socket: VisitorClient = io(`${server.url}/visitor`, {
      transports: ['websocket'],
      auth: { token, csrf },
      reconnection: false,
      forceNew: true,
      extraHeaders: { 'x-forwarded-for': ip, 'user-agent': 'TestBrowser/1.0 (Who)' },
    });
    opened.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const q = await socket.emitWithAck('registerQueue', {
      token,
      csrf,
      ...form('Vera'),
      email,
      ic: 'ID-77',
      page: 'https://shop.example/pricing',
    });
    expect(q.ok).toBe(true);
    const accepted = await call('POST', '/api/livechat/accept', { token: agents[0]!.token, body: { id: null } });
    expect(accepted.status, accepted.text).toBe(200);
    const ticketId = Number(accepted.body.ticket_id ?? accepted.body.data?.ticket_id);
    const r = await call('GET', `/api/livechat/visitor/${ticketId}`, { token: agents[0]!.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      ticketId,
      name: 'Vera',
      email,
      phone: '0123',
      ic: 'ID-77',
      page: 'https://shop.example/pricing',
      browser: 'TestBrowser/1.0 (Who)',
      state: 'chatting',
      chats: [],
    });
    expect(r.body.data.tickets.map((t: { id: number }) => t.id).sort()).toEqual(
      [earlier.body.data.id, samePhone.body.data.id].sort(),
    );
    // Another account's agent: 404, as for a ticket that has no visitor; bad ids are 400.
    const b = await signUpVia(call);
    const foreign = await call('GET', `/api/livechat/visitor/${ticketId}`, { token: b.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.description).toBe(VISITOR_DETAILS_STRINGS.notFound);
    expect((await call('GET', `/api/livechat/visitor/${earlier.body.data.id}`, { token: admin.token })).status).toBe(
      404,
    );
    for (const bad of ['abc', '0', '-3', '1.5'])
      expect((await call('GET', `/api/livechat/visitor/${bad}`, { token: admin.token })).status, bad).toBe(400);
  });
});
