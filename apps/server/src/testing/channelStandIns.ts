import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { oauthSignature, readOAuthHeader } from '../modules/channels/adapters/oauth1.js';

/** One request a stand-in took: its method, path, headers and JSON body. */
export interface Taken {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** What the next calls answer, set by a test: a refusal, a few failures worth retrying, or the usual. */
export interface Script {
  /** Answered to the next sends, one each, before the usual answer comes back. */
  next: { status: number; body: unknown }[];
}

async function listen(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function readJson(req: http.IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

const send = (res: http.ServerResponse, status: number, body: unknown, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type });
  res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
};

/**
 * The WhatsApp Cloud API as far as Parley uses it (Graph API shapes): `POST /{phone-number-id}/messages`
 * with a Bearer token, `GET /{phone-number-id}` for the number's name, `GET /{media-id}` then the media URL
 * it answers. A wrong token gets Graph's OAuthException (code 190).
 */
export async function startWhatsAppStandIn(o: { phoneNumberId: string; accessToken: string }) {
  const sent: Taken[] = [];
  const script: Script = { next: [] };
  const media = new Map<string, { bytes: Buffer; mime: string }>();
  const s = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readJson(req);
    if (req.headers.authorization !== `Bearer ${o.accessToken}`)
      return send(res, 401, {
        error: { message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException', code: 190 },
      });
    if (req.method === 'POST' && url.pathname === `/${o.phoneNumberId}/messages`) {
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body });
      const scripted = script.next.shift();
      if (scripted) return send(res, scripted.status, scripted.body);
      return send(res, 200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: body?.to, wa_id: body?.to }],
        messages: [{ id: `wamid.${randomBytes(12).toString('base64url')}` }],
      });
    }
    if (req.method === 'GET' && url.pathname === `/${o.phoneNumberId}`)
      return send(res, 200, {
        display_phone_number: '+1 555-0100',
        verified_name: 'Acme Support',
        id: o.phoneNumberId,
      });
    const bytes = url.pathname.startsWith('/media-bytes/') ? media.get(url.pathname.slice(13)) : undefined;
    if (req.method === 'GET' && bytes) return send(res, 200, bytes.bytes, bytes.mime);
    const m = media.get(url.pathname.slice(1));
    if (req.method === 'GET' && m)
      return send(res, 200, {
        messaging_product: 'whatsapp',
        url: `${s.url}/media-bytes/${url.pathname.slice(1)}`,
        mime_type: m.mime,
        file_size: m.bytes.length,
        id: url.pathname.slice(1),
      });
    send(res, 404, { error: { message: 'Unsupported get request.', type: 'GraphMethodException', code: 100 } });
  });
  return { ...s, sent, script, media };
}

/** A WhatsApp webhook body as Meta posts it, and its `X-Hub-Signature-256` under the app secret. */
export function whatsappWebhook(appSecret: string, value: Record<string, unknown>, phoneNumberId: string) {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550100', phone_number_id: phoneNumberId },
              ...value,
            },
          },
        ],
      },
    ],
  });
  const signature = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
  return { body, signature };
}

/** A customer's text to the number, as the webhook's value carries it. */
export const waText = (from: string, name: string, text: string, id = `wamid.${randomBytes(10).toString('hex')}`) => ({
  contacts: [{ profile: { name }, wa_id: from }],
  messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }],
});

/**
 * The Messenger Platform (Graph API shapes) as far as Parley uses it, for a Facebook Page and the Instagram
 * professional account linked to it (one Graph API, one Page token): `POST /{page-id}/messages` and
 * `POST /me/messages` (`me`: the Page of the token) with the Bearer token, answering `{recipient_id,
 * message_id}`; `GET /{page-id}` (its name) and `GET /{ig-account-id}` (its username); `GET /{user-id}` for a
 * customer's profile; customers' files at `/cdn/{name}` (Meta's CDN, no token). A wrong token gets Graph's
 * OAuthException (code 190); anything unknown, GraphMethodException (code 100).
 */
