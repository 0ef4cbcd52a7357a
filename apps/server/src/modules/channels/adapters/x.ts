import { createHmac, timingSafeEqual } from 'node:crypto';
import { CHANNEL_STRINGS } from '@parley/contracts';
import { type ChannelAdapter, callProvider, type OpenConnection, type Parsed, ProviderError } from '../adapter.js';
import { oauthHeader } from './oauth1.js';

/** One of `direct_message_events` (Account Activity API, v1.1 shapes). */
interface XDmEvent {
  type?: string;
  id?: string;
  created_timestamp?: string;
  message_create?: {
    sender_id?: string;
    target?: { recipient_id?: string };
    message_data?: { text?: string; attachment?: { media?: { media_url_https?: string } } };
  };
}
/** One of `tweet_create_events` (a v1.1 tweet). */
interface XTweet {
  id_str?: string;
  text?: string;
  extended_tweet?: { full_text?: string };
  timestamp_ms?: string;
  user?: { id_str?: string; name?: string; screen_name?: string };
  retweeted_status?: unknown;
}

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
/** X signs with the app's consumer secret: base64 HMAC-SHA256 (the CRC answer and every POST). */
const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text, 'utf8').digest();

/** The peer of a user's mentions: their own ticket beside their DMs (`lastTicketOf` also keys by channel). */
export const xMentionPeer = (userId: string) => `mention:${userId}`;

