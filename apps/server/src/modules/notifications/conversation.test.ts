import { NotificationGetAnswer } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules, createParley, type Parley } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { startPushEndpoint } from '../../testing/pushEndpoint.js';
import { connectSocket, relayed, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { postMessage } from '../messages/index.js';
import { createTicket } from '../tickets/index.js';
import { mentionedNames } from './index.js';

type User = { id: number; token: string; username: string };

it('NOTIF-16 mentionedNames: @username by the username rule, a trailing dot is not part of it, e-mails are not', () => {
  expect(mentionedNames('@Bob. please ask @alice_1, not a@b.com; @x is too short')).toEqual(['bob.', 'bob', 'alice_1']);
  expect(mentionedNames('no mention')).toEqual([]);
});

describe.each(dialects)('pushes for tickets and messages, mentions, transfers (%s)', (dialect) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let parley: Parley;
  let push: Awaited<ReturnType<typeof startPushEndpoint>>;
  let call: Call;
  let a: SignedUp;
  let dept = 0;
  /** In the department, no tab. */
  let inDept: User;
  /** In the department, a focused tab. */
  let focused: User;
  /** In no department. */
  let other: User;
  const sockets: TestSocket[] = [];
  let url = '';
  /** Endpoint path -> username. */
  const owner = new Map<string, string>();

  const subscribe = async (u: { token: string; username: string }) => {
    const sub = push.subscription(`${u.username}-${uniq()}`);
    owner.set(new URL(sub.endpoint).pathname, u.username);
    const r = await call('POST', '/api/fcm/token', { token: u.token, body: { token: sub, type: 'web', domain: 'x' } });
    expect(r.status).toBe(200);
  };
  /** Every push received so far, decrypted, with whom it went to. */
  const pushes = () =>
    push.received.map(
      (r) => ({ to: owner.get(r.path), ...JSON.parse(push.decrypt(r.body)) }) as Record<string, unknown>,
    );
  const pushesOf = (kind: string, match: (p: Record<string, unknown>) => boolean) =>
    pushes().filter((p) => p.kind === kind && match(p));
  const systemList = async (token: string) =>
    NotificationGetAnswer.parse((await call('GET', '/notification/get?type=system&offset=0', { token })).body);

  beforeAll(async () => {
    push = await startPushEndpoint();
    fresh = await freshDatabase(dialect);
    parley = await createParley(testConfig({ ...fresh.env, PUSH_ALLOWED_HOSTS: push.allowedHost }), {
      logger: pino({ level: 'silent' }),
      pushAgent: push.agent,
    });
    url = `http://127.0.0.1:${await parley.listen()}`;
    call = apiClient(url);
    a = await signUpVia(call);
    dept = (await call('POST', '/api/departments', { token: a.token, body: { name: 'Support' } })).body.data.id;
    const add = (username: string, departments: number[]) =>
      addUserVia(call, a.token, { username, type: 'agent', departments } as never);
    inDept = await add(`dept-${uniq()}`, [dept]);
    focused = await add(`focus-${uniq()}`, [dept]);
    other = await add(`other-${uniq()}`, []);
    for (const u of [a, inDept, focused, other]) await subscribe(u);
    const s = await connectSocket(url, focused.token, sockets);
    s.emit('notificationFocus', true);
    await waitFor(
      async () =>
        Boolean(
          await parley.handle.db
            .selectFrom('notification_focus')
            .select('socket_id')
            .where('user_id', '=', focused.id)
            .executeTakeFirst(),
        ),
      'focus row',
    );
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await parley?.close();
    await fresh?.drop();
    await push?.close();
  });

  it('NOTIF-35 a new unassigned ticket is pushed to its department agents with no focused tab, and no one else', async () => {
    const r = await call('POST', '/api/ticket/create', {
      token: a.token,
      body: { title: 'Refund please', name: 'Carla', department_id: dept },
    });
    expect(r.status).toBe(200);
    const n = r.body.data.ticket_number as number;
    const got = await waitFor(() => {
      const l = pushesOf('ticket', (p) => p.ticket_number === n);
      return l.length > 0 ? l : null;
    }, 'new ticket push');
    await relayed(parley.handle.db, a.accountId);
    const all = pushesOf('ticket', (p) => p.ticket_number === n);
    expect(all.map((p) => p.to)).toEqual([inDept.username]);
    expect(got![0]).toMatchObject({
      title: `New ticket: #${n}`,
      body: 'Carla: Refund please',
      url: `/ticket?number=${n}`,
      tag: `ticket-${r.body.data.id}`,
      channel: 'MANUAL',
    });
  });

  it('NOTIF-35 a ticket with no department goes to every user without focus; an assigned one to its assignees only', async () => {
    const r = await call('POST', '/api/ticket/create', { token: a.token, body: { title: 'No team' } });
    const n = r.body.data.ticket_number as number;
    await waitFor(() => pushesOf('ticket', (p) => p.ticket_number === n).length >= 3, 'pushes to everyone');
    await relayed(parley.handle.db, a.accountId);
    expect(
      pushesOf('ticket', (p) => p.ticket_number === n)
        .map((p) => p.to)
        .sort(),
    ).toEqual([a.username, inDept.username, other.username].sort());
    // Assigned in the transaction that creates it (as the automatic assignment does): the assignee only.
    const id = await runCommand(parley.handle.db, async (trx) => {
      const t = await createTicket(trx, conversationRules(), {
        accountId: a.accountId,
        channel: 'EMAIL',
        title: 'For you',
        departmentId: dept,
      });
      await trx.updateTable('tickets').set({ assignee: other.username }).where('id', '=', t).execute();
      return t;
    });
    const row = await parley.handle.db
      .selectFrom('tickets')
      .select('ticket_number')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const m = Number(row.ticket_number);
    await waitFor(() => pushesOf('ticket', (p) => p.ticket_number === m).length >= 1, 'push to the assignee');
    await relayed(parley.handle.db, a.accountId);
    expect(pushesOf('ticket', (p) => p.ticket_number === m).map((p) => p.to)).toEqual([other.username]);
  });

  it("NOTIF-35 a customer's message in my ticket is pushed to its assignees; an agent's reply is not", async () => {
    const created = await call('POST', '/api/ticket/create', {
      token: a.token,
      body: { title: 'Where is my order', name: 'Dora', department_id: dept },
    });
    const t = created.body.data as { id: number; ticket_number: number };
    const assign = await call('POST', '/api/ticket/assign', {
      token: a.token,
      body: { id: t.id, assignee: [inDept.username, focused.username] },
    });
    expect(assign.status).toBe(200);
    await runCommand(parley.handle.db, (trx) =>
      postMessage(trx, conversationRules(), {
        accountId: a.accountId,
        ticketId: t.id,
        sender: 'dora@example.net',
        senderName: 'Dora',
        type: 'text/html',
        message: '<p>Still   <b>waiting</b></p>',
        fromCustomer: true,
      }),
    );
    const got = await waitFor(() => {
      const l = pushesOf('message', (p) => p.ticket_number === t.ticket_number);
      return l.length > 0 ? l : null;
    }, 'message push');
    expect(got![0]).toMatchObject({
      to: inDept.username,
      title: `Dora (#${t.ticket_number})`,
      body: 'Still waiting',
      url: `/ticket?number=${t.ticket_number}`,
      channel: 'MANUAL',
    });
    expect(String(got?.[0]?.tag)).toMatch(/^message-\d+$/);
    // An agent's reply, and a colleague's message through the API: no push.
    const reply = await call('POST', '/api/ticket/message', {
      token: a.token,
      body: { ticket_id: t.id, message: 'On its way', type: 'text' },
    });
    expect(reply.status).toBe(200);
    await relayed(parley.handle.db, a.accountId);
    const all = pushesOf('message', (p) => p.ticket_number === t.ticket_number);
    // The focused assignee got none, the unassigned users none, and the reply none.
    expect(all.map((p) => p.to)).toEqual([inDept.username]);
  });

  it('NOTIF-16 "mentioned in a note": the named users once per note, never the author; an edit tells only new names', async () => {
    const created = await call('POST', '/api/ticket/create', { token: a.token, body: { title: 'Mention me' } });
    const t = created.body.data as { id: number; ticket_number: number };
    const msg = await call('POST', '/api/ticket/message', {
      token: a.token,
      body: { ticket_id: t.id, message: 'hello', type: 'text' },
    });
    const note = await call('POST', '/api/ticket/note/add', {
      token: a.token,
      body: {
        message_id: msg.body.data.id,
        text: `@${inDept.username.toUpperCase()} please check. cc @${a.username} @nobody-here`,
      },
    });
    expect(note.status).toBe(200);
    const mine = await waitFor(async () => {
      const l = (await systemList(inDept.token)).filter((n) => n.ticket_number === t.ticket_number);
      return l.length > 0 ? l : null;
    }, 'mention notification');
    expect(mine).toHaveLength(1);
    expect(mine![0]).toMatchObject({
      title: `You were mentioned: #${t.ticket_number}`,
      category: 'system',
      type: 'others',
      channel: 'ticket',
      seen: false,
    });
    expect(mine?.[0]?.body).toBe(
      `${a.name} mentioned you in a note: "@${inDept.username.toUpperCase()} please check. cc @${a.username} @nobody-here"`,
    );
    const edit = await call('POST', '/api/ticket/note/edit', {
      token: a.token,
      body: { id: note.body.data.id, text: `@${inDept.username} and @${other.username}` },
    });
    expect(edit.status).toBe(200);
    await waitFor(
      async () => (await systemList(other.token)).some((n) => n.ticket_number === t.ticket_number),
      'mention after edit',
    );
    await relayed(parley.handle.db, a.accountId);
    expect((await systemList(inDept.token)).filter((n) => n.ticket_number === t.ticket_number)).toHaveLength(1);
    expect((await systemList(a.token)).filter((n) => n.ticket_number === t.ticket_number)).toHaveLength(0);
    expect((await systemList(focused.token)).filter((n) => n.ticket_number === t.ticket_number)).toHaveLength(0);
    // A note in another account naming these users tells nobody here.
    const b = await signUpVia(call);
    const bt = (await call('POST', '/api/ticket/create', { token: b.token, body: { title: 'Elsewhere' } })).body.data;
    const bm = await call('POST', '/api/ticket/message', {
      token: b.token,
      body: { ticket_id: bt.id, message: 'x', type: 'text' },
    });
    await call('POST', '/api/ticket/note/add', {
      token: b.token,
      body: { message_id: bm.body.data.id, text: `@${other.username}` },
    });
    await relayed(parley.handle.db, b.accountId);
    expect((await systemList(other.token)).filter((n) => n.title.startsWith('You were mentioned'))).toHaveLength(1);
  });

  it('NOTIF-16 "a chat transferred to you": assigning a live chat to another agent tells that agent', async () => {
    const id = await runCommand(parley.handle.db, (trx) =>
      createTicket(trx, conversationRules(), {
        accountId: a.accountId,
        channel: 'LIVECHAT',
        title: 'Visitor Vera',
        fromCustomer: true,
      }),
    );
    await parley.handle.db.updateTable('tickets').set({ assignee: inDept.username }).where('id', '=', id).execute();
    const row = await parley.handle.db
      .selectFrom('tickets')
      .select('ticket_number')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const n = Number(row.ticket_number);
    const r = await call('POST', '/api/ticket/assign', { token: a.token, body: { id, assignee: [other.username] } });
    expect(r.status).toBe(200);
    const got = await waitFor(async () => {
      const l = (await systemList(other.token)).filter((x) => x.ticket_number === n);
      return l.length > 0 ? l : null;
    }, 'transfer notification');
    expect(got).toHaveLength(1);
    expect(got![0]).toMatchObject({
      title: `Chat transferred to you: #${n}`,
      body: `${a.name} transferred the chat "Visitor Vera" to you.`,
      channel: 'livechat',
    });
    // A visitor's message in the transferred chat now reaches the new assignee, with the live chat link.
    await runCommand(parley.handle.db, (trx) =>
      postMessage(trx, conversationRules(), {
        accountId: a.accountId,
        ticketId: id,
        sender: 'visitor',
        senderName: 'Vera',
        type: 'text',
        message: 'Hello?',
        fromCustomer: true,
      }),
    );
    const p = await waitFor(() => pushesOf('message', (x) => x.ticket_number === n)[0], 'visitor message push');
    expect(p).toMatchObject({
      to: other.username,
      title: `Vera (#${n})`,
      body: 'Hello?',
      url: `/livechat?number=${n}`,
    });
  });
  it('NOTIF-35 NOTIF-37 NOTIF-38 a message push follows the channel choices sent with each subscription; new tickets do not', async () => {
    const u = await addUserVia(call, a.token, { username: `chan-${uniq()}`, type: 'agent', departments: [] } as never);
    /** Endpoint path -> which browser. */
    const browser = new Map<string, string>();
    const send = (sub: ReturnType<typeof push.subscription>, extra: Record<string, unknown>) =>
      call('POST', '/api/fcm/token', { token: u.token, body: { token: sub, type: 'web', domain: 'x', ...extra } });
    const subOff = push.subscription(`off-${uniq()}`);
    const subAll = push.subscription(`all-${uniq()}`);
    for (const [name, sub] of [
      ['off', subOff],
      ['all', subAll],
    ] as const) {
      owner.set(new URL(sub.endpoint).pathname, u.username);
      browser.set(new URL(sub.endpoint).pathname, name);
    }
    expect((await send(subOff, { channels_off: ['EMAIL', 'WHATSAPP'] })).status).toBe(200);
    expect((await send(subAll, {})).status).toBe(200);
    const stored = async () =>
      (
        await parley.handle.db
          .selectFrom('push_subscriptions')
          .select(['endpoint', 'channels_off'])
          .where('account_id', '=', a.accountId)
          .where('user_id', '=', u.id)
          .orderBy('endpoint')
          .execute()
      ).map((r) => [r.endpoint, r.channels_off === null ? null : JSON.parse(r.channels_off)]);
    const before = await stored();
    expect(before).toContainEqual([subOff.endpoint, ['EMAIL', 'WHATSAPP']]);
    expect(before).toContainEqual([subAll.endpoint, null]);

    // Bad choices: a 400, nothing stored or changed (also for a new endpoint).
    const fresh = push.subscription(`bad-${uniq()}`);
    for (const bad of [
      ['NOPE'],
      ['email'],
      ['chat'],
      ['EMAIL', 'EMAIL'],
      'EMAIL',
      [1],
      Array.from({ length: 16 }, () => 'SMS'),
      Array.from({ length: 10_000 }, (_, k) => `X${k}`),
    ]) {
      for (const sub of [subOff, fresh]) {
        const r = await send(sub, { channels_off: bad });
        expect(r.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      }
    }
    expect(await stored()).toEqual(before);

    const ticket = async (channel: string) => {
      const id = await runCommand(parley.handle.db, async (trx) => {
        const t = await createTicket(trx, conversationRules(), {
          accountId: a.accountId,
          channel,
          title: `On ${channel}`,
        });
        await trx.updateTable('tickets').set({ assignee: u.username }).where('id', '=', t).execute();
        return t;
      });
      const row = await parley.handle.db
        .selectFrom('tickets')
        .select('ticket_number')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { id, n: Number(row.ticket_number) };
    };
    const customerWrites = (id: number) =>
      runCommand(parley.handle.db, (trx) =>
        postMessage(trx, conversationRules(), {
          accountId: a.accountId,
          ticketId: id,
          sender: 'erin@example.net',
          senderName: 'Erin',
          type: 'text',
          message: 'Any news?',
          fromCustomer: true,
        }),
      );
    const browsersOf = (kind: string, n: number) =>
      push.received
        .filter((r) => browser.has(r.path))
        .map((r) => ({ b: browser.get(r.path), ...JSON.parse(push.decrypt(r.body)) }) as Record<string, unknown>)
        .filter((p) => p.kind === kind && p.ticket_number === n)
        .map((p) => p.b)
        .sort();
    const settled = async (kind: string, n: number, count: number) => {
      await waitFor(() => browsersOf(kind, n).length >= count, `${kind} pushes of #${n}`);
      await relayed(parley.handle.db, a.accountId);
      return browsersOf(kind, n);
    };

    // A channel turned off in one browser: that browser gets no push of the message; the other does.
    const email = await ticket('EMAIL');
    expect(await settled('ticket', email.n, 2)).toEqual(['all', 'off']); // new tickets are not filtered
    await customerWrites(email.id);
    expect(await settled('message', email.n, 1)).toEqual(['all']);
    // GRAPH_EMAIL follows the Email choice.
    const graph = await ticket('GRAPH_EMAIL');
    await customerWrites(graph.id);
    expect(await settled('message', graph.n, 1)).toEqual(['all']);
    // An allowed channel (the live chat channel code is lower case in tickets): both browsers.
    const chat = await ticket('livechat');
    await customerWrites(chat.id);
    expect(await settled('message', chat.n, 2)).toEqual(['all', 'off']);

    // Sending again without channels_off keeps the choice; a changed choice replaces it.
    expect((await send(subOff, {})).status).toBe(200);
    await customerWrites(email.id);
    expect(await settled('message', email.n, 2)).toEqual(['all', 'all']);
    expect((await send(subOff, { channels_off: ['LIVECHAT'] })).status).toBe(200);
    await customerWrites(email.id);
    expect(await settled('message', email.n, 4)).toEqual(['all', 'all', 'all', 'off']);
    await customerWrites(chat.id);
    expect(await settled('message', chat.n, 3)).toEqual(['all', 'all', 'off']);
  });
});