export async function startMessengerStandIn(o: { pageId: string; igAccountId: string; accessToken: string }) {
  const sent: Taken[] = [];
  const script: Script = { next: [] };
  const files = new Map<string, { bytes: Buffer; mime: string }>();
  const profiles = new Map<string, Record<string, string>>();
  /** Posts and Instagram media by id (`message`/`caption`, `permalink_url`/`permalink`), for `GET /{id}`. */
  const posts = new Map<string, Record<string, string>>();
  /** Instagram mentions by comment id (or media id for a caption): `{text|caption, username}`. */
  const mentions = new Map<string, Record<string, string>>();
  /** Comments that exist (a reply to any other is Graph's error 100, as for a deleted comment). */
  const comments = new Set<string>();
  const noObject = (id: string) => ({
    error: {
      message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      error_subcode: 33,
      fbtrace_id: 'AbCdEfGh',
    },
  });
  const s = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readJson(req);
    const file = url.pathname.startsWith('/cdn/') ? files.get(url.pathname.slice(5)) : undefined;
    if (req.method === 'GET' && file) return send(res, 200, file.bytes, file.mime);
    if (req.headers.authorization !== `Bearer ${o.accessToken}`)
      return send(res, 401, {
        error: {
          message: 'Invalid OAuth access token - Cannot parse access token',
          type: 'OAuthException',
          code: 190,
          fbtrace_id: 'AbCdEfGh',
        },
      });
    // Comment replies: `POST /{comment-id}/comments` (Facebook), `/{comment-id}/replies` (Instagram), and
    // `POST /{ig-id}/mentions` (a mention), each answering `{id}` of the new comment.
    const reply = /^\/([^/]+)\/(comments|replies|mentions)$/.exec(url.pathname);
    if (req.method === 'POST' && reply) {
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body });
      const scripted = script.next.shift();
      if (scripted) return send(res, scripted.status, scripted.body);
      const target = reply[2] === 'mentions' ? String(body?.comment_id ?? body?.media_id ?? '') : reply[1]!;
      if (!comments.has(target) || typeof body?.message !== 'string' || !body.message)
        return send(res, 400, noObject(target));
      const id = `${target}_${randomBytes(6).toString('hex')}`;
      return send(res, 200, { id });
    }
    if (req.method === 'POST' && (url.pathname === `/${o.pageId}/messages` || url.pathname === '/me/messages')) {
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body });
      const scripted = script.next.shift();
      if (scripted) return send(res, scripted.status, scripted.body);
      return send(res, 200, {
        recipient_id: body?.recipient?.id,
        message_id: `m_${randomBytes(18).toString('base64url')}`,
      });
    }
    if (req.method === 'GET' && url.pathname === `/${o.pageId}`)
      return send(res, 200, { name: 'Acme Store', id: o.pageId });
    const fields = url.searchParams.get('fields') ?? '';
    const mentioned = /^mentioned_(comment|media)\.(?:comment_id|media_id)\(([^)]+)\)/.exec(fields);
    if (req.method === 'GET' && url.pathname === `/${o.igAccountId}` && mentioned) {
      const m = mentions.get(mentioned[2]!);
      if (!m) return send(res, 400, noObject(mentioned[2]!));
      return send(res, 200, { [`mentioned_${mentioned[1]}`]: { ...m, id: mentioned[2] }, id: o.igAccountId });
    }
    if (req.method === 'GET' && url.pathname === `/${o.igAccountId}`)
      return send(res, 200, { username: 'acme.store', name: 'Acme Store', id: o.igAccountId });
    const postOf = req.method === 'GET' ? posts.get(url.pathname.slice(1)) : undefined;
    if (postOf) return send(res, 200, { ...postOf, id: url.pathname.slice(1) });
    const profile = req.method === 'GET' ? profiles.get(url.pathname.slice(1)) : undefined;
    if (profile) return send(res, 200, { ...profile, id: url.pathname.slice(1) });
    send(res, 400, {
      error: {
        message:
          'Unsupported get request. Object does not exist, cannot be loaded due to missing permissions, or does not support this operation.',
        type: 'GraphMethodException',
        code: 100,
        error_subcode: 33,
      },
    });
  });
  return { ...s, sent, script, files, profiles, posts, mentions, comments };
}

