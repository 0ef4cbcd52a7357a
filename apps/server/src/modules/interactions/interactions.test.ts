import { INTERACTION_STRINGS, type Interaction, type InteractionsAnswer } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRows } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
type User = Awaited<ReturnType<typeof addUserVia>>;

/**
 * The timeline over rows written straight into the tables (messages, notes, live chats, calls) at known
 * times, plus a status change and a note made through the API, so each kind comes from the place the product
 * really writes it.
 */
describe.each(dialects)('interactions (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  const rows = accountRows(db);
  let a: SignedUp;
  let b: SignedUp;
  let agent: User;
  let other: User;
  const base = 1_700_000_000_000;
  const ids: Record<string, number> = {};

  const list = async (token: string, query = '') => {
    const r = await call('GET', `/api/interactions${query ? `?${query}` : ''}`, { token });
    expect(r.status, r.text).toBe(200);
    return r.body as InteractionsAnswer;
  };
  /** Every page of a query, following `next`; fails on a repeated key. */
  const all = async (token: string, query: string) => {
    const out: Interaction[] = [];
    let before = '';
    for (let i = 0; i < 100; i++) {
      const page = await list(token, `${query}${before ? `&before=${before}` : ''}`);
      out.push(...page.data);
      if (!page.next) break;
      before = page.next;
    }
    expect(new Set(out.map((x) => x.key)).size).toBe(out.length);
    return out;
  };
  const message = (accountId: number, ticketId: number, at: number, sender: string, text: string, type = 'text') =>
    db()
      .insertInto('messages')
      .values({
        account_id: accountId,
        ticket_id: ticketId,
        type,
        message: text,
        sender,
        sender_name: sender === 'visitor' ? 'Pat Customer' : sender,
        client_id: null,
        created_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.id));

  beforeAll(async () => {
    s = await startTestServer(dialect);
    await s.scheduler.stop();
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `al-${uniq()}`, name: 'Al Agent', type: 'agent' });
    other = await addUserVia(call, a.token, { username: `bo-${uniq()}`, name: 'Bo Other', type: 'agent' });

    // Account A: an e-mail ticket assigned to Al with a customer message, Al's reply and a system message.
    ids.mail = await rows.ticket(a.accountId, { title: 'Refund please', assignee: agent.username });
    ids.in = await message(a.accountId, ids.mail, base + 1_000, 'visitor', '<p>My order <b>never</b> came</p>');
    ids.out = await message(a.accountId, ids.mail, base + 2_000, agent.username, 'Sorry, sending a new one');
    ids.change = await message(
      a.accountId,
      ids.mail,
      base + 3_000,
      'server',
      'Al Agent set the status to Pending.',
      'system',
    );
    await db()
      .insertInto('message_notes')
      .values({
        account_id: a.accountId,
        ticket_id: ids.mail,
        message_id: ids.in,
        sender: agent.username,
        text: 'Checked the courier',
        created_at: base + 4_000,
        updated_at: base + 4_000,
      })
      .execute();
    // A WhatsApp ticket of Bo's, with an encrypted conversation.
    ids.secret = await rows.ticket(a.accountId, {
      title: 'Private matter',
      channel: 'WHATSAPP',
      assignee: other.username,
      encryption_method: 'aes',
    });
    await message(a.accountId, ids.secret, base + 5_000, 'visitor', 'ciphertext-abc');
    await message(a.accountId, ids.secret, base + 6_000, other.username, 'ciphertext-def');
    // A live chat Bo took, and its call counterpart: a call Al's softphone reported.
    const visitor = Number(
      (
        await db()
          .insertInto('livechat_visitors')
          .values({ account_id: a.accountId, csrf_hash: `h-${uniq()}`, created_at: base })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    ids.chatTicket = await rows.ticket(a.accountId, {
      title: 'Chat with Vee',
      channel: 'LIVECHAT',
      assignee: other.username,
    });
    await db()
      .insertInto('livechats')
      .values({
        account_id: a.accountId,
        visitor_id: visitor,
        session_id: visitor,
        state: 'chatting',
        name: 'Vee Visitor',
        phone: '',
        email: '',
        message: 'Is the shop open on Sunday?',
        department_id: null,
        ticket_id: ids.chatTicket,
        agent: other.username,
        queued_at: base + 7_000,
        accepted_at: base + 7_500,
      })
      .execute();
    ids.callTicket = await rows.ticket(a.accountId, {
      title: 'Call +15550100',
      channel: 'CALL',
      phone: '+15550100',
      call_direction: 'inbound',
      assignee: agent.username,
    });
    await db()
      .insertInto('calls')
      .values({
        account_id: a.accountId,
        ticket_id: ids.callTicket,
        call_id: `c-${uniq()}`,
        user_id: agent.id,
        started_at: base + 8_000,
        ended_at: base + 68_000,
        duration: 60,
      })
      .execute();
    // A Workspace chat of Al's: internal team chat, never part of the timeline.
    ids.workspace = await rows.ticket(a.accountId, { title: 'Team lunch', channel: 'chat' });
    await db()
      .insertInto('chat_members')
      .values({
        account_id: a.accountId,
        ticket_id: ids.workspace,
        user_id: agent.id,
        username: agent.username,
        joined_at: base,
      })
      .execute();
    await message(a.accountId, ids.workspace, base + 9_000, agent.username, 'pizza at noon');
    // Account B: its own ticket and message, which A must never see.
    ids.bTicket = await rows.ticket(b.accountId, { title: 'B secret ticket' });
    await message(b.accountId, ids.bTicket, base + 10_000, 'visitor', 'B-only words');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('SHELL-12 every kind appears, newest first, with its conversation, who and an excerpt; Workspace chats never', async () => {
    const items = (await list(a.token, `to=${base + 20_000}`)).data;
    expect(items.map((x) => x.kind)).toEqual(['call', 'livechat', 'out', 'in', 'note', 'change', 'out', 'in']);
    const byKind = Object.fromEntries(items.map((x) => [x.kind, x]));
    expect(byKind.in).toMatchObject({ ticketId: ids.mail, channel: 'EMAIL', title: 'Refund please' });
    const inMail = items.find((x) => x.kind === 'in' && x.ticketId === ids.mail)!;
    expect(inMail.text).toBe('My order never came');
    expect(inMail.name).toBe('Pat Customer');
    expect(items.find((x) => x.kind === 'out' && x.ticketId === ids.mail)).toMatchObject({
      username: agent.username,
      text: 'Sorry, sending a new one',
    });
    expect(byKind.note).toMatchObject({ username: agent.username, name: 'Al Agent', text: 'Checked the courier' });
    expect(byKind.change).toMatchObject({ username: '', text: 'Al Agent set the status to Pending.' });
    expect(byKind.livechat).toMatchObject({ ticketId: ids.chatTicket, state: 'chatting', username: other.username });
    expect(byKind.call).toMatchObject({ ticketId: ids.callTicket, state: 'inbound', duration: 60, name: 'Al Agent' });
    expect(items.some((x) => x.ticketId === ids.workspace)).toBe(false);
  });

  it('a change and a note made through the product appear', async () => {
    const t = await rows.ticket(a.accountId, { title: `Live ${uniq()}` });
    await message(a.accountId, t, Date.now() - 5_000, 'visitor', 'hello there');
    expect((await call('POST', '/api/ticket/status', { token: agent.token, body: { id: t, status: 1 } })).status).toBe(
      200,
    );
    const note = await call('POST', '/api/ticket/notes/add', {
      token: agent.token,
      body: { ticketId: t, text: 'Called back' },
    });
    expect(note.status, note.text).toBe(200);
    const items = (await list(a.token, `from=${Date.now() - 60_000}`)).data.filter((x) => x.ticketId === t);
    expect(items.map((x) => x.kind).sort()).toEqual(['change', 'in', 'note']);
    expect(items.find((x) => x.kind === 'change')!.text).toContain('set the status to');
    expect(items.find((x) => x.kind === 'note')).toMatchObject({ username: agent.username, text: 'Called back' });
  });

  it('encrypted conversations show no text, and their text is never searched', async () => {
    const items = (await list(a.token, `to=${base + 20_000}`)).data.filter((x) => x.ticketId === ids.secret);
    expect(items).toHaveLength(2);
    for (const x of items) expect(x).toMatchObject({ encrypted: true, text: '' });
    expect(JSON.stringify(await list(a.token, ''))).not.toContain('ciphertext');
    expect((await list(a.token, 'q=ciphertext')).data).toEqual([]);
    // The title is not secret: it is in every ticket list.
    expect((await list(a.token, 'q=private')).data.map((x) => x.ticketId)).toEqual([ids.secret, ids.secret]);
  });

  it('filters by kind, channel, agent, date range and text', async () => {
    const range = `from=${base}&to=${base + 20_000}`;
    const kinds = async (q: string) => (await list(a.token, `${range}&${q}`)).data.map((x) => x.kind);
    expect(await kinds('kind=note,call')).toEqual(['call', 'note']);
    expect(await kinds('kind=in')).toEqual(['in', 'in']);
    expect(await kinds('channel=LIVECHAT')).toEqual(['livechat']);
    expect(await kinds('channel=EMAIL&kind=out,change')).toEqual(['change', 'out']);
    // Al: his call, his reply and note, and the customer message and change on the ticket assigned to him.
    expect(await kinds(`agent=${agent.username}`)).toEqual(['call', 'note', 'change', 'out', 'in']);
    // Bo: his live chat and the encrypted conversation assigned to him.
    expect(await kinds(`agent=${other.username.toUpperCase()}`)).toEqual(['livechat', 'out', 'in']);
    const window = await list(a.token, `from=${base + 2_000}&to=${base + 4_000}`);
    expect(window.data.map((x) => x.kind)).toEqual(['change', 'out']);
    expect((await list(a.token, 'q=MY%20ORDER')).data.map((x) => x.kind)).toEqual(['in']);
    expect((await list(a.token, 'q=sunday')).data.map((x) => x.kind)).toEqual(['livechat']);
    expect((await list(a.token, 'q=15550100')).data.map((x) => x.kind)).toEqual(['call']);
    // LIKE's wildcards are plain characters.
    expect((await list(a.token, 'q=%25')).data).toEqual([]);
  });

  it('pages by time and id, newest first, without repeats or gaps, through rows of the same millisecond', async () => {
    const t = await rows.ticket(a.accountId, { title: 'Busy ticket', channel: 'SMS' });
    const at = base + 50_000;
    // 23 messages and 7 notes, many sharing one millisecond.
    for (let i = 0; i < 23; i++)
      await message(a.accountId, t, at + Math.floor(i / 4), i % 2 ? agent.username : 'visitor', `m${i}`);
    for (let i = 0; i < 7; i++)
      await db()
        .insertInto('ticket_notes')
        .values({
          account_id: a.accountId,
          ticket_id: t,
          sender: agent.username,
          text: `n${i}`,
          created_at: at + i,
          updated_at: at + i,
        })
        .execute();
    const q = `channel=SMS&limit=4&from=${at}`;
    const paged = await all(a.token, q);
    const whole = (await list(a.token, `channel=SMS&limit=100&from=${at}`)).data;
    expect(whole).toHaveLength(30);
    expect(paged.map((x) => x.key)).toEqual(whole.map((x) => x.key));
    for (let i = 1; i < whole.length; i++) expect(whole[i - 1]!.at).toBeGreaterThanOrEqual(whole[i]!.at);
    expect((await list(a.token, `channel=SMS&from=${at}`)).data).toHaveLength(30);
  });

  it('an agent sees what the ticket list shows them; a Workspace chat stays out even for its member', async () => {
    const asAdmin = (await list(a.token, `to=${base + 20_000}`)).data.map((x) => x.key);
    const asAgent = (await list(agent.token, `to=${base + 20_000}`)).data.map((x) => x.key);
    expect(asAgent).toEqual(asAdmin);
    const mine = await all(agent.token, 'limit=100');
    expect(mine.some((x) => x.ticketId === ids.workspace || x.text.includes('pizza'))).toBe(false);
    // A channel with no read rule is read by nobody.
    const stray = await rows.ticket(a.accountId, { title: 'Stray', channel: 'NO_SUCH_CHANNEL' });
    await message(a.accountId, stray, Date.now(), 'visitor', 'stray words');
    expect(JSON.stringify(await all(a.token, 'limit=100'))).not.toContain('stray words');
  });

  it("another account's interactions never appear, and its agents cannot be named", async () => {
    const everything = JSON.stringify(await all(a.token, 'limit=100'));
    expect(everything).not.toContain('B-only');
    expect(everything).not.toContain('B secret');
    const bItems = await all(b.token, 'limit=100');
    expect(bItems.map((x) => x.ticketId)).toEqual([ids.bTicket]);
    const r = await call('GET', `/api/interactions?agent=${b.username}`, { token: a.token });
    expect(r.status).toBe(400);
    expect(r.body.description).toBe(INTERACTION_STRINGS.unknownAgent);
  });

  it('bad input is a clear 400', async () => {
    const bad = async (q: string, text?: string) => {
      const r = await call('GET', `/api/interactions?${q}`, { token: a.token });
      expect(r.status, q).toBe(400);
      expect(r.body.result).toBe('failed');
      if (text) expect(r.body.description).toBe(text);
    };
    await bad('kind=email');
    await bad('channel=NOPE');
    await bad('from=yesterday');
    await bad('limit=0');
    await bad('limit=101');
    await bad(`from=${base}&to=${base - 1}`, INTERACTION_STRINGS.badRange);
    await bad('before=1-9-1', INTERACTION_STRINGS.badCursor);
    await bad(`before=${encodeURIComponent("1' or 1=1")}`, INTERACTION_STRINGS.badCursor);
    await bad(`q=${'x'.repeat(201)}`, INTERACTION_STRINGS.tooLong);
    await bad('agent=nobody-here', INTERACTION_STRINGS.unknownAgent);
    expect((await call('GET', '/api/interactions')).status).toBe(401);
    // A NUL byte (which Postgres refuses in text) is never a 5xx.
    for (const q of ['q=a%00b', 'agent=a%00b'])
      expect([200, 400], q).toContain((await call('GET', `/api/interactions?${q}`, { token: a.token })).status);
  });
});
