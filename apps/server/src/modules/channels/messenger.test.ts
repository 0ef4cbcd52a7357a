import { randomBytes } from 'node:crypto';
import { CHANNEL_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { channelProbe, replier } from '../../testing/channelProbe.js';
import { fbMessage, messengerWebhook, startMessengerStandIn } from '../../testing/channelStandIns.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

const KEY = randomBytes(32).toString('base64');
const PAGE_ID = '104729841234567';
const IG_ID = '17841400123456789';
const FB = { accessToken: 'EAAPage-token-for-the-stand-in', appSecret: 'meta-app-secret-5678' };
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe.each(dialects)('Messenger and Instagram channels (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let fb: Awaited<ReturnType<typeof startMessengerStandIn>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string };
  let fbId: number;
  let fbKey: string;
  let igKey: string;
  const db = () => s.handle.db;

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  /** A signed Messenger webhook of the Page (or another) with these events. */
  const fbPost = (messaging: unknown[], o: { secret?: string; entryId?: string } = {}) => {
    const w = messengerWebhook(o.secret ?? FB.appSecret, 'page', o.entryId ?? PAGE_ID, messaging);
    return post(`/api/channels/webhook/${fbKey}`, w.body, { 'x-hub-signature-256': w.signature });
  };
  const igPost = (messaging: unknown[]) => {
    const w = messengerWebhook(FB.appSecret, 'instagram', IG_ID, messaging);
    return post(`/api/channels/webhook/${igKey}`, w.body, { 'x-hub-signature-256': w.signature });
  };
  const { ticketOfPeer, messagesOf, delivery, stateOf, webhookEvents, allHandled } = channelProbe(
    db,
    () => admin.accountId,
  );
  const reply = replier(
    () => call,
    () => agent.token,
  );
  const providerIdOf = async (messageId: number) =>
    (
      await db()
        .selectFrom('channel_message_ids')
        .select('provider_id')
        .where('message_row_id', '=', messageId)
        .where('direction', '=', 'out')
        .executeTakeFirstOrThrow()
    ).provider_id;
  /** A page-scoped id never seen before (a known one would join that customer's ticket). */
  const psid = () => `${7_000_000_000_000_000 + Math.floor(Math.random() * 1e15)}`;
  /** A customer writes to the Page; answers their ticket once stored. */
  const customerWrites = async (peer: string, text: string) => {
    expect((await fbPost([fbMessage(peer, PAGE_ID, { text })])).status).toBe(200);
    return waitFor(() => ticketOfPeer(peer), `the ticket of ${peer}`);
  };

  beforeAll(async () => {
    fb = await startMessengerStandIn({ pageId: PAGE_ID, igAccountId: IG_ID, accessToken: FB.accessToken });
    s = await startTestServer(dialect, {
      SECRETS_KEY: KEY,
      PUBLIC_URL: 'https://parley.example',
      MESSENGER_API_URL: fb.url,
    });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await fb?.close();
  });

  it('PLAN-18 PLAN-20 PLAN-21 a trial (Starter) connects Messenger but not Instagram, which Basic has; no secret is answered', async () => {
    const list = await call('GET', '/api/channels', { token: admin.token });
    expect(list.body.allowed).toEqual(['whatsapp', 'messenger', 'x']);
    const igBody = { name: 'Acme IG', settings: { kind: 'instagram', igAccountId: IG_ID, ...FB } };
    const refused = await call('POST', '/api/channels', { token: admin.token, body: igBody });
    expect(refused.status).toBe(403);
    expect(refused.body.description).toBe(
      'Your trial does not include Instagram Direct Message. Basic has it: upgrade on the Plans page.',
    );
    for (const [body, words] of [
      [{ name: 'x', settings: { kind: 'messenger', pageId: 'acme', ...FB } }, CHANNEL_STRINGS.pageIdShape],
      [
        { name: 'x', settings: { kind: 'messenger', pageId: PAGE_ID, appSecret: 'x' } },
        CHANNEL_STRINGS.pageTokenRequired,
      ],
      [
        { name: 'x', settings: { kind: 'messenger', pageId: PAGE_ID, accessToken: 'x' } },
        CHANNEL_STRINGS.appSecretRequired,
      ],
    ] as const) {
      const r = await call('POST', '/api/channels', { token: admin.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.description).toBe(words);
    }
    expect(
      await db().selectFrom('channel_connections').select('id').where('account_id', '=', admin.accountId).execute(),
    ).toEqual([]);

    const made = await call('POST', '/api/channels', {
      token: admin.token,
      body: { name: 'Acme Page', settings: { kind: 'messenger', pageId: PAGE_ID, ...FB } },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data).toMatchObject({
      kind: 'messenger',
      channel: 'FB_PM',
      settings: { pageId: PAGE_ID },
      hasToken: true,
      hasAppSecret: true,
    });
    expect(made.body.data.verifyToken).toMatch(/^[0-9a-f]{48}$/);
    expect(made.text).not.toContain(FB.accessToken);
    expect(made.text).not.toContain(FB.appSecret);
    fbId = made.body.data.id;
    fbKey = made.body.data.webhookUrl.split('/').at(-1);

    await db().updateTable('accounts').set({ plan: 2 }).where('id', '=', admin.accountId).execute();
    expect((await call('GET', '/api/channels', { token: admin.token })).body.allowed).toEqual([
      'whatsapp',
      'messenger',
      'instagram',
      'line',
      'x',
    ]);
    const igMade = await call('POST', '/api/channels', { token: admin.token, body: igBody });
    expect(igMade.status, igMade.text).toBe(200);
    expect(igMade.body.data).toMatchObject({ kind: 'instagram', channel: 'IG_PM', settings: { igAccountId: IG_ID } });
    igKey = igMade.body.data.webhookUrl.split('/').at(-1);
  });

  it("MESSENGER Meta's handshake echoes the challenge for the verify token only; the test answers the Page's name", async () => {
    const view = (await call('GET', '/api/channels', { token: admin.token })).body.data.find(
      (c: { id: number }) => c.id === fbId,
    );
    const hook = (token: string) =>
      fetch(
        `${s.url}/api/channels/webhook/${fbKey}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=8675309`,
      );
    const ok = await hook(view.verifyToken);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('8675309');
    expect((await hook('nope')).status).toBe(403);
    const t = await call('POST', `/api/channels/${fbId}/test`, { token: admin.token });
    expect(t.body.data).toEqual({ ok: true, response: CHANNEL_STRINGS.testOk('Acme Store') });
  });

  it('MESSENGER a signed message makes a ticket with the customer named by their profile; five deliveries make one message', async () => {
    const peer = psid();
    fb.profiles.set(peer, { first_name: 'Kerry', last_name: 'Fisher' });
    const event = fbMessage(peer, PAGE_ID, { text: 'Is my order on its way?' });
    const w = messengerWebhook(FB.appSecret, 'page', PAGE_ID, [event]);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(`/api/channels/webhook/${fbKey}`, w.body, { 'x-hub-signature-256': w.signature }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const t = await waitFor(() => ticketOfPeer(peer), 'the ticket');
    expect(t).toMatchObject({ channel: 'FB_PM', name: 'Kerry Fisher', title: 'Is my order on its way?' });
    expect(Number(t.channel_connection_id)).toBe(fbId);
    await allHandled();
    expect((await messagesOf(Number(t.id))).map((m) => [m.type, m.message, m.sender, m.sender_name])).toEqual([
      ['text', 'Is my order on its way?', 'visitor', 'Kerry Fisher'],
    ]);
    // The customer is a contact known by their page-scoped id.
    const known = await db()
      .selectFrom('contact_identifiers')
      .select('contact_id')
      .where('account_id', '=', admin.accountId)
      .where('kind', '=', 'messenger')
      .where('value', '=', peer)
      .executeTakeFirst();
    expect(known && Number(known.contact_id)).toBe(Number(t.contact_id));
  });

  it('MESSENGER a wrong or missing signature is 401 and stores nothing; echoes and another Page are taken and dropped', async () => {
    const peer = psid();
    const before = await webhookEvents();
    const event = fbMessage(peer, PAGE_ID, { text: 'forged' });
    expect((await fbPost([event], { secret: 'not-the-secret' })).status).toBe(401);
    const w = messengerWebhook(FB.appSecret, 'page', PAGE_ID, [event]);
    expect((await post(`/api/channels/webhook/${fbKey}`, w.body, {})).status).toBe(401);
    expect(
      (await post(`/api/channels/webhook/${fbKey}`, w.body, { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }))
        .status,
    ).toBe(401);
    // Our own send echoed back, and a message to another Page of the same app: nothing for us.
    const echo = await fbPost([
      { ...fbMessage(PAGE_ID, peer, { text: 'Our answer', is_echo: true, app_id: 1517 }), sender: { id: PAGE_ID } },
    ]);
    expect(echo.status).toBe(200);
    expect((await echo.json()).taken).toBe(0);
    const other = await fbPost([fbMessage(peer, '999', { text: 'To another page' })], { entryId: '999' });
    expect(other.status).toBe(200);
    expect((await other.json()).taken).toBe(0);
    // An Instagram payload is not the Page's.
    const wrongObject = messengerWebhook(FB.appSecret, 'instagram', PAGE_ID, [event]);
    const bad = await post(`/api/channels/webhook/${fbKey}`, wrongObject.body, {
      'x-hub-signature-256': wrongObject.signature,
    });
    expect(bad.status).toBe(400);
    expect(await webhookEvents()).toBe(before);
    expect(await ticketOfPeer(peer)).toBeUndefined();
  });

  it('MESSENGER attachments: each file is fetched from its address and attached, one message per file after the first', async () => {
    const peer = psid();
    fb.files.set('photo.png', { bytes: PNG, mime: 'image/png' });
    fb.files.set('manual.pdf', { bytes: Buffer.from('%PDF-1.4 stand-in'), mime: 'application/pdf' });
    await fbPost([
      fbMessage(peer, PAGE_ID, {
        text: 'See these',
        attachments: [
          { type: 'image', payload: { url: `${fb.url}/cdn/photo.png` } },
          { type: 'file', payload: { url: `${fb.url}/cdn/manual.pdf` } },
          { type: 'fallback', payload: null },
        ],
      }),
    ]);
    const t = await waitFor(() => ticketOfPeer(peer), 'the ticket');
    const ms = await waitFor(async () => {
      const got = await messagesOf(Number(t.id));
      return got.length === 2 ? got : null;
    }, 'both messages');
    expect(ms[0]!.message).toBe(`See these\n${CHANNEL_STRINGS.unsupported('fallback')}`);
    const files = (m: { files: string }) =>
      (JSON.parse(m.files) as { fileName: string; fileType: string; size: number }[]).map((f) => [
        f.fileName,
        f.fileType,
        f.size,
      ]);
    expect(files(ms[0]!)).toEqual([['photo.png', 'image/png', PNG.length]]);
    expect(files(ms[1]!)).toEqual([['manual.pdf', 'application/pdf', 17]]);
  });

  it('MESSENGER a reply reaches the API in its shape with the Page token, is Sent, then Delivered by its mid', async () => {
    const peer = psid();
    const t = await customerWrites(peer, 'Hello?');
    const id = await reply(Number(t.id), 'Hi, how can I help?');
    const out = await waitFor(() => fb.sent.find((x) => x.body?.recipient?.id === peer), 'the send');
    expect(out.path).toBe(`/${PAGE_ID}/messages`);
    expect(out.headers.authorization).toBe(`Bearer ${FB.accessToken}`);
    expect(out.body).toEqual({
      recipient: { id: peer },
      messaging_type: 'RESPONSE',
      message: { text: 'Hi, how can I help?' },
    });
    await waitFor(async () => (await stateOf(id)) === 'sent', 'sent');
    const mid = await providerIdOf(id);
    expect(mid).toMatch(/^m_/);
    await fbPost([
      {
        sender: { id: peer },
        recipient: { id: PAGE_ID },
        timestamp: Date.now(),
        delivery: { mids: [mid], watermark: Date.now() },
      },
    ]);
    await waitFor(async () => (await stateOf(id)) === 'delivered', 'delivered');
    // A read by watermark names no message: the reply stays Delivered.
    await fbPost([
      { sender: { id: peer }, recipient: { id: PAGE_ID }, timestamp: Date.now(), read: { watermark: Date.now() } },
    ]);
    await allHandled();
    expect(await stateOf(id)).toBe('delivered');
  });

  it("MESSENGER a refusal fails the reply with Meta's words; past 24 hours a reply fails saying why and is not sent", async () => {
    const peer = psid();
    const t = await customerWrites(peer, 'Hi');
    fb.script.next.push({
      status: 400,
      body: {
        error: {
          message: 'This person isn\u2019t available right now.',
          type: 'OAuthException',
          code: 551,
          error_subcode: 1545041,
          fbtrace_id: 'AbC',
        },
      },
    });
    const id = await reply(Number(t.id), 'First try');
    await waitFor(async () => (await stateOf(id)) === 'failed', 'failed');
    expect((await delivery(id)).delivery_error).toBe('(#551) This person isn\u2019t available right now.');
    // A rate limit is a 400 too, but Meta's code says "later": the relay tries again and the reply goes.
    fb.script.next.push({
      status: 400,
      body: {
        error: { message: 'Calls to this api have exceeded the rate limit.', type: 'OAuthException', code: 613 },
      },
    });
    const limited = await reply(Number(t.id), 'Second try');
    await waitFor(async () => (await stateOf(limited)) === 'sent', 'sent after the rate limit', 20_000);
    expect(fb.sent.filter((x) => x.body?.message?.text === 'Second try')).toHaveLength(2);
    // Longer than Messenger takes in one message: refused before calling, saying why.
    const long = await reply(Number(t.id), 'x'.repeat(2001));
    await waitFor(async () => (await stateOf(long)) === 'failed', 'failed');
    expect((await delivery(long)).delivery_error).toBe(CHANNEL_STRINGS.tooLong(2000));
    expect(fb.sent.some((x) => x.body?.message?.text?.length === 2001)).toBe(false);

    await db()
      .updateTable('tickets')
      .set({ last_message_at: Date.now() - 25 * 3600_000 })
      .where('id', '=', Number(t.id))
      .execute();
    // The conversation pane asks first, and the composer gives way to the window's words.
    const w = await call('GET', `/api/channels/window/${t.id}`, { token: agent.token });
    expect(w.body.data).toEqual({ open: false, closesAt: expect.any(Number) });
    const late = await reply(Number(t.id), 'Are you still there?');
    await waitFor(async () => (await stateOf(late)) === 'failed', 'failed');
    expect((await delivery(late)).delivery_error).toBe(CHANNEL_STRINGS.metaWindowClosed('Facebook Messenger'));
    expect(fb.sent.some((x) => x.body?.message?.text === 'Are you still there?')).toBe(false);
  });

  it('INSTAGRAM on Basic: a signed DM makes an IG_PM ticket; the reply goes by /me/messages and is Read by its mid', async () => {
    const igId = (await call('GET', '/api/channels', { token: admin.token })).body.data.find(
      (c: { kind: string }) => c.kind === 'instagram',
    ).id;
    const t0 = await call('POST', `/api/channels/${igId}/test`, { token: admin.token });
    expect(t0.body.data).toEqual({ ok: true, response: CHANNEL_STRINGS.testOk('@acme.store') });
    const peer = psid();
    fb.profiles.set(peer, { name: 'Ines Ortega', username: 'ines.o' });
    const dm = fbMessage(peer, IG_ID, { text: 'Do you ship to Spain?' });
    for (let i = 0; i < 2; i++) expect((await igPost([dm])).status).toBe(200);
    // A message Instagram does not describe (is_unsupported) says so rather than staying empty.
    await igPost([fbMessage(peer, IG_ID, { is_unsupported: true })]);
    // A message to the Page's Messenger address is not the Instagram account's.
    const w = messengerWebhook(FB.appSecret, 'page', IG_ID, [dm]);
    expect((await post(`/api/channels/webhook/${igKey}`, w.body, { 'x-hub-signature-256': w.signature })).status).toBe(
      400,
    );
    const t = await waitFor(() => ticketOfPeer(peer), 'the ticket');
    expect(t).toMatchObject({ channel: 'IG_PM', name: 'Ines Ortega' });
    await allHandled();
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 2, 'both messages');
    expect((await messagesOf(Number(t.id))).map((m) => m.message)).toEqual([
      'Do you ship to Spain?',
      CHANNEL_STRINGS.unsupported('Instagram'),
    ]);
    const id = await reply(Number(t.id), 'We do!');
    const out = await waitFor(() => fb.sent.find((x) => x.body?.recipient?.id === peer), 'the send');
    expect(out.path).toBe('/me/messages');
    expect(out.body).toEqual({ recipient: { id: peer }, messaging_type: 'RESPONSE', message: { text: 'We do!' } });
    await waitFor(async () => (await stateOf(id)) === 'sent', 'sent');
    await igPost([
      { sender: { id: peer }, recipient: { id: IG_ID }, timestamp: Date.now(), read: { mid: await providerIdOf(id) } },
    ]);
    await waitFor(async () => (await stateOf(id)) === 'read', 'read');
    // The customer takes their message back: it is hidden, as a deleted message is.
    const taken = await igPost([{ ...fbMessage(peer, IG_ID, { is_deleted: true }, dm.message.mid) }]);
    expect((await taken.json()).taken).toBe(1);
    await waitFor(async () => {
      const row = await db()
        .selectFrom('messages')
        .select('deleted_at')
        .where('id', '=', (await messagesOf(Number(t.id)))[0]!.id)
        .executeTakeFirstOrThrow();
      return row.deleted_at !== null;
    }, 'the message hidden');
    const shown = await call('GET', `/api/ticket/data3/${t.id}/0`, { token: agent.token });
    expect(shown.text).not.toContain('Do you ship to Spain?');
  });
});
