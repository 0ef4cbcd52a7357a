import { fillReplyVariables, REPLY_STRINGS, unknownReplyVariable } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe('reply variables', () => {
  it('REPLIES finds unknown variables and fills known ones', () => {
    expect(unknownReplyVariable('Hi {{customer.name}}, #{{ ticket.number }}')).toBeNull();
    expect(unknownReplyVariable('Hi {{customer.nmae}}')).toBe('customer.nmae');
    expect(unknownReplyVariable('Hi {{}} there')).toBe('');
    expect(unknownReplyVariable('a { single } brace and {{ unclosed')).toBeNull();
    expect(
      fillReplyVariables('Hi {{customer.name}}, ticket #{{ ticket.number }} - {{agent.name}}', {
        'customer.name': 'Ann',
        'ticket.number': '42',
        'agent.name': 'Bob',
      }),
    ).toBe('Hi Ann, ticket #42 - Bob');
    expect(fillReplyVariables('Hi {{customer.name}}!', {})).toBe('Hi !');
  });
});

describe.each(dialects)('canned replies (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { id: number; token: string; username: string };
  const db = () => s.handle.db;
  const count = async () => (await db().selectFrom('canned_replies').select('id').execute()).length;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const reply = (over: Record<string, unknown> = {}) => ({
    title: 'Greeting',
    shortcut: `hi${uniq()}`,
    body: 'Hello {{customer.name}}, about ticket #{{ticket.number}}. {{agent.name}}',
    ...over,
  });

  it('REPLIES an agent keeps personal replies; admins share; everyone lists shared and own, with search and channel', async () => {
    const own = await call('POST', '/api/replies/canned', {
      token: agent.token,
      body: reply({ title: 'Refund steps' }),
    });
    expect(own.status, own.text).toBe(200);
    expect(own.body.data).toMatchObject({ title: 'Refund steps', shared: false, owner_id: agent.id, channels: [] });
    const shared = await call('POST', '/api/replies/canned', {
      token: a.token,
      body: reply({ title: 'Opening hours', shared: true, channels: ['LIVECHAT', 'WHATSAPP'] }),
    });
    expect(shared.status, shared.text).toBe(200);
    expect(shared.body.data).toMatchObject({ shared: true, owner_id: null, channels: ['LIVECHAT', 'WHATSAPP'] });
    const adminOwn = await call('POST', '/api/replies/canned', {
      token: a.token,
      body: reply({ title: 'Admin only' }),
    });
    expect(adminOwn.status).toBe(200);

    const list = await call('GET', '/api/replies/canned', { token: agent.token });
    expect(list.body.data.map((r: { title: string }) => r.title).sort()).toEqual(['Opening hours', 'Refund steps']);
    const search = await call('GET', '/api/replies/canned?q=REFUND', { token: agent.token });
    expect(search.body.data.map((r: { title: string }) => r.title)).toEqual(['Refund steps']);
    const onEmail = await call('GET', '/api/replies/canned?channel=EMAIL', { token: agent.token });
    expect(onEmail.body.data.map((r: { title: string }) => r.title)).toEqual(['Refund steps']);
    const onChat = await call('GET', '/api/replies/canned?channel=LIVECHAT', { token: agent.token });
    expect(onChat.body.data.map((r: { title: string }) => r.title).sort()).toEqual(['Opening hours', 'Refund steps']);
    // Another account sees none of them.
    expect((await call('GET', '/api/replies/canned', { token: b.token })).body.data).toEqual([]);

    // The owner edits and deletes their own.
    const id = own.body.data.id;
    const edited = await call('PUT', `/api/replies/canned/${id}`, {
      token: agent.token,
      body: reply({ title: 'Refund steps v2', shortcut: own.body.data.shortcut }),
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data.title).toBe('Refund steps v2');
    expect((await call('DELETE', `/api/replies/canned/${id}`, { token: agent.token })).status).toBe(200);
    expect((await call('GET', '/api/replies/canned', { token: agent.token })).body.data).toHaveLength(1);
  });

  it("REPLIES shared replies are the admins' to manage; another user's personal reply is not found", async () => {
    const before = await count();
    const r = await call('POST', '/api/replies/canned', { token: agent.token, body: reply({ shared: true }) });
    expect(r.status).toBe(403);
    expect(r.body.description).toBe(REPLY_STRINGS.sharedAdminOnly);
    expect(await count()).toBe(before);

    const shared = await call('POST', '/api/replies/canned', { token: a.token, body: reply({ shared: true }) });
    const sid = shared.body.data.id;
    expect((await call('PUT', `/api/replies/canned/${sid}`, { token: agent.token, body: reply() })).status).toBe(403);
    expect((await call('DELETE', `/api/replies/canned/${sid}`, { token: agent.token })).status).toBe(403);

    const adminOwn = await call('POST', '/api/replies/canned', { token: a.token, body: reply() });
    const pid = adminOwn.body.data.id;
    expect((await call('PUT', `/api/replies/canned/${pid}`, { token: agent.token, body: reply() })).status).toBe(404);
    expect((await call('DELETE', `/api/replies/canned/${pid}`, { token: agent.token })).status).toBe(404);
    // Another account's ids are not found either.
    expect((await call('PUT', `/api/replies/canned/${sid}`, { token: b.token, body: reply() })).status).toBe(404);
    expect((await call('DELETE', `/api/replies/canned/${sid}`, { token: b.token })).status).toBe(404);
    expect((await db().selectFrom('canned_replies').select('id').where('id', '=', sid).execute()).length).toBe(1);
  });

  it('REPLIES an unknown variable is a 400 naming it, and nothing is saved; a taken shortcut is a 409', async () => {
    const before = await count();
    const r = await call('POST', '/api/replies/canned', {
      token: agent.token,
      body: reply({ body: 'Hi {{customer.name}}, your order {{order.id}} shipped' }),
    });
    expect(r.status).toBe(400);
    expect(r.body.description).toBe(REPLY_STRINGS.unknownVariable('order.id'));
    expect(r.body.description).toContain('{{order.id}}');
    expect(await count()).toBe(before);

    const first = await call('POST', '/api/replies/canned', {
      token: agent.token,
      body: reply({ shortcut: 'thanks' }),
    });
    expect(first.status).toBe(200);
    const again = await call('POST', '/api/replies/canned', {
      token: agent.token,
      body: reply({ shortcut: 'THANKS' }),
    });
    expect(again.status).toBe(409);
    expect(again.body.description).toBe(REPLY_STRINGS.shortcutTaken('THANKS'));
    // The same shortcut in another scope (an admin's own) is fine.
    expect(
      (await call('POST', '/api/replies/canned', { token: a.token, body: reply({ shortcut: 'thanks' }) })).status,
    ).toBe(200);
    const edit = await call('PUT', `/api/replies/canned/${first.body.data.id}`, {
      token: agent.token,
      body: reply({ shortcut: 'thanks', body: 'Bye {{agent.nickname}}' }),
    });
    expect(edit.status).toBe(400);
    expect(edit.body.description).toContain('{{agent.nickname}}');
    const stored = await db()
      .selectFrom('canned_replies')
      .select('body')
      .where('id', '=', first.body.data.id)
      .executeTakeFirstOrThrow();
    expect(stored.body).not.toContain('nickname');

    for (const body of [
      reply({ shortcut: 'has space' }),
      reply({ title: '' }),
      reply({ body: '   ' }),
      reply({ channels: ['NOPE'] }),
      { title: 'x' },
    ]) {
      const bad = await call('POST', '/api/replies/canned', { token: agent.token, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
  });
});