/** X's errors: v2 `{title, detail, status}` or `{errors: [{message, code}]}`; 429 and 5xx are worth trying again. */
async function xRefusal(res: Response): Promise<ProviderError> {
  const text = await res.text().catch(() => '');
  let words = `${res.status} ${res.statusText}`.trim();
  try {
    const j = JSON.parse(text) as {
      title?: string;
      detail?: string;
      errors?: { message?: string; code?: number; detail?: string }[];
    };
    const e = j.errors?.[0];
    if (j.detail) words = j.detail;
    else if (e?.message) words = `${e.code !== undefined ? `(#${e.code}) ` : ''}${e.message}`;
    else if (e?.detail) words = e.detail;
    else if (j.title) words = j.title;
  } catch {
    // Not JSON: the status line says it.
  }
  return new ProviderError(words.slice(0, 500), res.status === 429 || res.status >= 500);
}

/**
 * X (Twitter) through the Account Activity API: the CRC (`crc_token` answered with `response_token`), webhooks
 * signed `x-twitter-webhooks-signature`, DMs (TW_DM) and mentions (TW_MENTION, one ticket per user); replies by
 * DM (`POST /2/dm_conversations/with/{id}/messages`) or in the thread (`POST /2/tweets` with
 * `reply.in_reply_to_tweet_id`), signed OAuth 1.0a with the account's tokens.
 */
export function xAdapter(apiUrl: string): ChannelAdapter {
  const keys = (c: OpenConnection) => ({
    consumerKey: c.secrets.consumerKey ?? '',
    consumerSecret: c.secrets.consumerSecret ?? '',
    token: c.secrets.accessToken ?? '',
    tokenSecret: c.secrets.accessTokenSecret ?? '',
  });
  const call = async (c: OpenConnection, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const url = `${apiUrl}${path}`;
    const res = await callProvider(url, {
      method,
      headers: {
        authorization: oauthHeader(method, url, keys(c)),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw await xRefusal(res);
    return (await res.json()) as { data?: Record<string, string> };
  };
  return {
    kind: 'x',
    handshakeType: 'application/json; charset=utf-8',
    handshake(query, c) {
      const token = query.crc_token;
      if (typeof token !== 'string' || !token || !c.secrets.consumerSecret) return null;
      return JSON.stringify({
        response_token: `sha256=${hmac(c.secrets.consumerSecret, token).toString('base64')}`,
      });
    },
    verify(req, c) {
      const header = req.headers['x-twitter-webhooks-signature'];
      const secret = c.secrets.consumerSecret;
      if (typeof header !== 'string' || !header.startsWith('sha256=') || !secret) return false;
      return sameBytes(Buffer.from(header.slice(7), 'base64'), hmac(secret, req.rawBody));
    },
    parse(rawBody, c): Parsed {
      const body = JSON.parse(rawBody) as {
        for_user_id?: string;
        direct_message_events?: XDmEvent[];
        tweet_create_events?: XTweet[];
        tweet_delete_events?: { status?: { id?: string } }[];
        users?: Record<string, { name?: string; screen_name?: string }>;
      };
      if (!body || typeof body !== 'object' || typeof body.for_user_id !== 'string')
        throw new Error('not an X webhook');
      const own = c.settings.userId ?? '';
      const out: Parsed = { messages: [], statuses: [], unsent: [] };
      // Another account subscribed to the same app: not this connection's to store.
      if (body.for_user_id !== own) return out;
      for (const e of Array.isArray(body.direct_message_events) ? body.direct_message_events : []) {
        const mc = e.message_create;
        const sender = mc?.sender_id;
        // Our own sends (from Parley or the app) come back as events too.
        if (e.type !== 'message_create' || typeof e.id !== 'string' || typeof sender !== 'string' || sender === own)
          continue;
        const user = body.users?.[sender];
        const media = mc?.message_data?.attachment?.media?.media_url_https;
        out.messages.push({
          providerId: e.id,
          peer: sender,
          name: user?.name ? `${user.name}${user.screen_name ? ` (@${user.screen_name})` : ''}` : '',
          text:
            [mc?.message_data?.text ?? '', media ?? ''].filter(Boolean).join('\n') || CHANNEL_STRINGS.unsupported('X'),
          at: Number(e.created_timestamp) || Date.now(),
          channel: 'TW_DM',
        });
      }
      for (const t of Array.isArray(body.tweet_create_events) ? body.tweet_create_events : []) {
        const author = t.user?.id_str;
        // The account's own tweets and replies, and retweets, are not a customer writing to us.
        if (typeof t.id_str !== 'string' || typeof author !== 'string' || author === own || t.retweeted_status)
          continue;
        out.messages.push({
          providerId: `tweet:${t.id_str}`,
          peer: xMentionPeer(author),
          name: t.user?.name ? `${t.user.name}${t.user.screen_name ? ` (@${t.user.screen_name})` : ''}` : '',
          text: t.extended_tweet?.full_text ?? t.text ?? '',
          at: Number(t.timestamp_ms) || Date.now(),
          channel: 'TW_MENTION',
          replyTo: t.id_str,
        });
      }
      // A tweet its author deleted: hidden like a deleted message.
      for (const d of Array.isArray(body.tweet_delete_events) ? body.tweet_delete_events : [])
        if (typeof d.status?.id === 'string') out.unsent?.push(`tweet:${d.status.id}`);
      return out;
    },
    async send(c, out) {
      if (out.channel === 'TW_MENTION') {
        if (!out.replyTo) throw new ProviderError(CHANNEL_STRINGS.noCommentToAnswer, false);
        // X counts characters its own way (weighted); 280 plain characters is the safe promise.
        if ([...out.text].length > 280) throw new ProviderError(CHANNEL_STRINGS.tooLong(280), false);
        const j = await call(c, 'POST', '/2/tweets', { text: out.text, reply: { in_reply_to_tweet_id: out.replyTo } });
        if (!j.data?.id) throw new ProviderError('X answered without a tweet id.', false);
        return `tweet:${j.data.id}`;
      }
      if (out.text.length > 10_000) throw new ProviderError(CHANNEL_STRINGS.tooLong(10_000), false);
      const j = await call(c, 'POST', `/2/dm_conversations/with/${encodeURIComponent(out.peer)}/messages`, {
        text: out.text,
      });
      if (!j.data?.dm_event_id) throw new ProviderError('X answered without a message id.', false);
      return j.data.dm_event_id;
    },
    async test(c) {
      const j = await call(c, 'GET', '/2/users/me');
      const id = j.data?.id ?? '';
      if (id !== (c.settings.userId ?? ''))
        throw new ProviderError(CHANNEL_STRINGS.xOtherAccount(j.data?.username ?? '', id), false);
      return `@${j.data?.username ?? ''}`;
    },
  };
}
