import { randomBytes } from 'node:crypto';
import { CHANNEL_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { channelProbe, replier } from '../../testing/channelProbe.js';
import {
  fbComment,
  igComment,
  metaChangesWebhook,
  startMessengerStandIn,
  startXStandIn,
  xDm,
  xMention,
  xTooMany,
  xWebhook,
} from '../../testing/channelStandIns.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { oauthHeader, oauthSignature } from './adapters/oauth1.js';

const KEY = randomBytes(32).toString('base64');
const PAGE_ID = '104729841234567';
const IG_ID = '17841400123456789';
const FB = { accessToken: 'EAAPage-token-for-the-stand-in', appSecret: 'meta-app-secret-5678' };
const X = {
  userId: '1400000000000000001',
  consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
  consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
  accessToken: '1400000000000000001-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
  accessTokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
};

describe('OAuth 1.0a signing', () => {
  it("matches X's documented example signature (POST statuses/update)", () => {
    const params = {
      status: 'Hello Ladies + Gentlemen, a signed OAuth request!',
      include_entities: 'true',
      oauth_consumer_key: 'xvz1evFS4wEEPTGEFPHBog',
      oauth_nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
      oauth_signature_method: 'HMAC-SHA1',
      oauth_timestamp: '1318622958',
      oauth_token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
      oauth_version: '1.0',
    };
    const { include_entities: _q, ...rest } = params;
    expect(
      oauthSignature(
        'POST',
        'https://api.twitter.com/1.1/statuses/update.json?include_entities=true',
        rest,
        'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
        'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
      ),
    ).toBe('hCtSmYh+iHYCEqBWrE7C7hYmtUk=');
    const header = oauthHeader(
      'POST',
      'https://api.twitter.com/1.1/statuses/update.json?include_entities=true',
      {
        consumerKey: params.oauth_consumer_key,
        consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
        token: params.oauth_token,
        tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
      },
      { form: { status: params.status }, nonce: params.oauth_nonce, timestamp: 1318622958 },
    );
    expect(header).toContain('oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D"');
  });
});

describe.each(dialects)('Facebook posts, Instagram comments and mentions, X (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let fb: Awaited<ReturnType<typeof startMessengerStandIn>>;
  let xs: Awaited<ReturnType<typeof startXStandIn>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string };
  let fbKey: string;
  let igKey: string;
  let xKey: string;
  const db = () => s.handle.db;

  const post = (key: string, body: string, headers: Record<string, string>) =>
    fetch(`${s.url}/api/channels/webhook/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const feed = (changes: { field: string; value: Record<string, unknown> }[], o: { secret?: string } = {}) => {
    const w = metaChangesWebhook(o.secret ?? FB.appSecret, 'page', PAGE_ID, changes);
    return post(fbKey, w.body, { 'x-hub-signature-256': w.signature });
  };
  const ig = (changes: { field: string; value: Record<string, unknown> }[]) => {
    const w = metaChangesWebhook(FB.appSecret, 'instagram', IG_ID, changes);
    return post(igKey, w.body, { 'x-hub-signature-256': w.signature });
  };
  const xPost = (payload: Record<string, unknown>, o: { secret?: string } = {}) => {
    const w = xWebhook(o.secret ?? X.consumerSecret, payload);
    return post(xKey, w.body, { 'x-twitter-webhooks-signature': w.signature });
  };
  const { ticketOfPeer, messagesOf, allHandled, delivery, settled } = channelProbe(db, () => admin.accountId);
  const reply = replier(
    () => call,
    () => agent.token,
  );
  const countMessages = async () =>
    Number(
      (
        await db()
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', admin.accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const who = () => ({ id: `${5_000_000_000 + Math.floor(Math.random() * 1e9)}`, name: `Robin ${uniq()}` });

  beforeAll(async () => {
    fb = await startMessengerStandIn({ pageId: PAGE_ID, igAccountId: IG_ID, accessToken: FB.accessToken });
    xs = await startXStandIn({
      consumerKey: X.consumerKey,
      consumerSecret: X.consumerSecret,
      token: X.accessToken,
      tokenSecret: X.accessTokenSecret,
      userId: X.userId,
      username: 'acme',
    });
    s = await startTestServer(dialect, {
      SECRETS_KEY: KEY,
      PUBLIC_URL: 'https://parley.example',
      MESSENGER_API_URL: fb.url,
      X_API_URL: xs.url,
    });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await fb?.close();
    await xs?.close();
  });

  it('PLAN-20 PLAN-21 TICKET-17 a trial connects a Page (posts too) and X, Basic Instagram; X needs all four keys', async () => {
    const list = await call('GET', '/api/channels', { token: admin.token });
    expect(list.body.allowed).toEqual(['whatsapp', 'messenger', 'x']);
    const xBody = { name: 'Acme on X', settings: { kind: 'x', ...X } };
    for (const [missing, words] of [
      ['consumerKey', CHANNEL_STRINGS.consumerKeyRequired],
      ['consumerSecret', CHANNEL_STRINGS.consumerSecretRequired],
      ['accessToken', CHANNEL_STRINGS.tokenRequired],
      ['accessTokenSecret', CHANNEL_STRINGS.accessTokenSecretRequired],
    ] as const) {
      const r = await call('POST', '/api/channels', {
        token: admin.token,
        body: { ...xBody, settings: { ...xBody.settings, [missing]: '' } },
      });
      expect(r.status).toBe(400);
      expect(r.body.description).toBe(words);
    }
    const badId = await call('POST', '/api/channels', {
      token: admin.token,
      body: { ...xBody, settings: { ...xBody.settings, userId: '@acme' } },
    });
    expect(badId.body.description).toBe(CHANNEL_STRINGS.xUserIdShape);
    const xMade = await call('POST', '/api/channels', { token: admin.token, body: xBody });
    expect(xMade.status, xMade.text).toBe(200);
    expect(xMade.body.data).toMatchObject({ kind: 'x', channel: 'TW_DM', settings: { userId: X.userId } });
    for (const secret of [X.consumerKey, X.consumerSecret, X.accessToken, X.accessTokenSecret])
      expect(xMade.text).not.toContain(secret);
    xKey = xMade.body.data.webhookUrl.split('/').at(-1);
    const fbMade = await call('POST', '/api/channels', {
      token: admin.token,
      body: { name: 'Acme Page', settings: { kind: 'messenger', pageId: PAGE_ID, ...FB } },
    });
    fbKey = fbMade.body.data.webhookUrl.split('/').at(-1);
    const igBody = { name: 'Acme IG', settings: { kind: 'instagram', igAccountId: IG_ID, ...FB } };
    expect((await call('POST', '/api/channels', { token: admin.token, body: igBody })).status).toBe(403);
    await db().updateTable('accounts').set({ plan: 2 }).where('id', '=', admin.accountId).execute();
    const igMade = await call('POST', '/api/channels', { token: admin.token, body: igBody });
    expect(igMade.status).toBe(200);
    igKey = igMade.body.data.webhookUrl.split('/').at(-1);
  });

  it("FB_PAGE_POST a signed comment makes the post's ticket, the post shown first; five deliveries make one message", async () => {
    const from = who();
    const postSuffix = `${Date.now()}1`;
    fb.posts.set(`${PAGE_ID}_${postSuffix}`, {
      message: 'Our autumn sale starts today!',
      permalink_url: `https://www.facebook.com/${PAGE_ID}/posts/${postSuffix}`,
    });
    const change = fbComment(PAGE_ID, postSuffix, from, 'Does the sale include shoes?');
    for (let i = 0; i < 5; i++) expect((await feed([change])).status).toBe(200);
    const t = await waitFor(() => ticketOfPeer(`post:${PAGE_ID}_${postSuffix}`, 'FB_PAGE_POST'), 'the post ticket');
    await allHandled();
    expect(t.name).toBe(from.name);
    const ms = await messagesOf(Number(t.id));
    expect(ms.map((m) => [m.sender, m.message])).toEqual([
      [
        'server',
        CHANNEL_STRINGS.postContext(
          'Our autumn sale starts today!',
          `https://www.facebook.com/${PAGE_ID}/posts/${postSuffix}`,
        ),
      ],
      ['visitor', 'Does the sale include shoes?'],
    ]);
    // A second commenter on the same post joins its ticket; the Page's own comment (our reply) is skipped.
    await feed([
      fbComment(PAGE_ID, postSuffix, who(), 'And bags?'),
      fbComment(PAGE_ID, postSuffix, { id: PAGE_ID, name: 'Acme Store' }, 'Our reply'),
    ]);
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 3, 'the second comment');
    await allHandled();
    expect((await messagesOf(Number(t.id))).map((m) => m.message)).not.toContain('Our reply');
  });

  it('FB_PAGE_POST a reply answers the latest comment publicly, or privately by Messenger; a removed comment is hidden', async () => {
    const postSuffix = `${Date.now()}2`;
    const commentId = `${postSuffix}_900`;
    fb.comments.add(commentId);
    await feed([fbComment(PAGE_ID, postSuffix, who(), 'Is it in stock?', { commentId })]);
    const t = await waitFor(() => ticketOfPeer(`post:${PAGE_ID}_${postSuffix}`, 'FB_PAGE_POST'), 'the ticket');
    // No post text could be had (the stand-in knows no such post): the link only.
    expect((await messagesOf(Number(t.id)))[0]!.message).toBe(
      CHANNEL_STRINGS.postContext('', `https://www.facebook.com/${PAGE_ID}/posts/${postSuffix}`),
    );
    const pub = await reply(Number(t.id), 'Yes, in every size.');
    await settled(pub, 'sent');
    const sentPublic = fb.sent.find((x) => x.body?.message === 'Yes, in every size.');
    expect(sentPublic).toMatchObject({ path: `/${commentId}/comments`, body: { message: 'Yes, in every size.' } });
    expect(sentPublic!.headers.authorization).toBe(`Bearer ${FB.accessToken}`);

    const priv = await call('POST', '/api/channels/private-reply', {
      token: agent.token,
      body: { ticketId: Number(t.id), message: 'I have sent you the link.' },
    });
    expect(priv.status, priv.text).toBe(200);
    await waitFor(() => fb.sent.find((x) => x.body?.message?.text === 'I have sent you the link.'), 'private reply');
    expect(fb.sent.find((x) => x.body?.message?.text === 'I have sent you the link.')).toMatchObject({
      path: `/${PAGE_ID}/messages`,
      body: { recipient: { comment_id: commentId }, message: { text: 'I have sent you the link.' } },
    });
    // Only a Facebook post's ticket takes a private reply.
    const fbTicketOfNobody = await call('POST', '/api/channels/private-reply', {
      token: agent.token,
      body: { ticketId: 987654321, message: 'x' },
    });
    expect(fbTicketOfNobody.status).toBe(404);
    const bad = await call('POST', '/api/channels/private-reply', {
      token: agent.token,
      body: { ticketId: Number(t.id), message: '  ' },
    });
    expect(bad.status).toBe(400);

    // The customer deletes the comment: hidden.
    await feed([fbComment(PAGE_ID, postSuffix, who(), '', { commentId, verb: 'remove' })]);
    await waitFor(
      async () => (await messagesOf(Number(t.id))).find((m) => m.message === 'Is it in stock?')?.deleted_at != null,
      'hidden',
    );
  });

  it('FB_PAGE_POST a provider failure is retried, then shown failed with Meta words; a deleted comment refuses at once', async () => {
    const postSuffix = `${Date.now()}3`;
    const commentId = `${postSuffix}_901`;
    fb.comments.add(commentId);
    await feed([fbComment(PAGE_ID, postSuffix, who(), 'Hello?', { commentId })]);
    const t = await waitFor(() => ticketOfPeer(`post:${PAGE_ID}_${postSuffix}`, 'FB_PAGE_POST'), 'the ticket');
    const busy = { status: 500, body: { error: { message: 'An unexpected error has occurred.', code: 2 } } };
    fb.script.next.push(busy, busy, busy, busy, busy);
    const id = await reply(Number(t.id), 'Five tries');
    await settled(id, 'failed');
    expect(fb.sent.filter((x) => x.body?.message === 'Five tries')).toHaveLength(5);
    expect((await delivery(id)).delivery_error).toBe('(#2) An unexpected error has occurred.');
    fb.comments.delete(commentId);
    const gone = await reply(Number(t.id), 'To a deleted comment');
    await settled(gone, 'failed');
    expect((await delivery(gone)).delivery_error).toMatch(/^\(#100\) Unsupported post request/);
    expect(fb.sent.filter((x) => x.body?.message === 'To a deleted comment')).toHaveLength(1);
  });

  it('FB_PAGE_POST bad input: a bad signature 401, malformed JSON 400, 1 MB 413, edits and other fields ignored', async () => {
    const before = await countMessages();
    const postSuffix = `${Date.now()}4`;
    const change = fbComment(PAGE_ID, postSuffix, who(), 'Signed wrong');
    expect((await feed([change], { secret: 'not-the-secret' })).status).toBe(401);
    expect((await post(fbKey, JSON.stringify({ object: 'page', entry: [] }), {})).status).toBe(401);
    const junk = '{"object": "page", "entry": [';
    const sig = metaChangesWebhook(FB.appSecret, 'page', PAGE_ID, []);
    expect(sig.body).not.toBe(junk);
    const { createHmac } = await import('node:crypto');
    const sign = (b: string) => `sha256=${createHmac('sha256', FB.appSecret).update(b).digest('hex')}`;
    expect((await post(fbKey, junk, { 'x-hub-signature-256': sign(junk) })).status).toBe(400);
    const huge = JSON.stringify({ object: 'page', entry: [], pad: 'x'.repeat(1_100_000) });
    expect((await post(fbKey, huge, { 'x-hub-signature-256': sign(huge) })).status).toBe(413);
    const edited = fbComment(PAGE_ID, postSuffix, who(), 'Edited', { verb: 'edited' });
    const like = {
      field: 'feed',
      value: { item: 'reaction', verb: 'add', post_id: `${PAGE_ID}_1`, reaction_type: 'like' },
    };
    const other = { field: 'ratings', value: { item: 'rating', verb: 'add' } };
    const r = await feed([edited, like, other]);
    expect(r.status).toBe(200);
    expect((await r.json()).taken).toBe(0);
    // Another Page of the same app: dropped.
    const w = metaChangesWebhook(FB.appSecret, 'page', '999999999', [change]);
    const another = await post(fbKey, w.body, { 'x-hub-signature-256': w.signature });
    expect((await another.json()).taken).toBe(0);
    await allHandled();
    expect(await countMessages()).toBe(before);
  });

  it('IG_POST IG_MENTION comments and mentions make tickets; replies go to the top comment and to the mention', async () => {
    const mediaId = `1790${Date.now()}`;
    fb.posts.set(mediaId, { caption: 'New colours are in', permalink: 'https://www.instagram.com/p/Abc/' });
    const top = `1791${Date.now()}`;
    fb.comments.add(top);
    const c1 = igComment(mediaId, { id: '9001', username: 'sam.k' }, 'Love the blue one', { id: top });
    for (let i = 0; i < 5; i++) expect((await ig([c1])).status).toBe(200);
    const t = await waitFor(() => ticketOfPeer(`media:${mediaId}`, 'IG_POST'), 'the media ticket');
    await allHandled();
    expect((await messagesOf(Number(t.id))).map((m) => [m.sender_name, m.message])).toEqual([
      ['Instagram Post', CHANNEL_STRINGS.postContext('New colours are in', '')],
      ['@sam.k', 'Love the blue one'],
    ]);
    // A reply under that comment: the thread answers the top comment (Instagram answers only those).
    await ig([igComment(mediaId, { id: '9002', username: 'jo' }, 'Me too!', { parentId: top })]);
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 3, 'the reply comment');
    const id = await reply(Number(t.id), 'Thank you both!');
    await settled(id, 'sent');
    expect(fb.sent.find((x) => x.body?.message === 'Thank you both!')).toMatchObject({ path: `/${top}/replies` });

    // A mention in someone else's comment: its words asked of the account.
    const mMedia = `1792${Date.now()}`;
    const mComment = `1793${Date.now()}`;
    fb.mentions.set(mComment, { text: '@acme.store my order never came', username: 'lee' });
    fb.comments.add(mComment);
    await ig([{ field: 'mentions', value: { media_id: mMedia, comment_id: mComment } }]);
    const m = await waitFor(() => ticketOfPeer(`mention:${mMedia}`, 'IG_MENTION'), 'the mention ticket');
    expect((await messagesOf(Number(m.id))).map((x) => [x.sender_name, x.message])).toEqual([
      ['@lee', '@acme.store my order never came'],
    ]);
    const mid = await reply(Number(m.id), 'Sorry! Check your DMs.');
    await settled(mid, 'sent');
    expect(fb.sent.find((x) => x.body?.message === 'Sorry! Check your DMs.')).toMatchObject({
      path: `/${IG_ID}/mentions`,
      body: { media_id: mMedia, comment_id: mComment },
    });
    // The account's own comment is ours, not a customer's.
    const before = await countMessages();
    await ig([igComment(mediaId, { id: IG_ID, username: 'acme.store' }, 'Our own words')]);
    await allHandled();
    expect(await countMessages()).toBe(before);
  });

  it('IG_POST a provider failure is retried, then shown failed; a bad signature 401 stores nothing', async () => {
    const mediaId = `1794${Date.now()}`;
    const top = `1795${Date.now()}`;
    fb.comments.add(top);
    await ig([igComment(mediaId, { id: '9003', username: 'ari' }, 'Price?', { id: top })]);
    const t = await waitFor(() => ticketOfPeer(`media:${mediaId}`, 'IG_POST'), 'the ticket');
    const limit = {
      status: 400,
      body: { error: { message: 'Application request limit reached', code: 4, is_transient: true } },
    };
    fb.script.next.push(limit, limit, limit, limit, limit);
    const id = await reply(Number(t.id), 'Twenty dollars');
    await settled(id, 'failed');
    expect(fb.sent.filter((x) => x.body?.message === 'Twenty dollars')).toHaveLength(5);
    expect((await delivery(id)).delivery_error).toBe('(#4) Application request limit reached');
    const before = await countMessages();
    const w = metaChangesWebhook('wrong', 'instagram', IG_ID, [igComment(mediaId, { id: '1', username: 'z' }, 'x')]);
    expect((await post(igKey, w.body, { 'x-hub-signature-256': w.signature })).status).toBe(401);
    expect(await countMessages()).toBe(before);
  });

  it('TW_DM the CRC is answered with the response token; the test names the account', async () => {
    const crc = await fetch(`${s.url}/api/channels/webhook/${xKey}?crc_token=${encodeURIComponent('abc123=/+')}`);
    expect(crc.status).toBe(200);
    expect(crc.headers.get('content-type')).toMatch(/^application\/json/);
    const { createHmac } = await import('node:crypto');
    expect(await crc.json()).toEqual({
      response_token: `sha256=${createHmac('sha256', X.consumerSecret).update('abc123=/+').digest('base64')}`,
    });
    expect((await fetch(`${s.url}/api/channels/webhook/${xKey}`)).status).toBe(403);
    const id = (await call('GET', '/api/channels', { token: admin.token })).body.data.find(
      (c: { kind: string }) => c.kind === 'x',
    ).id;
    const t = await call('POST', `/api/channels/${id}/test`, { token: admin.token });
    expect(t.body.data).toEqual({ ok: true, response: CHANNEL_STRINGS.testOk('@acme') });
  });

  it('TW_DM a signed DM makes a ticket; five deliveries one message; the reply is a DM signed OAuth 1.0a', async () => {
    const sender = { id: `${Math.floor(Math.random() * 1e12)}`, name: 'Dana Reed', screen_name: 'danar' };
    const payload = xDm(X.userId, sender, 'My parcel is late');
    for (let i = 0; i < 5; i++) expect((await xPost(payload)).status).toBe(200);
    const t = await waitFor(() => ticketOfPeer(sender.id, 'TW_DM'), 'the DM ticket');
    await allHandled();
    expect(t.name).toBe('Dana Reed (@danar)');
    expect((await messagesOf(Number(t.id))).map((m) => m.message)).toEqual(['My parcel is late']);
    const id = await reply(Number(t.id), 'Let me check.');
    await settled(id, 'sent');
    const dm = xs.sent.find((x) => x.body?.text === 'Let me check.');
    expect(dm).toMatchObject({
      path: `/2/dm_conversations/with/${sender.id}/messages`,
      body: { text: 'Let me check.' },
    });
    expect(dm!.headers.authorization).toMatch(/^OAuth .*oauth_signature_method="HMAC-SHA1"/);
    // Our own DM coming back as an event is skipped.
    const before = await countMessages();
    await xPost(xDm(X.userId, { id: X.userId, name: 'Acme Support', screen_name: 'acme' }, 'Let me check.'));
    await allHandled();
    expect(await countMessages()).toBe(before);
  });

  it('TW_MENTION a mention makes its own ticket; the reply is a tweet in the thread; a deleted tweet is hidden', async () => {
    const user = { id: `${Math.floor(Math.random() * 1e12)}`, name: 'Kim Lee', screen_name: 'kiml' };
    const tweetId = `17${Date.now()}`;
    await xPost(xMention(X.userId, user, '@acme where is my refund?', tweetId));
    const t = await waitFor(() => ticketOfPeer(`mention:${user.id}`, 'TW_MENTION'), 'the mention ticket');
    const id = await reply(Number(t.id), '@kiml we are on it.');
    await settled(id, 'sent');
    expect(xs.sent.find((x) => x.body?.text === '@kiml we are on it.')).toMatchObject({
      path: '/2/tweets',
      body: { reply: { in_reply_to_tweet_id: tweetId } },
    });
    const long = await reply(Number(t.id), 'x'.repeat(281));
    await settled(long, 'failed');
    expect((await delivery(long)).delivery_error).toBe(CHANNEL_STRINGS.tooLong(280));
    await xPost({ for_user_id: X.userId, tweet_delete_events: [{ status: { id: tweetId, user_id: user.id } }] });
    await waitFor(
      async () => (await messagesOf(Number(t.id))).find((m) => m.sender === 'visitor')?.deleted_at != null,
      'hidden',
    );
  });

  it("TW_DM a 429 is retried then shown failed; bad signature 401, another account's webhook and unknown events ignored", async () => {
    const sender = { id: `${Math.floor(Math.random() * 1e12)}`, name: 'Ola', screen_name: 'ola' };
    await xPost(xDm(X.userId, sender, 'Hi'));
    const t = await waitFor(() => ticketOfPeer(sender.id, 'TW_DM'), 'the ticket');
    xs.script.next.push(xTooMany, xTooMany, xTooMany, xTooMany, xTooMany);
    const id = await reply(Number(t.id), 'Hello Ola');
    await settled(id, 'failed');
    expect(xs.sent.filter((x) => x.body?.text === 'Hello Ola')).toHaveLength(5);
    expect((await delivery(id)).delivery_error).toBe('Too Many Requests');

    const before = await countMessages();
    const other = xDm(X.userId, { id: '42', name: 'Eve', screen_name: 'eve' }, 'forged');
    expect((await xPost(other, { secret: 'wrong' })).status).toBe(401);
    expect((await post(xKey, JSON.stringify(other), {})).status).toBe(401);
    const anotherAccount = await xPost(xDm('1999', { id: '43', name: 'Eve', screen_name: 'eve' }, 'not ours'));
    expect(anotherAccount.status).toBe(200);
    expect((await anotherAccount.json()).taken).toBe(0);
    const unknown = await xPost({ for_user_id: X.userId, favorite_events: [{ id: '1' }], follow_events: [{}] });
    expect((await unknown.json()).taken).toBe(0);
    const junk = '{"for_user_id": ';
    const { createHmac } = await import('node:crypto');
    const sig = `sha256=${createHmac('sha256', X.consumerSecret).update(junk).digest('base64')}`;
    expect((await post(xKey, junk, { 'x-twitter-webhooks-signature': sig })).status).toBe(400);
    const noUser = JSON.stringify({ direct_message_events: [] });
    const sig2 = `sha256=${createHmac('sha256', X.consumerSecret).update(noUser).digest('base64')}`;
    expect((await post(xKey, noUser, { 'x-twitter-webhooks-signature': sig2 })).status).toBe(400);
    await allHandled();
    expect(await countMessages()).toBe(before);
  });
});