/** A Meta webhook of `changes` (a Page's `feed`, an Instagram account's `comments` or `mentions`), signed. */
export function metaChangesWebhook(
  appSecret: string,
  object: 'page' | 'instagram',
  entryId: string,
  changes: { field: string; value: Record<string, unknown> }[],
) {
  const body = JSON.stringify({ object, entry: [{ id: entryId, time: Math.floor(Date.now() / 1000), changes }] });
  const signature = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
  return { body, signature };
}

/** A comment on a Page's post as the `feed` change carries it (verb add; `remove` for a deleted one). */
export const fbComment = (
  pageId: string,
  postSuffix: string,
  from: { id: string; name: string },
  message: string,
  o: { commentId?: string; verb?: 'add' | 'edited' | 'remove'; parentId?: string } = {},
) => {
  const postId = `${pageId}_${postSuffix}`;
  const commentId = o.commentId ?? `${postSuffix}_${randomBytes(6).toString('hex')}`;
  return {
    field: 'feed',
    value: {
      from,
      post: {
        status_type: 'added_photos',
        is_published: true,
        updated_time: new Date().toISOString(),
        permalink_url: `https://www.facebook.com/${pageId}/posts/${postSuffix}`,
        promotion_status: 'inactive',
        id: postId,
      },
      message,
      post_id: postId,
      comment_id: commentId,
      created_time: Math.floor(Date.now() / 1000),
      item: 'comment',
      parent_id: o.parentId ?? postId,
      verb: o.verb ?? 'add',
    },
  };
};

/** A comment on the Instagram account's media as the `comments` change carries it. */
export const igComment = (
  mediaId: string,
  from: { id: string; username: string },
  text: string,
  o: { id?: string; parentId?: string } = {},
) => ({
  field: 'comments',
  value: {
    from,
    media: { id: mediaId, media_product_type: 'FEED' },
    id: o.id ?? `179${randomBytes(6).readUIntBE(0, 6)}`,
    ...(o.parentId ? { parent_id: o.parentId } : {}),
    text,
  },
});

/**
 * The X API v2 as far as Parley uses it: `POST /2/dm_conversations/with/{id}/messages` and `POST /2/tweets`
 * (201 with `{data}`), `GET /2/users/me`, each signed OAuth 1.0a (HMAC-SHA1) with the app's and the user's
 * keys: a request whose signature does not match gets X's 401 `{title: 'Unauthorized', ...}`.
 */
export async function startXStandIn(o: {
  consumerKey: string;
  consumerSecret: string;
  token: string;
  tokenSecret: string;
  userId: string;
  username: string;
}) {
  const sent: Taken[] = [];
  const script: Script = { next: [] };
  let next = 1_800_000_000_000_000_000n;
  const s = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readJson(req);
    const oauth = readOAuthHeader(req.headers.authorization);
    const { oauth_signature: signature, ...params } = oauth ?? {};
    const want =
      oauth && params.oauth_consumer_key === o.consumerKey && params.oauth_token === o.token
        ? oauthSignature(req.method ?? 'GET', `${s.url}${req.url}`, params, o.consumerSecret, o.tokenSecret)
        : null;
    if (!want || want !== signature)
      return send(res, 401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
    if (req.method === 'GET' && url.pathname === '/2/users/me')
      return send(res, 200, { data: { id: o.userId, name: 'Acme Support', username: o.username } });
    const dm = /^\/2\/dm_conversations\/with\/(\d+)\/messages$/.exec(url.pathname);
    if (req.method === 'POST' && (dm || url.pathname === '/2/tweets')) {
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body });
      const scripted = script.next.shift();
      if (scripted) return send(res, scripted.status, scripted.body);
      if (typeof body?.text !== 'string' || !body.text)
        return send(res, 400, {
          errors: [
            { parameters: { text: [] }, message: 'Requests with bodies must have content-type of application/json.' },
          ],
          title: 'Invalid Request',
          detail: 'One or more parameters to your request was invalid.',
          type: 'https://api.twitter.com/2/problems/invalid-request',
        });
      const id = String(next++);
      if (dm) return send(res, 201, { data: { dm_conversation_id: `${dm[1]}-${o.userId}`, dm_event_id: id } });
      return send(res, 201, { data: { id, text: body.text, edit_history_tweet_ids: [id] } });
    }
    send(res, 404, {
      errors: [{ message: 'Sorry, that page does not exist', code: 34 }],
      title: 'Not Found Error',
      detail: 'Sorry, that page does not exist',
      type: 'about:blank',
      status: 404,
    });
  });
  return { ...s, sent, script };
}

