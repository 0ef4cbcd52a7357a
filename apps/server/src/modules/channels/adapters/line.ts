import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { CHANNEL_STRINGS } from '@parley/contracts';
import {
  type ChannelAdapter,
  callProvider,
  type InboundMessage,
  type OpenConnection,
  type Parsed,
  ProviderError,
  refusal,
} from '../adapter.js';

/** The parts of a LINE webhook event we read (Messaging API, "message" events in one-on-one chats). */
interface LineEvent {
  type: string;
  timestamp?: number;
  replyToken?: string;
  webhookEventId?: string;
  deliveryContext?: { isRedelivery?: boolean };
  source?: { type?: string; userId?: string };
  message?: LineMessage;
}
interface LineMessage {
  id: string;
  type: string;
  text?: string;
  fileName?: string;
  contentProvider?: { type?: string; originalContentUrl?: string };
  title?: string;
  address?: string;
  latitude?: number;
  longitude?: number;
  keywords?: string[];
}

/** LINE takes up to 5 message objects of up to 5,000 characters in one send. */
const TEXT_MAX = 5000;
const MESSAGES_MAX = 5;

const MEDIA: Record<string, { mime: string; ext: string }> = {
  image: { mime: 'image/jpeg', ext: 'jpg' },
  video: { mime: 'video/mp4', ext: 'mp4' },
  audio: { mime: 'audio/x-m4a', ext: 'm4a' },
  file: { mime: 'application/octet-stream', ext: 'bin' },
};

function contentOf(m: LineMessage): Pick<InboundMessage, 'text' | 'media'> {
  switch (m.type) {
    case 'text':
      return { text: m.text ?? '' };
    case 'image':
    case 'video':
    case 'audio':
    case 'file': {
      // Sent by another app with a URL of its own: nothing on LINE's content API to fetch, the link is the file.
      if (m.contentProvider?.type === 'external')
        return { text: m.contentProvider.originalContentUrl ?? CHANNEL_STRINGS.unsupported(m.type) };
      const { mime, ext } = MEDIA[m.type]!;
      return { text: '', media: { id: m.id, mime, name: m.fileName || `${m.type}-${m.id.slice(-8)}.${ext}` } };
    }
    case 'location':
      return {
        text: CHANNEL_STRINGS.location(
          [m.title, m.address].filter(Boolean).join(', '),
          Number(m.latitude),
          Number(m.longitude),
        ),
      };
    case 'sticker':
      return { text: m.text || CHANNEL_STRINGS.unsupported('sticker') };
    default:
      return { text: CHANNEL_STRINGS.unsupported(m.type) };
  }
}

