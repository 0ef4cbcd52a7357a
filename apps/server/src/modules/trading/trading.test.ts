import { AnalystAnswer, InsightAnswer, MentionsAnswer, moodOf, TRADING_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, signUpVia } from '../../testing/api.js';
import { insertTicket } from '../../testing/messages.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { dayOf, findMentions, sentimentOf } from './read.js';

const apple = { id: 1, symbol: 'AAPL', name: 'Apple Inc.', aliases: ['Apple', 'iPhone maker'] };
const on = { id: 2, symbol: 'ON', name: 'ON Semiconductor', aliases: [] };
const eurusd = { id: 3, symbol: 'EUR/USD', name: 'Euro Dollar', aliases: ['euro'] };
const list = [apple, on, eurusd];

describe('trading: reading a message', () => {
  it('NAV-07 a symbol in capitals or as a cashtag, a name or alias in any case, each as a whole word', () => {
    expect(findMentions('What do you think of AAPL today?', list)).toEqual([1]);
    expect(findMentions('bought more $aapl and $ON', list)).toEqual([1, 2]);
    expect(findMentions('apple is up, Apple is up, APPLE is up', list)).toEqual([1]);
    expect(findMentions('Is the iPhone   maker a buy?', list)).toEqual([1]);
    expect(findMentions("<p>Apple's results</p>", list)).toEqual([1]);
    expect(findMentions('EUR/USD keeps falling; the euro too', list)).toEqual([3]);
    // A lower-case ticker is an everyday word.
    expect(findMentions('aapl is not a word, and turn it on please', list)).toEqual([]);
    // Never inside another word.
    expect(findMentions('AAPLX, pineapple, SNAPPLE and Applebee are none of them', list)).toEqual([]);
    expect(findMentions('MONDAY CONTRACTS, BONUS', list)).toEqual([]);
    expect(findMentions('', list)).toEqual([]);
  });

  it('NOTIF-08 sentiment: the engine’s emotions and the market words, a negation turning a cue round', () => {
    expect(sentimentOf('AAPL will rally, I am so excited, thank you')).toBeGreaterThan(20);
    expect(sentimentOf('AAPL is going to crash, I am worried and frustrated')).toBeLessThan(-20);
    expect(sentimentOf('I am not bullish on AAPL')).toBeLessThan(0);
    expect(sentimentOf('What is the price of AAPL')).toBe(0);
    expect(moodOf(sentimentOf('Bullish on AAPL, great breakout'))).toBe('Bullish');
    expect(moodOf(sentimentOf('Bearish, sell everything'))).toBe('Bearish');
    expect(moodOf(0)).toBe('Neutral');
    expect(dayOf(Date.UTC(2026, 0, 31, 23, 59))).toBe('2026-01-31');
  });
});

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 15, 12);