/** X's 429 as the API answers it. */
export const xTooMany = {
  status: 429,
  body: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
};

/** An Account Activity webhook as X posts it, and its `x-twitter-webhooks-signature` under the consumer secret. */
export function xWebhook(consumerSecret: string, payload: Record<string, unknown>) {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', consumerSecret).update(body).digest('base64')}`;
  return { body, signature };
}

/** A DM to the account as `direct_message_events` carries it, with the sender in `users`. */
export const xDm = (
  forUserId: string,
  sender: { id: string; name: string; screen_name: string },
  text: string,
  id?: string,
) => ({
  for_user_id: forUserId,
  direct_message_events: [
    {
      type: 'message_create',
      id: id ?? String(1_700_000_000_000_000_000n + BigInt(randomBytes(4).readUInt32BE())),
      created_timestamp: String(Date.now()),
      message_create: {
        target: { recipient_id: forUserId },
        sender_id: sender.id,
        message_data: { text, entities: {} },
      },
    },
  ],
  users: {
    [sender.id]: { id: sender.id, name: sender.name, screen_name: sender.screen_name },
    [forUserId]: { id: forUserId, name: 'Acme Support', screen_name: 'acme' },
  },
});

/** A mention of the account as `tweet_create_events` carries it (a v1.1 tweet). */
export const xMention = (
  forUserId: string,
  user: { id: string; name: string; screen_name: string },
  text: string,
  id?: string,
) => ({
  for_user_id: forUserId,
  tweet_create_events: [
    {
      created_at: new Date().toUTCString(),
      id_str: id ?? String(1_750_000_000_000_000_000n + BigInt(randomBytes(4).readUInt32BE())),
      text,
      user: { id_str: user.id, name: user.name, screen_name: user.screen_name },
      in_reply_to_status_id_str: null,
      entities: { user_mentions: [{ screen_name: 'acme', id_str: forUserId }] },
      timestamp_ms: String(Date.now()),
    },
  ],
});

/** A Messenger Platform webhook as Meta posts it (`object` page or instagram), signed with the app secret. */
export function messengerWebhook(
  appSecret: string,
  object: 'page' | 'instagram',
  entryId: string,
  messaging: unknown[],
) {
  const body = JSON.stringify({ object, entry: [{ id: entryId, time: Date.now(), messaging }] });
  const signature = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
  return { body, signature };
}

/** A customer's message to the Page (or Instagram account) as a `messaging` event carries it. */
export const fbMessage = (
  sender: string,
  recipient: string,
  message: Record<string, unknown>,
  mid = `m_${randomBytes(18).toString('base64url')}`,
) => ({ sender: { id: sender }, recipient: { id: recipient }, timestamp: Date.now(), message: { mid, ...message } });

/**
 * The Telegram Bot API as far as Parley uses it: `/bot{token}/getMe`, `sendMessage`, `setWebhook`,
 * `getFile` and `/file/bot{token}/{path}`. A wrong token gets Telegram's `{ok: false, error_code: 401}`.
 */
