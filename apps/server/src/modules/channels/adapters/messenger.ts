import { CHANNEL_STRINGS } from '@parley/contracts';
import {
  type ChannelAdapter,
  callProvider,
  type InboundMessage,
  type OpenConnection,
  type Parsed,
  ProviderError,
} from '../adapter.js';
import { metaHandshake, metaRefusal, metaSignatureValid } from './meta.js';
import { type MetaChange, mentionText, postText, readFeedChange, readIgChange, sendPostReply } from './metaPosts.js';

/** One event of a Messenger Platform webhook's `entry[].messaging` (Messenger and Instagram alike). */
interface MetaMessaging {
  sender?: { id?: string };
  recipient?: { id?: string };
  timestamp?: number;
  message?: {
    mid?: string;
    text?: string;
    is_echo?: boolean;
    /** Instagram: the customer took the message back. */
    is_deleted?: boolean;
    attachments?: { type?: string; payload?: { url?: string } | null }[];
  };
  delivery?: { mids?: string[]; watermark?: number };
  /** Messenger reports reads by watermark only; Instagram names the message read (`mid`). */
  read?: { watermark?: number; mid?: string };
}

/** What a file of each attachment type is taken for when its address names no extension. */
const FILE_OF: Record<string, { mime: string; ext: string }> = {
  image: { mime: 'image/jpeg', ext: 'jpg' },
  audio: { mime: 'audio/mp4', ext: 'm4a' },
  video: { mime: 'video/mp4', ext: 'mp4' },
  file: { mime: 'application/octet-stream', ext: 'bin' },
};

/** A name for a customer's file: the last part of its address when it has an extension, else one made up. */
function fileName(type: string, url: string, mid: string, i: number) {
  try {
    const last = decodeURIComponent(new URL(url).pathname.split('/').at(-1) ?? '');
    if (/^[^/\\]{1,120}\.[A-Za-z0-9]{1,8}$/.test(last)) return last;
  } catch {
    // Not an address we can read: a made-up name.
  }
  return `${type}-${mid.slice(-8)}${i ? `-${i + 1}` : ''}.${FILE_OF[type]?.ext ?? 'bin'}`;
}

export interface MetaMessagingOptions {
  kind: 'messenger' | 'instagram';
  /** The webhook's `object`: `page` for Messenger, `instagram` for Instagram. */
  object: 'page' | 'instagram';
  /** The setting that holds our id at Meta: the Page's, or the Instagram professional account's. */
  idSetting: 'pageId' | 'igAccountId';
  /** The fields `test` asks of our id, and the name they answer. */
  testFields: string;
  /** The customer's profile: the fields asked of their id, and the name they make. */
  profileFields: string;
  /** The longest text one message may carry (Messenger 2,000 characters, Instagram 1,000). */
  maxText: number;
  /** Where replies are posted, under the API base URL. */
  sendPath: (c: OpenConnection) => string;
}

/**
 * Meta's Messenger Platform, for Facebook Messenger (a Page) and Instagram Direct (the professional account
 * linked to a Page, with that Page's token): Meta's webhook (`hub.*` handshake, `X-Hub-Signature-256` with the
 * app secret) and `POST {api}/.../messages` with the Page access token. Only the standard messaging window:
 * a reply more than 24 hours after the customer's last message is refused before the call (outbound.ts).
 */
