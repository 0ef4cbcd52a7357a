import { randomBytes } from 'node:crypto';
import { CHANNEL_STRINGS, SMS_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { channelProbe, replier } from '../../testing/channelProbe.js';
import {
  lineText,
  lineWebhook,
  smsIn,
  startLineStandIn,
  startTwilioStandIn,
  twilioWebhook,
} from '../../testing/channelStandIns.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import type { OpenConnection } from './adapter.js';
import { retryKey } from './adapters/line.js';
import { smsNumber, twilioSignature } from './adapters/sms.js';

const KEY = randomBytes(32).toString('base64');
const LINE = { channelSecret: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', channelAccessToken: 'line-long-lived-token/abc=' };
const SMS = {
  accountSid: `AC${'0a1b2c3d'.repeat(4)}`,
  authToken: '9f8e7d6c5b4a39281706f5e4d3c2b1a0',
  from: '+14155550100',
};
const PUBLIC_URL = 'https://parley.example';

describe('LINE and SMS signatures and keys', () => {
  it("TWILIO the signature matches Twilio's documented example", () => {
    const params: [string, string][] = [
      ['CallSid', 'CA1234567890ABCDE'],
      ['Caller', '+14158675309'],
      ['Digits', '1234'],
      ['From', '+14158675309'],
      ['To', '+18005551212'],
    ];
    // Given in any order: sorted by name before signing.
    expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params.reverse())).toBe(
      'RSOYDt4T1cUTdK1PDd93/VVr8B8=',
    );
  });

  it('SMS a number an SMS can go to is E.164; short codes, names and nonsense are not', () => {
    expect(smsNumber('+14155550123')).toBe('+14155550123');
    expect(smsNumber('+447911123456')).toBe('+447911123456');
    for (const bad of ['12345', 'ACME', '+1555', '4155550123', '+999123456789']) expect(smsNumber(bad), bad).toBeNull();
  });

  it("LINE a reply's retry key is a UUID, the same on every try, another for another reply", () => {
    const c = { id: 3, accountId: 7 } as OpenConnection;
    expect(retryKey(c, 42)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(retryKey(c, 42)).toBe(retryKey(c, 42));
    expect(retryKey(c, 43)).not.toBe(retryKey(c, 42));
    expect(retryKey({ ...c, id: 4 }, 42)).not.toBe(retryKey(c, 42));
  });
});

describe.each(dialects)('LINE and SMS channels (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let line: Awaited<ReturnType<typeof startLineStandIn>>;
  let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string };
  let lineKey: string;
  let smsKey: string;
  let smsUrl: string;
  const db = () => s.handle.db;

  const post = (path: string, body: string, headers: Record<string, string>, type = 'application/json') =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body });
  const linePost = (events: unknown[], secret = LINE.channelSecret) => {
    const w = lineWebhook(secret, events);
    return post(
      `/api/channels/webhook/${lineKey}`,
      w.body,
      { 'x-line-signature': w.signature },
      'application/json; charset=utf-8',
    );
  };
  const smsPost = (params: Record<string, string>, o: { token?: string; url?: string } = {}) => {
    const w = twilioWebhook(o.token ?? SMS.authToken, o.url ?? smsUrl, params);
    return post(
      `/api/channels/webhook/${smsKey}`,
      w.body,
      { 'x-twilio-signature': w.signature },
      'application/x-www-form-urlencoded; charset=utf-8',
    );
  };
  const { ticketOfPeer, messagesOf, delivery, stateOf, webhookEvents, allHandled } = channelProbe(
    db,
    () => admin.accountId,
  );
  const reply = replier(
    () => call,
    () => agent.token,
  );
  const lineUser = () => `U${randomBytes(16).toString('hex')}`;
  // A new customer number each time (a number seen before would join that customer's ticket).
  let nextPeer = 1000 + Math.floor(Math.random() * 4000);
  const smsPeer = () => `+1415555${nextPeer++}`;
  const providerIdOf = async (messageId: number) =>
    (
      await db()
        .selectFrom('channel_message_ids')
        .select('provider_id')
        .where('message_row_id', '=', messageId)
        .where('direction', '=', 'out')
        .executeTakeFirstOrThrow()
    ).provider_id;

  beforeAll(async () => {
    line = await startLineStandIn({ accessToken: LINE.channelAccessToken });
    twilio = await startTwilioStandIn({ accountSid: SMS.accountSid, authToken: SMS.authToken, numbers: [SMS.from] });
    s = await startTestServer(dialect, {
      SECRETS_KEY: KEY,
      PUBLIC_URL,
      LINE_API_URL: line.url,
      LINE_DATA_API_URL: line.dataUrl,
      SMS_API_URL: twilio.url,
    });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await line?.close();
    await twilio?.close();
  });

  it('CHANNEL a trial may not connect LINE (Basic has it) nor SMS (Enterprise only); Enterprise may, shapes checked', async () => {
    const lineBody = { name: 'Acme LINE', settings: { kind: 'line', ...LINE } };
    const smsBody = {
      name: 'Acme SMS',
      settings: { kind: 'sms', accountSid: SMS.accountSid, fromNumber: '+1 415-555-0100', authToken: SMS.authToken },
    };
    const l = await call('POST', '/api/channels', { token: admin.token, body: lineBody });
    expect(l.status).toBe(403);
    expect(l.body.description).toBe(
      'Your trial does not include Line Direct Message. Basic has it: upgrade on the Plans page.',
    );
    const m = await call('POST', '/api/channels', { token: admin.token, body: smsBody });
    expect(m.status).toBe(403);
    expect(m.body.description).toBe(
      'Your trial does not include SMS. Enterprise has every channel: contact sales from the Plans page.',
    );
    expect((await call('GET', '/api/channels', { token: admin.token })).body.allowed).toEqual([
      'whatsapp',
      'messenger',
      'x',
    ]);
    expect(
      await db().selectFrom('channel_connections').select('id').where('account_id', '=', admin.accountId).execute(),
    ).toEqual([]);

    await db().updateTable('accounts').set({ plan: 4 }).where('id', '=', admin.accountId).execute();
    for (const [body, words] of [
      [{ name: 'x', settings: { kind: 'line', channelAccessToken: 'x' } }, CHANNEL_STRINGS.channelSecretRequired],
      [
        { name: 'x', settings: { kind: 'line', channelSecret: 'short', channelAccessToken: 'x' } },
        CHANNEL_STRINGS.channelSecretShape,
      ],
      [
        { name: 'x', settings: { kind: 'line', channelSecret: LINE.channelSecret } },
        CHANNEL_STRINGS.channelAccessTokenRequired,
      ],
      [{ name: 'x', settings: { ...smsBody.settings, accountSid: 'SK123' } }, CHANNEL_STRINGS.accountSidShape],
      [{ name: 'x', settings: { ...smsBody.settings, fromNumber: '+1 555' } }, CHANNEL_STRINGS.fromNumberShape],
      [{ name: 'x', settings: { ...smsBody.settings, fromNumber: '4155550100' } }, CHANNEL_STRINGS.fromNumberShape],
      [{ name: 'x', settings: { ...smsBody.settings, authToken: '' } }, CHANNEL_STRINGS.authTokenRequired],
    ] as const) {
      const r = await call('POST', '/api/channels', { token: admin.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.description, JSON.stringify(body)).toBe(words);
    }

    const madeLine = await call('POST', '/api/channels', { token: admin.token, body: lineBody });
    expect(madeLine.status).toBe(200);
    expect(madeLine.body.data).toMatchObject({
      kind: 'line',
      channel: 'LINE_DM',
      settings: {},
      hasToken: true,
      hasAppSecret: true,
      verifyToken: null,
    });
    lineKey = madeLine.body.data.webhookUrl.split('/').at(-1);
    const madeSms = await call('POST', '/api/channels', { token: admin.token, body: smsBody });
    expect(madeSms.status).toBe(200);
    expect(madeSms.body.data).toMatchObject({
      kind: 'sms',
      channel: 'SMS',
      settings: { accountSid: SMS.accountSid, fromNumber: SMS.from },
      hasToken: true,
    });
    smsUrl = madeSms.body.data.webhookUrl;
    expect(smsUrl).toMatch(/^https:\/\/parley\.example\/api\/channels\/webhook\//);
    smsKey = smsUrl.split('/').at(-1)!;
    const list = await call('GET', '/api/channels', { token: admin.token });
    expect(list.body.allowed).toEqual(['whatsapp', 'messenger', 'instagram', 'telegram', 'line', 'sms', 'x']);
    for (const secret of [LINE.channelSecret, LINE.channelAccessToken, SMS.authToken])
      expect(list.text).not.toContain(secret);

    const tl = await call('POST', `/api/channels/${madeLine.body.data.id}/test`, { token: admin.token });
    expect(tl.body.data).toEqual({ ok: true, response: CHANNEL_STRINGS.testOk('Acme Support, @216ru...') });
    const ts = await call('POST', `/api/channels/${madeSms.body.data.id}/test`, { token: admin.token });
    expect(ts.body.data).toEqual({ ok: true, response: CHANNEL_STRINGS.testOk(`Acme SMS, ${SMS.from}`) });
    // A number to send from that the account does not have: the test says so, and the connection keeps it.
    const other = await call('POST', '/api/channels', {
      token: admin.token,
      body: { ...smsBody, name: 'Other', settings: { ...smsBody.settings, fromNumber: '+14155550199' } },
    });
    const t2 = await call('POST', `/api/channels/${other.body.data.id}/test`, { token: admin.token });
    expect(t2.body.data).toEqual({ ok: false, response: CHANNEL_STRINGS.notAccountNumber('+14155550199') });
    const kept = (await call('GET', '/api/channels', { token: admin.token })).body.data;
    expect(kept.find((x: { id: number }) => x.id === other.body.data.id).lastError).toBe(
      CHANNEL_STRINGS.notAccountNumber('+14155550199'),
    );
    expect((await call('DELETE', `/api/channels/${other.body.data.id}`, { token: admin.token })).status).toBe(200);
  });

  it('LINE a signed message makes a ticket named from the profile; the same webhook five times makes one message', async () => {
    const user = lineUser();
    line.profiles.set(user, 'Mika Tanaka');
    const w = lineWebhook(LINE.channelSecret, [lineText(user, 'Where is my parcel?')]);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(`/api/channels/webhook/${lineKey}`, w.body, { 'x-line-signature': w.signature }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const t = await waitFor(() => ticketOfPeer(user), 'the ticket');
    expect(t).toMatchObject({ channel: 'LINE_DM', name: 'Mika Tanaka', title: 'Where is my parcel?' });
    // The customer is a contact known by their LINE user id, proved by LINE itself.
    const id = await db()
      .selectFrom('contact_identifiers')
      .select(['contact_id', 'verified'])
      .where('kind', '=', 'line')
      .where('value', '=', user)
      .executeTakeFirst();
    expect(id && Number(id.contact_id)).toBe(Number(t.contact_id));
    expect(Number(id?.verified)).toBe(1);
    await allHandled();
    expect((await messagesOf(Number(t.id))).map((m) => [m.message, m.sender, m.sender_name])).toEqual([
      ['Where is my parcel?', 'visitor', 'Mika Tanaka'],
    ]);
    // The next message joins the ticket under the same name, without asking the profile again.
    line.profiles.delete(user);
    await linePost([lineText(user, 'Order 8812')]);
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 2, 'the second message');
    expect((await messagesOf(Number(t.id)))[1]).toMatchObject({ message: 'Order 8812', sender_name: 'Mika Tanaka' });
    // LINE's console "Verify" posts no events: taken, nothing stored.
    const verify = await linePost([]);
    expect(verify.status).toBe(200);
    expect((await verify.json()).taken).toBe(0);
  });

  it('LINE a bad or missing signature answers 401 and stores nothing', async () => {
    const before = await webhookEvents();
    const user = lineUser();
    expect((await linePost([lineText(user, 'forged')], 'f'.repeat(32))).status).toBe(401);
    const w = lineWebhook(LINE.channelSecret, [lineText(user, 'unsigned')]);
    expect((await post(`/api/channels/webhook/${lineKey}`, w.body, {})).status).toBe(401);
    // Signed, then changed on the way.
    const changed = w.body.replace('unsigned', 'changed!');
    expect((await post(`/api/channels/webhook/${lineKey}`, changed, { 'x-line-signature': w.signature })).status).toBe(
      401,
    );
    expect(await webhookEvents()).toBe(before);
    expect(await ticketOfPeer(user)).toBeUndefined();
  });

  it('LINE a quick answer goes with the fresh reply token, once; the next is pushed with a retry key and the token', async () => {
    const user = lineUser();
    const token = randomBytes(16).toString('hex');
    line.replyTokens.set(token, user);
    expect((await linePost([lineText(user, 'Hi there', { replyToken: token })])).status).toBe(200);
    const t = await waitFor(() => ticketOfPeer(user), 'the ticket');
    const first = await reply(Number(t.id), 'Hello! How can we help?');
    await waitFor(async () => (await stateOf(first)) === 'sent', 'sent');
    const viaReply = line.sent.find((x) => x.path === '/v2/bot/message/reply' && x.body.replyToken === token)!;
    expect(viaReply.body).toEqual({ replyToken: token, messages: [{ type: 'text', text: 'Hello! How can we help?' }] });
    expect(viaReply.headers.authorization).toBe(`Bearer ${LINE.channelAccessToken}`);
    const second = await reply(Number(t.id), 'Anything else?');
    await waitFor(async () => (await stateOf(second)) === 'sent', 'sent');
    const pushed = line.sent.filter((x) => x.path === '/v2/bot/message/push' && x.body.to === user);
    expect(pushed).toHaveLength(1);
    expect(pushed[0]!.body).toEqual({ to: user, messages: [{ type: 'text', text: 'Anything else?' }] });
    expect(pushed[0]!.headers.authorization).toBe(`Bearer ${LINE.channelAccessToken}`);
    expect(pushed[0]!.headers['x-line-retry-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-/);
    expect(line.delivered.filter((d) => d.to === user)).toEqual([
      { to: user, via: 'reply', texts: ['Hello! How can we help?'] },
      { to: user, via: 'push', texts: ['Anything else?'] },
    ]);
  });

  it('LINE a stale or refused reply token falls back to a push; a redelivered event keeps no token', async () => {
    const user = lineUser();
    const stale = randomBytes(16).toString('hex');
    line.replyTokens.set(stale, user);
    await linePost([lineText(user, 'An hour ago', { replyToken: stale, at: Date.now() - 3_600_000 })]);
    const t = await waitFor(() => ticketOfPeer(user), 'the ticket');
    const a = await reply(Number(t.id), 'Sorry for the wait');
    await waitFor(async () => (await stateOf(a)) === 'sent', 'sent');
    expect(line.sent.some((x) => x.body?.replyToken === stale)).toBe(false);
    // A fresh token LINE no longer takes (used elsewhere, expired early): 400, and the push sends it.
    await linePost([lineText(user, 'Still there?', { replyToken: 'not-a-token-line-knows' })]);
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 3, 'the second message');
    const b = await reply(Number(t.id), 'Yes!');
    await waitFor(async () => (await stateOf(b)) === 'sent', 'sent');
    expect(line.sent.some((x) => x.body?.replyToken === 'not-a-token-line-knows')).toBe(true);
    const redelivered = randomBytes(16).toString('hex');
    line.replyTokens.set(redelivered, user);
    await linePost([lineText(user, 'Again', { replyToken: redelivered, redelivery: true })]);
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 5, 'the redelivered message');
    const c = await reply(Number(t.id), 'Got it');
    await waitFor(async () => (await stateOf(c)) === 'sent', 'sent');
    expect(line.sent.some((x) => x.body?.replyToken === redelivered)).toBe(false);
    expect(line.delivered.filter((d) => d.to === user).map((d) => [d.via, d.texts[0]])).toEqual([
      ['push', 'Sorry for the wait'],
      ['push', 'Yes!'],
      ['push', 'Got it'],
    ]);
  });

  it('LINE a 500 is retried with the same retry key and sent once, even when the first push went through', async () => {
    const user = lineUser();
    await linePost([lineText(user, 'Hello', { replyToken: 'unused', at: Date.now() - 120_000 })]);
    const t = await waitFor(() => ticketOfPeer(user), 'the ticket');
    line.script.next.push({ status: 500, body: { message: 'An error occurred in the backend' } });
    const a = await reply(Number(t.id), 'First');
    await waitFor(async () => (await stateOf(a)) === 'sent', 'sent after a retry', 20_000);
    const tries = line.sent.filter((x) => x.body?.to === user && x.body.messages[0].text === 'First');
    expect(tries).toHaveLength(2);
    expect(tries[1]!.headers['x-line-retry-key']).toBe(tries[0]!.headers['x-line-retry-key']);
    // LINE took the push but its answer was lost (a 500 after accepting): the retry's 409 means sent.
    line.script.next.push({ status: 500, body: { message: 'An error occurred in the backend' }, accept: true });
    const b = await reply(Number(t.id), 'Second');
    await waitFor(async () => (await stateOf(b)) === 'sent', 'sent after a 409', 20_000);
    expect(line.sent.filter((x) => x.body?.to === user && x.body.messages[0].text === 'Second')).toHaveLength(2);
    expect(line.delivered.filter((d) => d.to === user).map((d) => d.texts[0])).toEqual(['First', 'Second']);
    expect(await providerIdOf(b)).toMatch(/^\d+$/);
  });

  it("LINE a refusal is shown failed with LINE's words", async () => {
    const user = lineUser();
    await linePost([lineText(user, 'Hi', { at: Date.now() - 120_000 })]);
    const t = await waitFor(() => ticketOfPeer(user), 'the ticket');
    line.script.next.push({
      status: 400,
      body: {
        message: 'The request body has 1 error(s)',
        details: [{ message: 'May not be empty', property: 'messages[0].text' }],
      },
    });
    const id = await reply(Number(t.id), 'Refused');
    await waitFor(async () => (await stateOf(id)) === 'failed', 'failed');
    const words = 'The request body has 1 error(s) (messages[0].text: May not be empty)';
    expect((await delivery(id)).delivery_error).toBe(words);
    const shown = await call('GET', `/api/ticket/data3/${t.id}/0`, { token: agent.token });
    expect(shown.body.data.find((m: { id: number }) => m.id === id).delivery).toEqual({
      state: 'failed',
      error: words,
    });
    // The month's quota used up is a 429 no retry fixes: failed at once, tried once.
    line.script.next.push({ status: 429, body: { message: 'You have reached your monthly limit.' } });
    const quota = await reply(Number(t.id), 'Over quota');
    await waitFor(async () => (await stateOf(quota)) === 'failed', 'failed');
    expect((await delivery(quota)).delivery_error).toBe('You have reached your monthly limit.');
    expect(line.sent.filter((x) => x.body?.messages?.[0]?.text === 'Over quota')).toHaveLength(1);
  });

  it('LINE a message the customer takes back (unsend) is hidden; an unknown one changes nothing', async () => {
    const user = lineUser();
    const id = `6${String(Date.now()).slice(-12)}`;
    await linePost([lineText(user, 'My card number is 4111 1111 1111 1111', { id })]);
    const t = await waitFor(() => ticketOfPeer(user), 'the ticket');
    await linePost([lineText(user, 'Oops, sorry')]);
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 2, 'both messages');
    const unsend = (messageId: string) => ({
      type: 'unsend',
      mode: 'active',
      timestamp: Date.now(),
      source: { type: 'user', userId: user },
      webhookEventId: `01H${randomBytes(12).toString('hex').toUpperCase()}`,
      deliveryContext: { isRedelivery: false },
      unsend: { messageId },
    });
    const r = await linePost([unsend(id), unsend('999999999999')]);
    expect((await r.json()).taken).toBe(2);
    await waitFor(async () => {
      const row = await db()
        .selectFrom('messages')
        .select('deleted_at')
        .where('id', '=', (await messagesOf(Number(t.id)))[0]!.id)
        .executeTakeFirstOrThrow();
      return row.deleted_at !== null;
    }, 'the message hidden');
    const shown = await call('GET', `/api/ticket/data3/${t.id}/0`, { token: agent.token });
    expect(shown.text).not.toContain('4111');
    expect(shown.text).toContain('Oops, sorry');
  });

  it('LINE an image is fetched from the data API and attached', async () => {
    const user = lineUser();
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const id = `5${String(Date.now()).slice(-12)}`;
    line.media.set(id, png);
    const event = lineText(user, '');
    await linePost([{ ...event, message: { id, type: 'image', contentProvider: { type: 'line' } } }]);
    const t = await waitFor(() => ticketOfPeer(user), 'the ticket');
    const [m] = await waitFor(async () => {
      const ms = await messagesOf(Number(t.id));
      return ms.length ? ms : null;
    }, 'the message');
    const files = JSON.parse(m!.files);
    expect(files).toHaveLength(1);
    expect(files[0].fileType).toBe('image/png');
  });

  it('SMS a signed message makes a ticket with the number; the same webhook five times makes one message; the answer is TwiML', async () => {
    const from = smsPeer();
    const params = smsIn(SMS.accountSid, from, SMS.from, 'My card was charged twice');
    const w = twilioWebhook(SMS.authToken, smsUrl, params);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(
          `/api/channels/webhook/${smsKey}`,
          w.body,
          { 'x-twilio-signature': w.signature },
          'application/x-www-form-urlencoded',
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]!.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(await answers[0]!.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    const t = await waitFor(() => ticketOfPeer(from), 'the ticket');
    expect(t).toMatchObject({ channel: 'SMS', name: from, phone: from, title: 'My card was charged twice' });
    await allHandled();
    expect((await messagesOf(Number(t.id))).map((m) => [m.message, m.sender])).toEqual([
      ['My card was charged twice', 'visitor'],
    ]);
  });

  it('SMS a bad signature, or one for another address, answers 401 and stores nothing', async () => {
    const before = await webhookEvents();
    const from = smsPeer();
    const params = smsIn(SMS.accountSid, from, SMS.from, 'forged');
    expect((await smsPost(params, { token: 'f'.repeat(32) })).status).toBe(401);
    expect((await smsPost(params, { url: `https://elsewhere.example/api/channels/webhook/${smsKey}` })).status).toBe(
      401,
    );
    const w = twilioWebhook(SMS.authToken, smsUrl, params);
    expect(
      (await post(`/api/channels/webhook/${smsKey}`, w.body, {}, 'application/x-www-form-urlencoded')).status,
    ).toBe(401);
    // A field changed after signing.
    const changed = w.body.replace('forged', 'changed');
    expect(
      (
        await post(
          `/api/channels/webhook/${smsKey}`,
          changed,
          { 'x-twilio-signature': w.signature },
          'application/x-www-form-urlencoded',
        )
      ).status,
    ).toBe(401);
    expect(await webhookEvents()).toBe(before);
    expect(await ticketOfPeer(from)).toBeUndefined();
  });

  it('SMS a reply is posted with Basic auth and its StatusCallback; delivered moves it forward, never back', async () => {
    const from = smsPeer();
    await smsPost(smsIn(SMS.accountSid, from, SMS.from, 'Hello?'));
    const t = await waitFor(() => ticketOfPeer(from), 'the ticket');
    const id = await reply(Number(t.id), 'Hi, this is Acme support.');
    const out = await waitFor(() => twilio.sent.find((x) => x.form.To === from), 'the send');
    expect(out.path).toBe(`/2010-04-01/Accounts/${SMS.accountSid}/Messages.json`);
    expect(out.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(out.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SMS.accountSid}:${SMS.authToken}`).toString('base64')}`,
    );
    expect(out.form).toEqual({ To: from, From: SMS.from, Body: 'Hi, this is Acme support.', StatusCallback: smsUrl });
    await waitFor(async () => (await stateOf(id)) === 'sent', 'sent');
    const sid = await providerIdOf(id);
    expect(sid).toMatch(/^SM[0-9a-f]{32}$/);
    const status = (s: string, extra: Record<string, string> = {}) => ({
      AccountSid: SMS.accountSid,
      ApiVersion: '2010-04-01',
      From: SMS.from,
      To: from,
      MessageSid: sid,
      SmsSid: sid,
      MessageStatus: s,
      SmsStatus: s,
      ...extra,
    });
    expect((await smsPost(status('sent'))).status).toBe(200);
    expect((await smsPost(status('delivered'))).status).toBe(200);
    await waitFor(async () => (await stateOf(id)) === 'delivered', 'delivered');
    // Late and out of order: a failure after delivered changes nothing.
    await smsPost(status('undelivered', { ErrorCode: '30003' }));
    await smsPost(smsIn(SMS.accountSid, from, SMS.from, 'sentinel'));
    await waitFor(async () => (await messagesOf(Number(t.id))).some((m) => m.message === 'sentinel'), 'the sentinel');
    await allHandled();
    expect(await stateOf(id)).toBe('delivered');
  });

  it('SMS an agent texts a number from /sms: a conversation starts and the text leaves; the next joins it; a bad number changes nothing', async () => {
    const to = smsPeer();
    const count = async () =>
      Number(
        (
          await s.handle.db
            .selectFrom('tickets')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', admin.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (const bad of ['12345', '+1', 'acme', '+999 000', ''])
      expect(
        (await call('POST', '/api/sms/send', { token: agent.token, body: { to: bad, message: 'x' } })).status,
        bad,
      ).toBe(400);
    expect(await count()).toBe(before);
    const first = await call('POST', '/api/sms/send', {
      token: agent.token,
      body: { to: `${to.slice(0, 2)} ${to.slice(2, 5)} ${to.slice(5)}`, message: 'Your parcel is on its way.' },
    });
    expect(first.status, first.text).toBe(200);
    const ticketId = first.body.data.ticketId as number;
    const out = await waitFor(() => twilio.sent.find((x) => x.form.To === to), 'the send');
    expect(out.form.Body).toBe('Your parcel is on its way.');
    const second = await call('POST', '/api/sms/send', { token: agent.token, body: { to, message: 'Tracking: 123' } });
    expect(second.body.data.ticketId).toBe(ticketId);
    const threads = await call('GET', '/api/sms/threads', { token: agent.token });
    expect(threads.body.connected).toBe(true);
    expect(threads.body.data[0]).toMatchObject({ ticketId, number: to });
    // The customer answers: the same conversation.
    await smsPost(smsIn(SMS.accountSid, to, SMS.from, 'Thanks!'));
    await waitFor(async () => (await messagesOf(ticketId)).some((m) => m.message === 'Thanks!'), 'the answer');
    expect(Number((await ticketOfPeer(to))?.id)).toBe(ticketId);
    // Another account has no SMS number: it is told so, and sees none of these.
    const other = await signUpVia(call);
    const none = await call('GET', '/api/sms/threads', { token: other.token });
    expect(none.body).toMatchObject({ connected: false, data: [] });
    const refused = await call('POST', '/api/sms/send', { token: other.token, body: { to, message: 'x' } });
    expect([refused.status, refused.body.description]).toEqual([409, SMS_STRINGS.notConnected]);
  });

  it('SMS undelivered or failed with an ErrorCode fails the reply with words', async () => {
    const from = smsPeer();
    await smsPost(smsIn(SMS.accountSid, from, SMS.from, 'Hi'));
    const t = await waitFor(() => ticketOfPeer(from), 'the ticket');
    const a = await reply(Number(t.id), 'One');
    const b = await reply(Number(t.id), 'Two');
    await waitFor(async () => (await stateOf(a)) === 'sent' && (await stateOf(b)) === 'sent', 'both sent');
    const cb = (sid: string, s: string, code: string) => ({
      AccountSid: SMS.accountSid,
      MessageSid: sid,
      MessageStatus: s,
      ErrorCode: code,
      To: from,
      From: SMS.from,
    });
    await smsPost(cb(await providerIdOf(a), 'undelivered', '30003'));
    await smsPost(cb(await providerIdOf(b), 'failed', '30007'));
    await waitFor(async () => (await stateOf(a)) === 'failed' && (await stateOf(b)) === 'failed', 'both failed');
    expect((await delivery(a)).delivery_error).toBe('(#30003) Unreachable destination handset');
    expect((await delivery(b)).delivery_error).toBe('(#30007) Message filtered by the carrier');
    // A code without words of ours still says what happened.
    const c = await reply(Number(t.id), 'Three');
    await waitFor(async () => (await stateOf(c)) === 'sent', 'sent');
    await smsPost(cb(await providerIdOf(c), 'undelivered', '30999'));
    await waitFor(async () => (await stateOf(c)) === 'failed', 'failed');
    expect((await delivery(c)).delivery_error).toBe('(#30999) Undelivered');
  });

  it("SMS a 500 is retried then sent; a refusal is shown failed with Twilio's words; a number no SMS can reach is refused before sending", async () => {
    const from = smsPeer();
    await smsPost(smsIn(SMS.accountSid, from, SMS.from, 'Hi'));
    const t = await waitFor(() => ticketOfPeer(from), 'the ticket');
    twilio.script.next.push({
      status: 500,
      body: {
        code: 20500,
        message: 'Internal Server Error',
        more_info: 'https://www.twilio.com/docs/errors/20500',
        status: 500,
      },
    });
    const a = await reply(Number(t.id), 'Retried');
    await waitFor(async () => (await stateOf(a)) === 'sent', 'sent after a retry', 20_000);
    expect(twilio.sent.filter((x) => x.form.Body === 'Retried')).toHaveLength(2);

    twilio.script.next.push({
      status: 400,
      body: {
        code: 21610,
        message: 'Attempt to send to unsubscribed recipient',
        more_info: 'https://www.twilio.com/docs/errors/21610',
        status: 400,
      },
    });
    const b = await reply(Number(t.id), 'Refused');
    await waitFor(async () => (await stateOf(b)) === 'failed', 'failed');
    expect((await delivery(b)).delivery_error).toBe('(#21610) Attempt to send to unsubscribed recipient');
    expect(twilio.sent.filter((x) => x.form.Body === 'Refused')).toHaveLength(1);

    // A customer writing from a short code: there is no number to answer.
    const shortCode = `7${String(Math.floor(Math.random() * 9000) + 1000)}`;
    await smsPost(smsIn(SMS.accountSid, shortCode, SMS.from, 'Your code is 1234'));
    const sc = await waitFor(() => ticketOfPeer(shortCode), 'the short code ticket');
    expect(sc.phone || null).toBeNull();
    const c = await reply(Number(sc.id), 'Hello?');
    await waitFor(async () => (await stateOf(c)) === 'failed', 'failed');
    expect((await delivery(c)).delivery_error).toBe(CHANNEL_STRINGS.badSmsNumber(shortCode));
    expect(twilio.sent.some((x) => x.form.To === shortCode)).toBe(false);
  });

  it('SMS a picture message attaches each file; files not on the API stay links', async () => {
    const from = smsPeer();
    const sid = `MM${randomBytes(16).toString('hex')}`;
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const path = `/2010-04-01/Accounts/${SMS.accountSid}/Messages/${sid}/Media/ME${randomBytes(16).toString('hex')}`;
    twilio.media.set(path, { bytes: png, mime: 'image/png' });
    await smsPost({
      ...smsIn(SMS.accountSid, from, SMS.from, 'The receipt', sid),
      NumMedia: '2',
      MediaUrl0: `${twilio.url}${path}`,
      MediaContentType0: 'image/png',
      MediaUrl1: 'https://elsewhere.example/receipt.jpg',
      MediaContentType1: 'image/jpeg',
    });
    const t = await waitFor(() => ticketOfPeer(from), 'the ticket');
    const [m] = await waitFor(async () => {
      const ms = await messagesOf(Number(t.id));
      return ms.length ? ms : null;
    }, 'the message');
    expect(m!.message).toBe('The receipt\nhttps://elsewhere.example/receipt.jpg');
    expect(JSON.parse(m!.files)).toHaveLength(1);
    expect(JSON.parse(m!.files)[0].fileType).toBe('image/png');
  });
});