export async function startTelegramStandIn(o: { token: string }) {
  const sent: Taken[] = [];
  const script: Script = { next: [] };
  const webhooks: { url: string; secret_token: string }[] = [];
  let messageId = 100;
  const s = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readJson(req);
    const [, bot, method] = url.pathname.split('/');
    if (bot !== `bot${o.token}`) return send(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (method === 'getMe')
      return send(res, 200, {
        ok: true,
        result: { id: 777, is_bot: true, first_name: 'Acme', username: 'acme_help_bot' },
      });
    if (method === 'setWebhook') {
      webhooks.push(body);
      return send(res, 200, { ok: true, result: true, description: 'Webhook was set' });
    }
    if (method === 'sendMessage') {
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body });
      const scripted = script.next.shift();
      if (scripted) return send(res, scripted.status, scripted.body);
      return send(res, 200, {
        ok: true,
        result: {
          message_id: ++messageId,
          chat: { id: Number(body.chat_id), type: 'private' },
          date: 0,
          text: body.text,
        },
      });
    }
    send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
  });
  return { ...s, sent, script, webhooks };
}

/** A Telegram update with a customer's text. */
export const tgText = (updateId: number, chatId: number, first: string, text: string) => ({
  update_id: updateId,
  message: {
    message_id: updateId,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chatId, type: 'private', first_name: first },
    from: { id: chatId, is_bot: false, first_name: first },
    text,
  },
});

/**
 * The LINE Messaging API as far as Parley uses it: `POST /v2/bot/message/reply` (a reply token it issued,
 * once), `POST /v2/bot/message/push` with `X-Line-Retry-Key` (a key it accepted answers 409 with the sent
 * messages), `GET /v2/bot/info`, `GET /v2/bot/profile/{userId}`, all with the channel access token as Bearer;
 * and on a second address, the data API's `GET /v2/bot/message/{id}/content`. Errors are LINE's `{message}`.
 */