export function metaMessagingAdapter(apiUrl: string, o: MetaMessagingOptions): ChannelAdapter {
  const auth = (c: OpenConnection) => ({ authorization: `Bearer ${c.secrets.accessToken ?? ''}` });
  const ownId = (c: OpenConnection) => c.settings[o.idSetting] ?? '';
  const network = o.kind === 'messenger' ? 'Messenger' : 'Instagram';
  return {
    kind: o.kind,
    handshake: metaHandshake,
    verify: (req, c) => metaSignatureValid(req, c.secrets.appSecret),
    parse(rawBody, c): Parsed {
      const body = JSON.parse(rawBody) as {
        object?: string;
        entry?: { id?: string; time?: number; messaging?: MetaMessaging[]; changes?: MetaChange[] }[];
      };
      if (body.object !== o.object || !Array.isArray(body.entry)) throw new Error(`not a ${network} webhook`);
      const out: Parsed = { messages: [], statuses: [], unsent: [] };
      for (const entry of body.entry) {
        // Another Page (or account) of the same app: not this connection's to store.
        if (String(entry.id ?? '') !== ownId(c)) continue;
        // Comments under posts (and Instagram mentions) come as `changes`; other fields are skipped.
        const at = typeof entry.time === 'number' ? (entry.time < 1e12 ? entry.time * 1000 : entry.time) : Date.now();
        for (const ch of Array.isArray(entry.changes) ? entry.changes : [])
          if (o.kind === 'messenger') readFeedChange(ch, ownId(c), at, out);
          else readIgChange(ch, ownId(c), at, out);
        for (const e of entry.messaging ?? []) {
          const peer = e.sender?.id;
          const m = e.message;
          // Instagram's unsend: hidden like a deleted message, as LINE's is.
          if (m?.is_deleted && typeof m.mid === 'string') out.unsent?.push(m.mid);
          // An echo is our own send (from Parley or the Page's inbox), not the customer's.
          else if (m && typeof m.mid === 'string' && typeof peer === 'string' && !m.is_echo && peer !== ownId(c)) {
            const base = { peer, name: '', at: Number(e.timestamp) || Date.now() };
            const files: InboundMessage['media'][] = [];
            const notes: string[] = [];
            for (const [i, a] of (m.attachments ?? []).entries()) {
              const type = a.type ?? 'unknown';
              const url = a.payload?.url;
              if (FILE_OF[type] && typeof url === 'string' && /^https?:\/\//.test(url))
                files.push({ id: url, mime: FILE_OF[type].mime, name: fileName(type, url, m.mid, i) });
              // A shared post, a location, a story mention...: said, not shown.
              else notes.push(CHANNEL_STRINGS.unsupported(type));
            }
            // Nothing we can show (Instagram's `is_unsupported`, a story reaction...): said, not left empty.
            const text =
              [m.text ?? '', ...notes].filter(Boolean).join('\n') ||
              (files.length ? '' : CHANNEL_STRINGS.unsupported(network));
            out.messages.push({ ...base, providerId: m.mid, text, ...(files[0] ? { media: files[0] } : {}) });
            // One message per file after the first, each stored once by its own id.
            for (const [i, f] of files.slice(1).entries())
              out.messages.push({ ...base, providerId: `${m.mid}:${i + 1}`, text: '', media: f });
          }
          for (const mid of e.delivery?.mids ?? [])
            if (typeof mid === 'string') out.statuses.push({ providerId: mid, state: 'delivered' });
          // Messenger's read receipts name no message (a watermark): only Instagram's move a reply to Read.
          if (typeof e.read?.mid === 'string') out.statuses.push({ providerId: e.read.mid, state: 'read' });
        }
      }
      return out;
    },
    contextText: (c, id) => postText(apiUrl, c, id),
    complete: (c, m) => mentionText(apiUrl, c, m),
    async send(c, out) {
      if (out.channel !== (o.kind === 'messenger' ? 'FB_PM' : 'IG_PM')) return sendPostReply(apiUrl, c, out);
      // Said before calling rather than in Meta's "(#100) param message[text]" words; splitting is not built.
      if (out.text.length > o.maxText) throw new ProviderError(CHANNEL_STRINGS.tooLong(o.maxText), false);
      const res = await callProvider(`${apiUrl}${o.sendPath(c)}`, {
        method: 'POST',
        headers: { ...auth(c), 'content-type': 'application/json' },
        body: JSON.stringify({ recipient: { id: out.peer }, messaging_type: 'RESPONSE', message: { text: out.text } }),
      });
      if (!res.ok) throw await metaRefusal(res);
      const j = (await res.json()) as { recipient_id?: string; message_id?: string };
      if (!j.message_id) throw new ProviderError(`${network} answered without a message id.`, false);
      return j.message_id;
    },
    async fetchMedia(_c, url) {
      // The file's address came in the signed webhook: Meta's CDN, signed itself, so no token is sent there.
      if (!/^https?:\/\//.test(url)) throw new ProviderError(`Not a file address of ${network}.`, false);
      const res = await callProvider(url, {}, 60_000);
      if (!res.ok) throw await metaRefusal(res);
      return Buffer.from(await res.arrayBuffer());
    },
    async test(c) {
      const res = await callProvider(`${apiUrl}/${encodeURIComponent(ownId(c))}?fields=${o.testFields}`, {
        headers: auth(c),
      });
      if (!res.ok) throw await metaRefusal(res);
      const j = (await res.json()) as { name?: string; username?: string };
      return (o.kind === 'instagram' && j.username ? `@${j.username}` : j.name) ?? '';
    },
    async profileName(c, peer) {
      const res = await callProvider(
        `${apiUrl}/${encodeURIComponent(peer)}?fields=${o.profileFields}`,
        { headers: auth(c) },
        5_000,
      );
      if (!res.ok) throw await metaRefusal(res);
      const j = (await res.json()) as { first_name?: string; last_name?: string; name?: string; username?: string };
      return [j.first_name, j.last_name].filter(Boolean).join(' ') || j.name || j.username || '';
    },
  };
}

/** Facebook Messenger: a Page's conversations; replies by `POST {api}/{page-id}/messages`. */
export const messengerAdapter = (apiUrl: string) =>
  metaMessagingAdapter(apiUrl, {
    kind: 'messenger',
    object: 'page',
    idSetting: 'pageId',
    testFields: 'name',
    profileFields: 'first_name,last_name',
    maxText: 2000,
    sendPath: (c) => `/${encodeURIComponent(c.settings.pageId ?? '')}/messages`,
  });

/**
 * Instagram Direct through the Messenger Platform (the professional account linked to a Page, the Page's
 * token): replies by `POST {api}/me/messages`, `me` being the Page the token is of.
 */
export const instagramAdapter = (apiUrl: string) =>
  metaMessagingAdapter(apiUrl, {
    kind: 'instagram',
    object: 'instagram',
    idSetting: 'igAccountId',
    testFields: 'username,name',
    profileFields: 'name,username',
    maxText: 1000,
    sendPath: () => '/me/messages',
  });
