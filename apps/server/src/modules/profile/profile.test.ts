import { expLevel, PROFILE_STRINGS, profileKind } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe('profile rules', () => {
  it('PROFILE-04 PROFILE-05 PROFILE-06 bots and the visitor have no lookup; level grows with exp', () => {
    for (const b of ['bot', 'chatbot', 'translatebot', 'Chatbot']) expect(profileKind(b)).toBe('bot');
    expect(profileKind('visitor')).toBe('visitor');
    expect(profileKind('ann')).toBe('lookup');
    expect(PROFILE_STRINGS.bot).toBe('I am a bot. I help send messages, manage tickets and can do much more.');
    expect(PROFILE_STRINGS.visitor).toBe('This is a visitor who is using live chat from external websites.');
    expect([0, 49, 50, 199, 200].map(expLevel)).toEqual([1, 1, 2, 2, 3]);
  });
});

describe.each(dialects)('profile (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  let n = 0;

  async function ticket(
    accountId: number,
    o: { channel?: string; email?: string; phone?: string; assignee?: string; closed?: number; name?: string },
  ) {
    const at = Date.now() + n;
    n++;
    const row = await db()
      .insertInto('tickets')
      .values({
        account_id: accountId,
        ticket_number: 1000 + n,
        title: `Ticket ${n}`,
        channel: o.channel ?? 'EMAIL',
        closed: o.closed ?? 0,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: o.assignee ?? '',
        name: o.name ?? 'Pat Customer',
        email: o.email ?? '',
        phone: o.phone ?? '',
        created_at: at,
        updated_at: at,
      })
      .returning(['id', 'ticket_number'])
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), number: Number(row.ticket_number) };
  }
  const customerSays = (accountId: number, ticketId: number, message: string) =>
    db()
      .insertInto('messages')
      .values({
        account_id: accountId,
        ticket_id: ticketId,
        type: 'text',
        message,
        sender: 'visitor',
        client_id: null,
        created_at: Date.now(),
      })
      .execute();
  const get = (token: string, path: string) => call('GET', path, { token });

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('PROFILE-01 PROFILE-02 PROFILE-03 PROFILE-07 PROFILE-08 PROFILE-11 PROFILE-12 a user: data, activity 5 a page, tickets and live chats 10 a page, exp', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, {
      username: `bo-${uniq()}`,
      type: 'agent',
      name: 'Bo Agent',
      email: `bo-${uniq()}@example.com`,
    });
    const mine: number[] = [];
    for (let i = 0; i < 12; i++)
      mine.push((await ticket(admin.accountId, { assignee: `x,${agent.username}`, closed: i < 3 ? 2 : 0 })).id);
    await ticket(admin.accountId, { assignee: 'someone-else' });
    await ticket(admin.accountId, { assignee: agent.username, channel: 'LIVECHAT', closed: 3 });
    for (let i = 0; i < 7; i++) {
      const r = await call('POST', '/api/ticket/message', {
        token: agent.token,
        body: { ticket_id: mine[i % 2]!, message: `reply ${i}`, type: 'text' },
      });
      expect(r.status, r.text).toBe(200);
    }

    const p = await get(admin.token, `/api/user/profile/data/info?username=${agent.username.toUpperCase()}`);
    expect(p.status, p.text).toBe(200);
    expect(p.body.data).toMatchObject({ kind: 'user', name: 'Bo Agent', uid: agent.username, type: 'agent' });
    expect(p.body.data.email).toContain('@example.com');
    expect(p.body.activity.map((a: { text: string }) => a.text)).toEqual([
      'reply 6',
      'reply 5',
      'reply 4',
      'reply 3',
      'reply 2',
    ]);
    const p2 = await get(admin.token, `/api/user/profile/data/info?username=${agent.username}&offset=5`);
    expect(p2.body.activity.map((a: { text: string }) => a.text)).toEqual(['reply 1', 'reply 0']);
    expect(p2.body.activity[0]).toMatchObject({ ticket_id: mine[1], title: expect.any(String), channel: 'EMAIL' });
    // An agent reads a colleague's profile too, without the colleague's e-mail address.
    const asAgent = await get(agent.token, `/api/user/profile/data/info?username=${admin.username}`);
    expect(asAgent.body.data).toMatchObject({ name: admin.name, type: 'admin', email: '' });

    const page0 = await get(admin.token, `/api/ticket/user/list?type=ticket&username=${agent.username}&offset=0`);
    expect(page0.status, page0.text).toBe(200);
    expect(page0.body.data).toHaveLength(10);
    expect(Object.keys(page0.body.data[0]).sort()).toEqual(
      ['channel', 'id', 'label', 'name', 'read', 'ticket_number', 'title', 'ts'].sort(),
    );
    expect(page0.body.data[0].ts).toBeLessThan(1e11);
    const page1 = await get(admin.token, `/api/ticket/user/list?type=ticket&username=${agent.username}&offset=10`);
    expect(page1.body.data).toHaveLength(2);
    const all = [...page0.body.data, ...page1.body.data].map((t: { id: number }) => t.id);
    expect(new Set(all)).toEqual(new Set(mine));
    // 3 resolved + 1 closed live chat = 40, plus 7 messages.
    expect(page0.body.exp).toBe(47);
    expect(page0.body.expLevel).toBe(1);
    const chats = await get(admin.token, `/api/ticket/user/list?type=livechat&username=${agent.username}`);
    expect(chats.body.data.map((t: { channel: string }) => t.channel)).toEqual(['LIVECHAT']);
    expect(chats.body.exp).toBe(47);

    const info = await get(agent.token, `/api/user/profile2/info?username=${admin.username}`);
    expect(info.body).toEqual({
      result: 'success',
      data: { name: admin.name, photo: '', username: admin.username },
    });
    const agents = await get(agent.token, `/agent/${agent.token}`);
    expect(agents.status, agents.text).toBe(200);
    expect(agents.body.data.map((a: { username: string }) => a.username).sort()).toEqual(
      [admin.username, agent.username].sort(),
    );
  });

  it('PROFILE-09 PROFILE-10 a contact: from a ticket by e-mail or phone, its activity, tickets and live chats', async () => {
    const admin = await signUpVia(call);
    const email = `pat-${uniq()}@example.net`;
    const t1 = await ticket(admin.accountId, { email, closed: 2 });
    const t2 = await ticket(admin.accountId, { email: email.toUpperCase(), channel: 'GRAPH_EMAIL' });
    const chat = await ticket(admin.accountId, { email, channel: 'LIVECHAT' });
    await ticket(admin.accountId, { email: `other-${uniq()}@example.net` });
    for (const [i, id] of [t1.id, t2.id, chat.id, t1.id, t2.id, t1.id].entries())
      await customerSays(admin.accountId, id, `<b>question</b> ${i}`);

    const p = await get(admin.token, `/api/user/profile/0?mode=quick&id=${t1.id}&email=${email}`);
    expect(p.status, p.text).toBe(200);
    expect(p.body.data).toMatchObject({
      kind: 'contact',
      name: 'Pat Customer',
      uid: `email:${email}`,
      email,
      channel: 'EMAIL',
    });
    expect(p.body.activity).toHaveLength(5);
    expect(p.body.activity[0]).toMatchObject({ ticket_id: t1.id, text: '<b>question</b> 5' });
    expect((await get(admin.token, `/api/user/profile/5?mode=quick&id=${t1.id}`)).body.activity).toHaveLength(1);

    const uid = encodeURIComponent(p.body.data.uid);
    const list = await get(admin.token, `/api/ticket/user/list?type=ticket&username=${uid}&offset=0`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((t: { id: number }) => t.id).sort()).toEqual([t1.id, t2.id].sort());
    expect(list.body.exp).toBe(10 + 6);
    const chats = await get(admin.token, `/api/ticket/user/list?type=livechat&username=${uid}`);
    expect(chats.body.data.map((t: { id: number }) => t.id)).toEqual([chat.id]);

    // A phone channel names the contact by its number; the number given must be the ticket's.
    const wa = await ticket(admin.accountId, { channel: 'WHATSAPP', phone: '60123456789', email });
    const byPhone = await get(admin.token, `/api/user/profile/0?mode=quick&id=${wa.id}&phone=60123456789`);
    expect(byPhone.body.data.uid).toBe('phone:60123456789');
    expect((await get(admin.token, `/api/user/profile/0?mode=quick&id=${wa.id}&phone=60999`)).status).toBe(404);
    // Neither e-mail nor phone: the contact is its one ticket.
    const bare = await ticket(admin.accountId, { channel: 'FB_PM' });
    const bareP = await get(admin.token, `/api/user/profile/0?mode=quick&id=${bare.id}`);
    expect(bareP.body.data.uid).toBe(`ticket:${bare.number}`);
    const bareList = await get(admin.token, `/api/ticket/user/list?type=ticket&username=ticket:${bare.number}`);
    expect(bareList.body.data.map((t: { id: number }) => t.id)).toEqual([bare.id]);
  });

  it('PROFILE-13 PROFILE-14 GET /agent/{token}: the path token alone signs in; a bad or ended one is 401; only the own account', async () => {
    const a = await signUpVia(call);
    const aAgent = await addUserVia(call, a.token, { username: `al-${uniq()}`, type: 'agent', name: 'Al Agent' });
    const b = await signUpVia(call);
    // No header, no cookie: the token in the path is the credential (as the spec's path shows it).
    const own = await call('GET', `/agent/${aAgent.token}`);
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.map((x: { username: string }) => x.username).sort()).toEqual(
      [a.username, aAgent.username].sort(),
    );
    expect(Object.keys(own.body.data[0]).sort()).toEqual(['id', 'name', 'photo', 'status', 'username']);
    // Nothing private rides along: no e-mail addresses, no password material.
    expect(own.text).not.toContain('@example.com');
    expect(own.text).not.toContain('hash');
    const bList = await call('GET', `/agent/${b.token}`);
    expect(bList.body.data.map((x: { username: string }) => x.username)).toEqual([b.username]);
    expect(bList.text).not.toContain(a.username);

    // A path segment too long for a token matches no API route (the web app may answer it): no agents.
    const long = await call('GET', `/agent/${'x'.repeat(201)}`);
    expect(long.text).not.toContain(a.username);
    expect(long.body?.data).toBeUndefined();
    for (const bad of ['not-a-token', `${a.token}x`, a.refreshToken]) {
      const r = await call('GET', `/agent/${bad}`);
      expect(r.status, `${bad.slice(0, 20)} ${r.text}`).toBe(401);
      expect(r.text).not.toContain(a.username);
    }
    // A deactivated agent's token stops working at once.
    const off = await call('PATCH', `/api/users/${aAgent.id}`, { token: a.token, body: { active: false } });
    expect(off.status, off.text).toBe(200);
    expect((await call('GET', `/agent/${aAgent.token}`)).status).toBe(401);
  });

  it('SEARCH-11 GET /api/agent/:token with keyword or search: the agents whose name or username holds it', async () => {
    const a = await signUpVia(call);
    const tag = uniq();
    const dana = await addUserVia(call, a.token, { username: `dana-${tag}`, type: 'agent', name: 'Dana Scully' });
    await addUserVia(call, a.token, { username: `fox-${tag}`, type: 'agent', name: 'Fox Mulder' });
    const b = await signUpVia(call);
    await addUserVia(call, b.token, { username: `dana2-${tag}`, type: 'agent', name: 'Dana Other' });
    const names = async (path: string, token = a.token) => {
      const r = await call('GET', path, { token });
      expect(r.status, r.text).toBe(200);
      return r.body.data.map((x: { username: string }) => x.username);
    };
    expect(await names(`/api/agent/${a.token}?keyword=scully`)).toEqual([dana.username]);
    expect(await names(`/api/agent/${a.token}?search=DANA`)).toEqual([dana.username]);
    // keyword wins over search; an empty one lists everyone; LIKE's own characters match only themselves.
    expect(await names(`/api/agent/${a.token}?search=dana&keyword=mulder`)).toEqual([`fox-${tag}`]);
    expect((await names(`/api/agent/${a.token}?keyword=`)).length).toBe(3);
    expect(await names(`/api/agent/${a.token}?keyword=%25`)).toEqual([]);
    expect(await names(`/api/agent/${a.token}?keyword=_`)).toEqual([]);
    // The path token alone is enough, as on the older path.
    const bare = await call('GET', `/api/agent/${a.token}?keyword=fox`);
    expect(bare.body.data.map((x: { name: string }) => x.name)).toEqual(['Fox Mulder']);
    expect((await call('GET', `/api/agent/${a.token}?keyword=${'x'.repeat(201)}`)).status).toBe(400);
  });

  it("PROFILE-08 PROFILE-09 PROFILE-11 another account's user or contact is 404; bad paging input is 400", async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const email = `secret-${uniq()}@example.org`;
    const t = await ticket(a.accountId, { email, assignee: a.username });
    await customerSays(a.accountId, t.id, 'private words');
    const bGet = (path: string) => get(b.token, path);
    for (const path of [
      `/api/user/profile/data/info?username=${a.username}`,
      `/api/user/profile2/info?username=${a.username}`,
      `/api/ticket/user/list?type=ticket&username=${a.username}`,
      `/api/ticket/user/list?type=ticket&username=email:${email}`,
      `/api/ticket/user/list?type=ticket&username=ticket:${t.number}`,
      `/api/user/profile/0?mode=quick&id=${t.id}`,
      `/api/user/profile/0?mode=quick&id=${t.id}&email=${email}`,
      `/api/user/profile/data/info?username=email:${email}`,
    ]) {
      const r = await bGet(path);
      expect(r.status, `${path} ${r.text}`).toBe(404);
      expect(r.text).not.toContain(email);
      expect(r.text).not.toContain('private words');
      expect(r.body.description).toBe(PROFILE_STRINGS.noProfile);
    }
    // A's own admin still sees it all.
    expect((await get(a.token, `/api/user/profile/0?mode=quick&id=${t.id}`)).status).toBe(200);
    const agents = await bGet(`/agent/${b.token}`);
    expect(agents.body.data.map((x: { username: string }) => x.username)).toEqual([b.username]);

    for (const path of [
      `/api/ticket/user/list?type=ticket&username=${b.username}&offset=-1`,
      `/api/ticket/user/list?type=ticket&username=${b.username}&offset=abc`,
      `/api/ticket/user/list?type=ticket&username=${b.username}&offset=1.5`,
      `/api/ticket/user/list?type=chat&username=${b.username}`,
      `/api/ticket/user/list?type=ticket`,
      `/api/user/profile/-1?mode=quick&id=${t.id}`,
      `/api/user/profile/x?mode=quick&id=${t.id}`,
      `/api/user/profile/0?mode=full&id=${t.id}`,
      `/api/user/profile/0?mode=quick&id=abc`,
      `/api/user/profile/data/info?username=${b.username}&offset=-5`,
    ]) {
      const r = await bGet(path);
      expect(r.status, `${path} ${r.text}`).toBe(400);
      expect(r.body.result).toBe('failed');
    }
    // Without a session nothing answers.
    expect((await call('GET', `/api/ticket/user/list?type=ticket&username=${b.username}`)).status).toBe(401);
  });
});