export async function startLineStandIn(o: { accessToken: string }) {
  const sent: Taken[] = [];
  /** What actually reached the customer: one entry per reply or push LINE took. */
  const delivered: { to: string; via: 'reply' | 'push'; texts: string[] }[] = [];
  /** A scripted answer; `accept` takes the push first (its answer lost on the way back). */
  const script: { next: { status: number; body: unknown; accept?: boolean }[] } = { next: [] };
  const replyTokens = new Map<string, string>();
  const accepted = new Map<string, { requestId: string; sentMessages: { id: string; quoteToken: string }[] }>();
  const profiles = new Map<string, string>();
  const media = new Map<string, Buffer>();
  let n = 700_000_000_000_000;
  const sentMessages = (count: number) =>
    Array.from({ length: count }, () => ({ id: String(++n), quoteToken: randomBytes(12).toString('base64url') }));
  const unauthorized = (res: http.ServerResponse) =>
    send(res, 401, {
      message: 'Authentication failed. Confirm that the access token in the authorization header is valid.',
    });
  const api = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readJson(req);
    if (req.headers.authorization !== `Bearer ${o.accessToken}`) return unauthorized(res);
    if (req.method === 'POST' && url.pathname === '/v2/bot/message/reply') {
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body });
      if (req.headers['x-line-retry-key'])
        return send(res, 400, { message: 'X-Line-Retry-Key is not supported by this endpoint' });
      const to = replyTokens.get(body?.replyToken);
      if (!to) return send(res, 400, { message: 'Invalid reply token' });
      replyTokens.delete(body.replyToken);
      delivered.push({ to, via: 'reply', texts: body.messages.map((m: { text: string }) => m.text) });
      return send(res, 200, { sentMessages: sentMessages(body.messages.length) });
    }
    if (req.method === 'POST' && url.pathname === '/v2/bot/message/push') {
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body });
      const key = req.headers['x-line-retry-key'];
      if (key !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(String(key)))
        return send(res, 400, { message: 'The value for the X-Line-Retry-Key header is invalid' });
      const before = typeof key === 'string' ? accepted.get(key) : undefined;
      if (before) {
        res.setHeader('x-line-accepted-request-id', before.requestId);
        return send(res, 409, { message: 'The retry key is already accepted', sentMessages: before.sentMessages });
      }
      const take = () => {
        const r = { requestId: randomBytes(16).toString('hex'), sentMessages: sentMessages(body.messages.length) };
        if (typeof key === 'string') accepted.set(key, r);
        delivered.push({ to: body.to, via: 'push', texts: body.messages.map((m: { text: string }) => m.text) });
        return r;
      };
      const scripted = script.next.shift();
      if (scripted) {
        if (scripted.accept) take();
        return send(res, scripted.status, scripted.body);
      }
      const r = take();
      res.setHeader('x-line-request-id', r.requestId);
      return send(res, 200, { sentMessages: r.sentMessages });
    }
    if (req.method === 'GET' && url.pathname === '/v2/bot/info')
      return send(res, 200, {
        userId: 'Ub9952f8f1c7c7bbde31f2bb4c4a3c15e',
        basicId: '@216ru...',
        displayName: 'Acme Support',
        chatMode: 'chat',
        markAsReadMode: 'manual',
      });
    const profile = url.pathname.match(/^\/v2\/bot\/profile\/(U[0-9a-f]{32})$/);
    if (req.method === 'GET' && profile) {
      const name = profiles.get(profile[1]!);
      return name
        ? send(res, 200, { displayName: name, userId: profile[1], language: 'en' })
        : send(res, 404, { message: 'Not found' });
    }
    send(res, 404, { message: 'Not found' });
  });
  const data = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== `Bearer ${o.accessToken}`) return unauthorized(res);
    const m = url.pathname.match(/^\/v2\/bot\/message\/(\d+)\/content$/);
    const bytes = m ? media.get(m[1]!) : undefined;
    if (req.method === 'GET' && bytes) return send(res, 200, bytes, 'image/png');
    send(res, 404, { message: 'Not found' });
  });
  return {
    url: api.url,
    dataUrl: data.url,
    sent,
    delivered,
    script,
    replyTokens,
    profiles,
    media,
    close: async () => {
      await api.close();
      await data.close();
    },
  };
}

/** A LINE webhook body with the given events, and its `X-Line-Signature` under the channel secret. */
export function lineWebhook(channelSecret: string, events: unknown[]) {
  const body = JSON.stringify({ destination: 'Ub9952f8f1c7c7bbde31f2bb4c4a3c15e', events });
  return { body, signature: createHmac('sha256', channelSecret).update(body).digest('base64') };
}

/** A LINE user's text in a one-on-one chat, as its message event. */
export const lineText = (
  userId: string,
  text: string,
  o: { id?: string; replyToken?: string; at?: number; redelivery?: boolean } = {},
) => ({
  type: 'message',
  mode: 'active',
  timestamp: o.at ?? Date.now(),
  source: { type: 'user', userId },
  webhookEventId: `01H${randomBytes(12).toString('hex').toUpperCase()}`,
  deliveryContext: { isRedelivery: o.redelivery ?? false },
  replyToken: o.replyToken ?? randomBytes(16).toString('hex'),
  message: {
    id: o.id ?? String(Date.now()) + String(Math.floor(Math.random() * 1000)),
    type: 'text',
    quoteToken: 'q',
    text,
  },
});

/**
 * Twilio's Messages API as far as Parley uses it: `POST /2010-04-01/Accounts/{sid}/Messages.json` (a form,
 * Basic auth with the account SID and auth token) answering 201 `{sid, status: 'queued', ...}`, `GET
 * .../Accounts/{sid}.json`, `.../IncomingPhoneNumbers.json?PhoneNumber=` (the account's `numbers`), and media at
 * `.../Messages/{MM}/Media/{ME}`. A bad `To` gets error 21211, a bad
 * login 20003, both as Twilio's `{code, message, more_info, status}`.
 */