/** A name-based UUID (version 5 layout, SHA-1) of a reply: the same reply always gets the same key. */
export function retryKey(c: OpenConnection, messageId: number): string {
  const h = createHash('sha1').update(`parley:line:${c.accountId}:${c.id}:${messageId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** A reply's text as LINE text message objects: split at 5,000 characters, at most 5 of them. */
function textMessages(text: string) {
  const parts: { type: 'text'; text: string }[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += TEXT_MAX)
    parts.push({ type: 'text', text: chars.slice(i, i + TEXT_MAX).join('') });
  if (parts.length === 0) parts.push({ type: 'text', text: ' ' });
  if (parts.length > MESSAGES_MAX) throw new ProviderError(CHANNEL_STRINGS.tooLong(TEXT_MAX * MESSAGES_MAX), false);
  return parts;
}

const sentId = (j: { sentMessages?: { id?: string }[] } | null) => j?.sentMessages?.[0]?.id;

/**
 * LINE Messaging API: webhooks signed with the channel secret (`X-Line-Signature`, base64 HMAC-SHA256 of the
 * raw body); a reply goes with the customer's reply token while it is fresh (free, single use), else as a
 * push with an `X-Line-Retry-Key` made from our message id, so a push retried after a 5xx or a timeout is
 * sent once. Files come from the data API (api-data.line.me). LINE reports no delivery: a reply it took
 * stays "Sent".
 */
export function lineAdapter(apiUrl: string, dataApiUrl: string): ChannelAdapter {
  const auth = (c: OpenConnection) => ({ authorization: `Bearer ${c.secrets.channelAccessToken ?? ''}` });
  const post = (c: OpenConnection, path: string, body: unknown, headers: Record<string, string> = {}) =>
    callProvider(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { ...auth(c), 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  return {
    kind: 'line',
    verify(req, c) {
      const header = req.headers['x-line-signature'];
      const secret = c.secrets.channelSecret;
      if (typeof header !== 'string' || !secret) return false;
      const given = Buffer.from(header, 'base64');
      const want = createHmac('sha256', secret).update(req.rawBody, 'utf8').digest();
      return given.length === want.length && timingSafeEqual(given, want);
    },
    parse(rawBody): Parsed {
      const body = JSON.parse(rawBody) as { destination?: unknown; events?: LineEvent[] };
      if (typeof body.destination !== 'string' || !Array.isArray(body.events)) throw new Error('not a LINE webhook');
      const out: Parsed = { messages: [], statuses: [] };
      for (const e of body.events) {
        // Follows, postbacks, unsends, group and room chats...: not a one-on-one conversation with a customer.
        if (e?.type !== 'message' || e.source?.type !== 'user' || typeof e.source.userId !== 'string') continue;
        const m = e.message;
        if (!m || typeof m.id !== 'string') continue;
        out.messages.push({
          providerId: m.id,
          peer: e.source.userId,
          name: '',
          at: Number(e.timestamp) || Date.now(),
          ...contentOf(m),
          // A redelivered event's token has most likely expired: not worth keeping.
          ...(e.replyToken && !e.deliveryContext?.isRedelivery ? { replyToken: e.replyToken } : {}),
        });
      }
      return out;
    },
    async send(c, o) {
      const messages = textMessages(o.text);
      if (o.replyToken) {
        // A token that expired or was used answers 400 ("Invalid reply token"), and LINE may be down: the push
        // below sends it instead (a reply lost after LINE took it is the one case that can reach the customer twice).
        const res = await post(c, '/v2/bot/message/reply', { replyToken: o.replyToken, messages }).catch(() => null);
        // Taken: it reached the customer, never push it too (an answer without an id gets our own).
        if (res?.ok) return sentId(await res.json().catch(() => null)) ?? `reply:${retryKey(c, o.messageId)}`;
      }
      const res = await post(
        c,
        '/v2/bot/message/push',
        { to: o.peer, messages },
        { 'x-line-retry-key': retryKey(c, o.messageId) },
      );
      // 409: this retry key was accepted before (an earlier try went through): sent, once.
      if (res.status === 409) {
        const j = (await res.json().catch(() => null)) as { sentMessages?: { id?: string }[] } | null;
        const accepted = res.headers.get('x-line-accepted-request-id');
        const id = sentId(j) ?? (accepted ? `request:${accepted}` : null);
        if (id) return id;
        return `retry:${retryKey(c, o.messageId)}`;
      }
      if (!res.ok) {
        const err = await refusal(res);
        // LINE answers 429 both to a burst (worth trying again) and to the month's message quota being used
        // up, which no retry within the hour fixes: that one fails at once, in LINE's words.
        if (res.status === 429 && /monthly limit/i.test(err.message)) throw new ProviderError(err.message, false);
        throw err;
      }
      const id = sentId((await res.json().catch(() => null)) as { sentMessages?: { id?: string }[] } | null);
      if (!id) throw new ProviderError('LINE answered without a message id.', false);
      return id;
    },
    async fetchMedia(c, id) {
      const res = await callProvider(
        `${dataApiUrl}/v2/bot/message/${encodeURIComponent(id)}/content`,
        { headers: auth(c) },
        60_000,
      );
      // 202: a video or voice message still being prepared by LINE.
      if (res.status === 202) throw new ProviderError('LINE is still preparing the file.', true);
      if (!res.ok) throw await refusal(res);
      return Buffer.from(await res.arrayBuffer());
    },
    async test(c) {
      const res = await callProvider(`${apiUrl}/v2/bot/info`, { headers: auth(c) });
      if (!res.ok) throw await refusal(res);
      const j = (await res.json()) as { displayName?: string; basicId?: string };
      return [j.displayName, j.basicId].filter(Boolean).join(', ');
    },
    async profileName(c, peer) {
      const res = await callProvider(
        `${apiUrl}/v2/bot/profile/${encodeURIComponent(peer)}`,
        { headers: auth(c) },
        5_000,
      );
      if (!res.ok) return '';
      const j = (await res.json().catch(() => null)) as { displayName?: unknown } | null;
      return typeof j?.displayName === 'string' ? j.displayName.slice(0, 200) : '';
    },
  };
}
