import { parseSearch, SEARCH_RANKED_MAX, SEARCH_STRINGS, type SearchAnswer } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRows } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { highlight, searchWords, snippetOf } from './search.queries.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** The API parameters of what the modal's box holds (SEARCH-12): the same mapping the web app uses. */
function params(text: string, page = 0, messagePage = 0): string {
  const { free, terms } = parseSearch(text);
  const q = new URLSearchParams();
  if (free) q.set('entity', free);
  if (terms.number) q.set('ticket', terms.number);
  if (terms.label) q.set('label', terms.label);
  if (terms.from) q.set('username', terms.from);
  if (terms.message) q.set('message', terms.message);
  if (terms.contact) q.set('contact', terms.contact);
  q.set('search_index', String(page * 6));
  q.set('search_message_index', String(messagePage * 6));
  return q.toString();
}

describe('search words and snippets', () => {
  it('SEARCH-06 parses key:value tokens and keeps the rest as free text', () => {
    expect(parseSearch('label:VIP from:alice refund')).toEqual({
      free: 'refund',
      terms: { label: 'VIP', from: 'alice' },
    });
    expect(parseSearch('number:12 contact:"Pat Lee" late')).toEqual({
      free: 'late',
      terms: { number: '12', contact: 'Pat Lee' },
    });
    expect(parseSearch('ticket:4 about:x')).toEqual({ free: 'ticket:4 about:x', terms: {} });
  });
  it('FTS operators become plain words; snippets are escaped HTML with only <mark> added', () => {
    expect(searchWords('"refund" OR NEAR(a b) -x y* k:v')).toEqual(['refund', 'or', 'near', 'a', 'b', 'x', 'y', 'k']);
    expect(searchWords('x '.repeat(5000))).toHaveLength(8);
    expect(highlight(snippetOf('Un café très chaud', ['cafe']))).toBe('Un <mark>café</mark> très chaud');
    const long = snippetOf(`${'word '.repeat(40)}needle ${'tail '.repeat(40)}`, ['need'], 10);
    expect(highlight(long)).toBe('…word word word word word word <mark>needle</mark> tail tail tail…');
    expect(highlight('<b>\uE000a&b\uE001</b>"\'')).toBe('&lt;b&gt;<mark>a&amp;b</mark>&lt;/b&gt;&quot;&#39;');
  });
});