export async function startTwilioStandIn(o: { accountSid: string; authToken: string; numbers?: string[] }) {
  const sent: (Taken & { form: Record<string, string> })[] = [];
  const script: Script = { next: [] };
  const media = new Map<string, { bytes: Buffer; mime: string }>();
  const error = (res: http.ServerResponse, status: number, code: number, message: string) =>
    send(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
  const basic = `Basic ${Buffer.from(`${o.accountSid}:${o.authToken}`).toString('base64')}`;
  const base = `/2010-04-01/Accounts/${o.accountSid}`;
  const s = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.headers.authorization !== basic) return error(res, 401, 20003, 'Authenticate');
    if (req.method === 'POST' && url.pathname === `${base}/Messages.json`) {
      const form = Object.fromEntries(new URLSearchParams(raw));
      sent.push({ method: 'POST', path: url.pathname, headers: req.headers, body: raw, form });
      const scripted = script.next.shift();
      if (scripted) return send(res, scripted.status, scripted.body);
      if (!/^\+[1-9]\d{6,14}$/.test(form.To ?? ''))
        return error(res, 400, 21211, `The 'To' number ${form.To ?? ''} is not a valid phone number.`);
      if (!form.Body) return error(res, 400, 21602, 'Message body is required.');
      const sid = `SM${randomBytes(16).toString('hex')}`;
      return send(res, 201, {
        account_sid: o.accountSid,
        api_version: '2010-04-01',
        body: form.Body,
        date_created: new Date().toUTCString(),
        direction: 'outbound-api',
        error_code: null,
        error_message: null,
        from: form.From,
        num_media: '0',
        num_segments: '1',
        sid,
        status: 'queued',
        to: form.To,
        uri: `${base}/Messages/${sid}.json`,
      });
    }
    if (req.method === 'GET' && url.pathname === `${base}/IncomingPhoneNumbers.json`) {
      const wanted = url.searchParams.get('PhoneNumber');
      const numbers = o.numbers ?? [];
      return send(res, 200, {
        incoming_phone_numbers: numbers
          .filter((n) => !wanted || n === wanted)
          .map((n) => ({ phone_number: n, friendly_name: n, capabilities: { sms: true, mms: true, voice: true } })),
        page: 0,
        page_size: 50,
      });
    }
    if (req.method === 'GET' && url.pathname === `${base}.json`)
      return send(res, 200, { sid: o.accountSid, friendly_name: 'Acme SMS', status: 'active', type: 'Full' });
    const m = media.get(url.pathname);
    if (req.method === 'GET' && m) return send(res, 200, m.bytes, m.mime);
    error(res, 404, 20404, `The requested resource ${url.pathname} was not found`);
  });
  return { ...s, sent, script, media };
}

/** A Twilio webhook (an incoming SMS or a status callback) as the form it posts, signed for `url`. */
export function twilioWebhook(authToken: string, url: string, params: Record<string, string>) {
  const sorted = Object.keys(params).sort();
  const signature = createHmac('sha1', authToken)
    .update(url + sorted.map((k) => k + params[k]).join(''))
    .digest('base64');
  return { body: new URLSearchParams(params).toString(), signature };
}

/** An incoming SMS's parameters as Twilio posts them. */
export const smsIn = (
  accountSid: string,
  from: string,
  to: string,
  body: string,
  sid = `SM${randomBytes(16).toString('hex')}`,
) => ({
  ToCountry: 'US',
  ToState: 'CA',
  SmsMessageSid: sid,
  NumMedia: '0',
  ToCity: '',
  FromZip: '',
  SmsSid: sid,
  FromState: 'CA',
  SmsStatus: 'received',
  FromCity: 'SAN FRANCISCO',
  Body: body,
  FromCountry: 'US',
  To: to,
  ToZip: '',
  NumSegments: '1',
  MessageSid: sid,
  AccountSid: accountSid,
  From: from,
  ApiVersion: '2010-04-01',
});