describe.each(dialects)('trading desk API (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  beforeAll(async () => {
    s = await startTestServer(dialect, {}, { clock: () => NOW });
    call = apiClient(s.url);
  });
  afterAll(async () => s?.stop());

  /** A customer's message delivered as the channels deliver one (the `message.created` event). */
  const customerSays = async (accountId: number, ticketId: number, text: string, at: number) => {
    const m = await s.handle.db
      .insertInto('messages')
      .values({
        account_id: accountId,
        ticket_id: ticketId,
        type: 'text',
        message: text,
        sender: 'visitor',
        client_id: null,
        created_at: at,
        reply_id: null,
        deleted_at: null,
        deleted_by: null,
        email_meta: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await runCommand(s.handle.db, (trx) =>
      appendEvents(trx, accountId, [
        {
          accountId,
          type: 'message.created',
          payload: { id: Number(m.id), ticketId, type: 'text', message: text, fromCustomer: true },
        },
      ]),
    );
    return Number(m.id);
  };
  const mentionsOf = (accountId: number) =>
    s.handle.db.selectFrom('trading_mentions').selectAll().where('account_id', '=', accountId).execute();

  it('NAV-07 NAV-24 admins manage the watch list; bad input is a clear 400; a taken symbol 409; agents 403', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${a.accountId}`, type: 'agent' });
    const add = (body: unknown, token = a.token) => call('POST', '/api/trading/instruments', { token, body });

    const made = await add({ symbol: ' aapl ', name: 'Apple Inc.', aliases: ['Apple', 'apple', 'iPhone maker'] });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data).toMatchObject({ symbol: 'AAPL', name: 'Apple Inc.', aliases: ['Apple', 'iPhone maker'] });
    const id = made.body.data.id as number;

    for (const [body, description] of [
      [{ symbol: '', name: 'X' }, TRADING_STRINGS.symbolRequired],
      [{ symbol: 'A B', name: 'X' }, TRADING_STRINGS.symbolInvalid],
      [{ symbol: 'ABCDEFGHIJKLM', name: 'X' }, TRADING_STRINGS.symbolInvalid],
      [{ symbol: 'MSFT', name: '  ' }, TRADING_STRINGS.nameRequired],
      [{ symbol: 'MSFT', name: 'Microsoft', aliases: ['x'] }, TRADING_STRINGS.aliasInvalid],
      [{ symbol: 'MSFT', name: 'Microsoft', aliases: Array(11).fill('Soft') }, TRADING_STRINGS.tooManyAliases],
    ] as const) {
      const r = await add(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.description).toBe(description);
    }
    const taken = await add({ symbol: 'AAPL', name: 'Again' });
    expect(taken.status).toBe(409);
    expect(taken.body.description).toBe(TRADING_STRINGS.symbolTaken('AAPL'));
    const list = await call('GET', '/api/trading/instruments', { token: a.token });
    expect(list.body.data.map((i: { symbol: string }) => i.symbol)).toEqual(['AAPL']);

    // Agents: refused, nothing read or changed.
    for (const [method, path] of [
      ['GET', '/api/trading/instruments'],
      ['GET', `/api/trading/analyst?instrument=${id}`],
      ['GET', `/api/trading/analyst/LIVECHAT/${id}`],
      ['GET', '/api/trading/insight'],
    ] as const)
      expect((await call(method, path, { token: agent.token })).status, path).toBe(403);
    expect((await add({ symbol: 'MSFT', name: 'Microsoft' }, agent.token)).status).toBe(403);

    const edited = await call('PUT', `/api/trading/instruments/${id}`, {
      token: a.token,
      body: { symbol: 'AAPL', name: 'Apple', aliases: ['Cupertino'] },
    });
    expect(edited.body.data).toMatchObject({ name: 'Apple', aliases: ['Cupertino'] });
    expect((await call('DELETE', `/api/trading/instruments/${id}`, { token: a.token })).status).toBe(200);
    expect((await call('DELETE', `/api/trading/instruments/${id}`, { token: a.token })).status).toBe(404);
  });

  it('NAV-07 a customer message mentioning an instrument is kept with its sentiment; per day and channel; the drill-down lists it; the overview ranks', async () => {
    const a = await signUpVia(call);
    const aapl = (
      await call('POST', '/api/trading/instruments', {
        token: a.token,
        body: { symbol: 'AAPL', name: 'Apple Inc.', aliases: ['Apple'] },
      })
    ).body.data.id as number;
    const tsla = (
      await call('POST', '/api/trading/instruments', { token: a.token, body: { symbol: 'TSLA', name: 'Tesla' } })
    ).body.data.id as number;
    const chat = await insertTicket(s.handle.db, a.accountId, { channel: 'LIVECHAT' });
    const mail = await insertTicket(s.handle.db, a.accountId, { channel: 'EMAIL' });

    const today = NOW;
    const yesterday = NOW - DAY;
    await customerSays(a.accountId, chat, 'AAPL will rally, great breakout, thank you!', today);
    await customerSays(a.accountId, chat, 'I love Apple, so excited', yesterday);
    await customerSays(a.accountId, mail, 'Apple is going to crash, I am worried. Also TSLA.', today);
    await customerSays(a.accountId, mail, 'Nothing about instruments here, pineapple juice.', today);
    // An agent's message is not read.
    await waitFor(async () => (await mentionsOf(a.accountId)).length === 4, 'four mentions');

    const r = await call('GET', `/api/trading/analyst?instrument=${aapl}&from=2026-06-01&to=2026-06-15`, {
      token: a.token,
    });
    expect(r.status, r.text).toBe(200);
    const body = AnalystAnswer.parse(r.body);
    expect(body.days).toHaveLength(15);
    expect(body.total).toBe(3);
    const at = (day: string, channel: string) => body.buckets.find((b) => b.day === day && b.channel === channel);
    expect(at('2026-06-15', 'LIVECHAT')).toMatchObject({ mentions: 1 });
    expect(at('2026-06-15', 'LIVECHAT')!.sentiment).toBeGreaterThan(20);
    expect(at('2026-06-14', 'LIVECHAT')).toMatchObject({ mentions: 1 });
    expect(at('2026-06-15', 'EMAIL')!.sentiment).toBeLessThan(-20);
    expect(body.channels.map((c) => [c.channel, c.mentions])).toEqual([
      ['LIVECHAT', 2],
      ['EMAIL', 1],
    ]);
    expect(body.days.at(-1)).toMatchObject({ day: '2026-06-15', mentions: 2 });
    expect(body.days[0]).toEqual({ day: '2026-06-01', mentions: 0, sentiment: null });

    // The default range ends today.
    const def = AnalystAnswer.parse(
      (await call('GET', `/api/trading/analyst?instrument=${aapl}`, { token: a.token })).body,
    );
    expect([def.from, def.to, def.total]).toEqual(['2026-05-17', '2026-06-15', 3]);

    const d = await call('GET', `/api/trading/analyst/LIVECHAT/${aapl}`, { token: a.token });
    expect(d.status, d.text).toBe(200);
    const drill = MentionsAnswer.parse(d.body);
    expect(drill.total).toBe(2);
    expect(drill.data.map((m) => m.text)).toEqual([
      'AAPL will rally, great breakout, thank you!',
      'I love Apple, so excited',
    ]);
    expect(drill.data[0]!.ticket_id).toBe(chat);

    const i = await call('GET', '/api/trading/insight?from=2026-06-15&to=2026-06-15', { token: a.token });
    const ins = InsightAnswer.parse(i.body);
    expect(ins.top.map((x) => [x.instrument.symbol, x.mentions])).toEqual([
      ['AAPL', 2],
      ['TSLA', 1],
    ]);
    // Yesterday's AAPL was bullish, today's is mixed: a change; TSLA had nothing before.
    expect(ins.movers.map((x) => x.instrument.symbol)).toEqual(['AAPL']);
    expect(ins.top.find((x) => x.instrument.id === tsla)!.change).toBeNull();

    // Removing an instrument takes its mentions with it.
    await call('DELETE', `/api/trading/instruments/${tsla}`, { token: a.token });
    expect((await mentionsOf(a.accountId)).length).toBe(3);
  });

  it('NAV-07 bad ranges and channels are a 400; another account’s instrument is a 404 and its messages are not read', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const aapl = (
      await call('POST', '/api/trading/instruments', { token: a.token, body: { symbol: 'AAPL', name: 'Apple' } })
    ).body.data.id as number;
    for (const q of ['from=2026-02-31', 'from=2026-06-10&to=2026-06-01', 'from=2024-01-01&to=2026-01-01', 'to=june'])
      expect((await call('GET', `/api/trading/analyst?instrument=${aapl}&${q}`, { token: a.token })).status, q).toBe(
        400,
      );
    expect((await call('GET', `/api/trading/analyst/LIVE%20CHAT/${aapl}`, { token: a.token })).status).toBe(400);
    expect((await call('GET', `/api/trading/analyst/LIVECHAT/abc`, { token: a.token })).status).toBe(400);
    expect((await call('GET', '/api/trading/insight?from=x', { token: a.token })).status).toBe(400);

    // B sees none of A's watch list, and B's customers' messages are not read against it.
    for (const path of [`/api/trading/analyst?instrument=${aapl}`, `/api/trading/analyst/LIVECHAT/${aapl}`])
      expect((await call('GET', path, { token: b.token })).status, path).toBe(404);
    expect((await call('DELETE', `/api/trading/instruments/${aapl}`, { token: b.token })).status).toBe(404);
    expect(
      (await call('PUT', `/api/trading/instruments/${aapl}`, { token: b.token, body: { symbol: 'X', name: 'X' } }))
        .status,
    ).toBe(404);
    expect((await call('GET', '/api/trading/instruments', { token: b.token })).body.data).toEqual([]);
    const bTicket = await insertTicket(s.handle.db, b.accountId, { channel: 'LIVECHAT' });
    await customerSays(b.accountId, bTicket, 'AAPL to the moon', NOW);
    const aTicket = await insertTicket(s.handle.db, a.accountId, { channel: 'LIVECHAT' });
    await customerSays(a.accountId, aTicket, 'AAPL please', NOW);
    await waitFor(async () => (await mentionsOf(a.accountId)).length === 1, "A's mention");
    expect(await mentionsOf(b.accountId)).toEqual([]);
    expect(InsightAnswer.parse((await call('GET', '/api/trading/insight', { token: b.token })).body).top).toEqual([]);
  });
});