describe.each(dialects)('global search (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  let a: SignedUp;
  let b: SignedUp;
  let alice: { id: number; token: string; username: string };
  let bob: { id: number; token: string; username: string };
  const rows = accountRows(db, () => ({ created_at: Date.now(), updated_at: Date.now() }));
  const find = async (token: string, text: string, page = 0, messagePage = 0) => {
    const r = await call('GET', `/api/search/data?${params(text, page, messagePage)}`, { token });
    expect(r.status, r.text).toBe(200);
    return r.body as SearchAnswer;
  };
  const send = async (token: string, ticketId: number, message: string) => {
    const r = await call('POST', '/api/ticket/message', { token, body: { ticket_id: ticketId, message } });
    expect(r.status, r.text).toBe(200);
    const row = await db()
      .selectFrom('messages')
      .select('id')
      .where('ticket_id', '=', ticketId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  };
  const labelTicket = async (accountId: number, labelIds: number[], title = `T ${uniq()}`) => {
    const id = await rows.ticket(accountId, { title, label: JSON.stringify(labelIds) });
    return id;
  };

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    const sfx = uniq();
    alice = await addUserVia(call, a.token, { username: `alice-${sfx}`, name: `Alice ${sfx}`, type: 'agent' });
    bob = await addUserVia(call, a.token, { username: `bob-${sfx}`, name: `Bob ${sfx}`, type: 'agent' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('SEARCH-08 SEARCH-09 a word typed in a message by another agent is found at once, by prefix, highlighted', async () => {
    const ticket = await rows.ticket(a.accountId, { title: 'Quarterly zephyrine report' });
    const id = await send(alice.token, ticket, 'The zephyrine <b>invoice</b> & the rest');
    // The admin searches right after the agent's write: the index is part of that write's transaction.
    const r = await find(a.token, 'zephyr');
    expect(r.message.map((m) => m.id)).toEqual([id]);
    expect(r.messageCount).toBe(1);
    expect(r.message[0]).toMatchObject({ ticket_id: ticket, channel: 'EMAIL', sender: alice.username });
    // Postgres' headline leaves markup out; SQLite's snippet keeps it, escaped. Either way only <mark> is markup.
    expect(r.message[0]!.message).toMatch(
      /<mark>zephyrine<\/mark> (&lt;b&gt;invoice&lt;\/b&gt;| invoice ) &amp; the rest$/,
    );
    expect(r.message[0]!.message).not.toMatch(/<(?!\/?mark>)/);
    expect(r.post.map((t) => t.id)).toEqual([ticket]);
    expect(r.post[0]!.snippet).toContain('<mark>zephyrine</mark>');
    // An edit and a removal reach the index in their own writes.
    await db().updateTable('messages').set({ message: 'now about quokkas' }).where('id', '=', id).execute();
    expect((await find(a.token, 'zephyrine')).message).toEqual([]);
    expect((await find(a.token, 'quokka')).message.map((m) => m.id)).toEqual([id]);
    await db()
      .updateTable('messages')
      .set({ deleted_at: Date.now(), deleted_by: a.username })
      .where('id', '=', id)
      .execute();
    expect((await find(a.token, 'quokka')).messageCount).toBe(0);
  });

  it('SEARCH-06 SEARCH-07 label:VIP from:alice refund returns exactly the matching rows', async () => {
    const vip = await rows.label(a.accountId, 'VIP');
    const other = await rows.label(a.accountId, `Other ${uniq()}`);
    const t1 = await labelTicket(a.accountId, [vip, other]);
    const t2 = await labelTicket(a.accountId, [other]);
    const t3 = await labelTicket(a.accountId, [vip]);
    const hit1 = await send(alice.token, t1, 'A refund was asked for');
    await send(bob.token, t1, 'refund from bob');
    await send(alice.token, t2, 'refund on a ticket without the label');
    await send(alice.token, t3, 'no money back here');
    const hit2 = await send(alice.token, t3, 'Refunded twice already');
    const r = await find(a.token, `label:VIP from:${alice.username} refund`);
    expect(r.message.map((m) => m.id).sort()).toEqual([hit1, hit2].sort());
    expect(r.messageCount).toBe(2);
    // from: and message: are about messages: no ticket rows; the Agent group lists Alice, the Label group VIP.
    expect(r.post).toEqual([]);
    expect(r.agent.map((x) => x.id)).toEqual([alice.id]);
    expect(r.label.map((x) => x.id)).toEqual([vip]);
    // number: finds the ticket; message: only messages.
    const n = (await db().selectFrom('tickets').select('ticket_number').where('id', '=', t3).executeTakeFirstOrThrow())
      .ticket_number;
    expect((await find(a.token, `number:${n}`)).post.map((t) => t.id)).toEqual([t3]);
    const onlyMessages = await find(a.token, 'message:refunded');
    expect(onlyMessages.message.map((m) => m.id)).toEqual([hit2]);
    expect(onlyMessages.post).toEqual([]);
  });

  it('SEARCH-04 SEARCH-09 contacts, live chats and agents are their own groups', async () => {
    const word = `wombat${uniq().replace(/\d/g, 'x')}`;
    const mail = await rows.ticket(a.accountId, {
      title: `${word} by mail`,
      name: 'Pat Lee',
      email: 'pat.lee@example.org',
    });
    const chat = await rows.ticket(a.accountId, { title: `${word} by chat`, channel: 'LIVECHAT' });
    const r = await find(a.token, word);
    expect(r.post.map((t) => t.id)).toEqual([mail]);
    expect(r.liveChat.map((t) => t.id)).toEqual([chat]);
    expect(r.liveChatCount).toBe(1);
    // The Contact group is the contacts' (the rows above were written straight in, so the contact is made here).
    const made = await call('POST', '/api/contacts', {
      token: a.token,
      body: { name: 'Pat Lee', salutation: 'Dr', identifiers: [{ kind: 'email', value: 'pat.lee@example.org' }] },
    });
    const c = await find(a.token, 'contact:"Pat Lee"');
    expect(c.contact).toEqual([{ uid: 'pat.lee@example.org', id: made.body.id, name: 'Pat Lee', salutation: 'Dr' }]);
    expect((await find(a.token, 'contact:pat.lee@')).contact.map((x) => x.id)).toEqual([made.body.id]);
    expect(c.post.map((t) => t.id)).toEqual([mail]);
    expect((await find(a.token, 'from:bob')).agent.map((x) => x.username)).toEqual([bob.username]);
  });

  it('SEARCH-05 6 a page, 0-based; relevance then recency', async () => {
    const ticket = await rows.ticket(a.accountId);
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await send(alice.token, ticket, `capybara note ${i}`));
    const first = await find(a.token, 'capybara', 0, 0);
    expect(first.messageCount).toBe(8);
    // Same text length and one match each: equal relevance, so the newest first.
    expect(first.message.map((m) => m.id)).toEqual(ids.slice(2).reverse());
    const second = await find(a.token, 'capybara', 0, 1);
    expect(second.message.map((m) => m.id)).toEqual(ids.slice(0, 2).reverse());
    // A message where the word weighs more ranks first, though older.
    const strong = await send(alice.token, ticket, 'capybara capybara');
    await send(alice.token, ticket, `capybara ${'and a great many other words '.repeat(6)}`);
    expect((await find(a.token, 'capybara')).message[0]!.id).toBe(strong);
  });

  it('SEARCH-05 a prefix matching more than SEARCH_RANKED_MAX ranks the newest that many; one letter is a whole word', async () => {
    const word = `quokka${uniq().replace(/\d/g, 'q')}`;
    const ticket = await rows.ticket(a.accountId);
    const at = Date.now();
    // An old message where the word weighs most, then SEARCH_RANKED_MAX + 5 newer ones, written straight in.
    const old = Number(
      (
        await db()
          .insertInto('messages')
          .values({
            account_id: a.accountId,
            ticket_id: ticket,
            type: 'text',
            message: `${word} ${word} ${word}`,
            sender: 'x',
            created_at: at - 10_000,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const many = SEARCH_RANKED_MAX + 5;
    for (let lo = 0; lo < many; lo += 200)
      await db()
        .insertInto('messages')
        .values(
          Array.from({ length: Math.min(200, many - lo) }, (_, k) => ({
            account_id: a.accountId,
            ticket_id: ticket,
            type: 'text',
            message: `${lo + k === many - 3 ? `${word} ${word}` : word} note ${lo + k} and a few more words here`,
            sender: 'x',
            created_at: at + lo + k,
          })),
        )
        .execute();
    const r = await find(a.token, word.slice(0, 8));
    expect(r.messageCount).toBe(SEARCH_RANKED_MAX);
    expect(r.messageCountCapped).toBe(true);
    // Ranked within the newest SEARCH_RANKED_MAX: the one with the word twice first; the old one is not among them.
    const plain = (html: string) => html.replace(/<\/?mark>/g, '');
    expect(plain(r.message[0]!.message)).toContain(`note ${many - 3} `);
    expect(r.message[0]!.message).toContain('<mark>');
    expect(r.message.map((m) => m.id)).not.toContain(old);
    expect(r.message).toHaveLength(6);
    // Below the cap the count is exact: notes 100 and 1000..1004 (a number is a prefix too).
    const exact = await find(a.token, `${word} note 100`);
    expect(exact.messageCountCapped).toBeUndefined();
    expect(exact.messageCount).toBe(6);
    // A one-letter word is matched whole, not as a prefix of every word.
    await send(alice.token, ticket, `${word} plan b`);
    const letter = await find(a.token, `${word} b`);
    expect(letter.messageCount).toBe(1);
    expect((await find(a.token, `${word} n`)).messageCount).toBe(0);
  });

  it("another account's data and conversations the user may not read never appear", async () => {
    const word = `narwhal${uniq().replace(/\d/g, 'y')}`;
    const mine = await rows.ticket(a.accountId, { title: word });
    const theirs = await rows.ticket(b.accountId, { title: word, name: word });
    await send(b.token, theirs, `${word} in account B`);
    await rows.label(b.accountId, word);
    // A Workspace chat of Alice and Bob: the admin is not a member and may not read it.
    const created = await call('POST', '/api/chat/create', { token: alice.token, body: { members: [bob.id] } });
    expect(created.status, created.text).toBe(200);
    const chatId = Number(created.body.data.id);
    const inChat = await send(alice.token, chatId, `${word} between us`);

    const admin = await find(a.token, word);
    expect(admin.post.map((t) => t.id)).toEqual([mine]);
    expect(admin.message).toEqual([]);
    expect(admin.messageCount).toBe(0);
    expect(admin.label).toEqual([]);
    expect(admin.contact).toEqual([]);
    const member = await find(bob.token, word);
    expect(member.message.map((m) => m.id)).toEqual([inChat]);
    const other = await find(b.token, word);
    expect(other.post.map((t) => t.id)).toEqual([theirs]);
    expect(other.message.every((m) => m.ticket_id === theirs)).toBe(true);
    expect(JSON.stringify(other)).not.toContain('between us');
    // Signed out: nothing.
    expect((await call('GET', `/api/search/data?entity=${word}`)).status).toBe(401);
  });

  it('bad input: a 10 kB string, FTS operators and quotes get a clear answer, never a 5xx', async () => {
    const ticket = await rows.ticket(a.accountId);
    const id = await send(alice.token, ticket, 'Operators: refundable "quoted" amounts');
    const huge = await call('GET', `/api/search/data?entity=${'x'.repeat(10_000)}`, { token: a.token });
    expect(huge.status).toBe(400);
    expect(huge.body.description).toBe(SEARCH_STRINGS.tooLong);
    for (const text of [
      '"refundable',
      'refundable"',
      '"refundable"',
      'refundable*',
      '*refundable',
      '-refundable',
      'refundable:',
      ':refundable',
      '(refundable',
      'refundable^',
      '{refundable}: ^',
    ]) {
      const r = await find(a.token, text);
      expect(
        r.message.map((m) => m.id),
        text,
      ).toEqual([id]);
    }
    // OR and NEAR are words like any other: all words must match, so these find nothing, and fail nowhere.
    for (const text of [
      'refundable OR zzz',
      'NEAR(refundable zzz)',
      'refundable NOT quoted AND',
      '"',
      '*',
      '-',
      ':',
      'OR',
      'NEAR',
      "'",
      '\\',
      '%',
      '_',
      '\u0000x',
    ]) {
      const r = await call(
        'GET',
        `/api/search/data?entity=${encodeURIComponent(text)}&username=${encodeURIComponent(text)}&label=${encodeURIComponent(text)}&contact=${encodeURIComponent(text)}&message=${encodeURIComponent(text)}`,
        { token: a.token },
      );
      expect(r.status, `${text}: ${r.text}`).toBeLessThan(500);
      if (r.status === 200)
        expect(
          (r.body as SearchAnswer).message.map((m) => m.id),
          text,
        ).not.toContain(id);
    }
    const cases: [string, string][] = [
      ['ticket=abc', SEARCH_STRINGS.badNumber],
      ['search_index=5', SEARCH_STRINGS.badIndex],
      ['search_index=-6', SEARCH_STRINGS.badIndex],
      ['search_message_index=x', SEARCH_STRINGS.badIndex],
      [`username=${'a'.repeat(201)}`, SEARCH_STRINGS.tooLong],
    ];
    for (const [q, text] of cases) {
      const r = await call('GET', `/api/search/data?${q}`, { token: a.token });
      expect(r.status, q).toBe(400);
      expect(r.body.description, q).toBe(text);
    }
    // Nothing typed: every group empty.
    const empty = await find(a.token, '');
    expect([empty.post, empty.message, empty.liveChat, empty.label, empty.contact, empty.agent].flat()).toEqual([]);
  });
});
