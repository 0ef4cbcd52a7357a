import { timingSafeEqual } from 'node:crypto';
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

interface TgFile {
  file_id: string;
  mime_type?: string;
  file_name?: string;
}
interface TgMessage {
  message_id: number;
  date: number;
  chat: { id: number; type: string };
  from?: { first_name?: string; last_name?: string; username?: string };
  text?: string;
  caption?: string;
  photo?: TgFile[];
  voice?: TgFile;
  audio?: TgFile;
  video?: TgFile;
  document?: TgFile;
  sticker?: TgFile & { emoji?: string };
  location?: { latitude: number; longitude: number };
  contact?: { phone_number: string; first_name?: string };
}

function contentOf(m: TgMessage): Pick<InboundMessage, 'text' | 'media'> {
  const file = (kind: string, f: TgFile | undefined, mime: string, ext: string) =>
    f
      ? {
          text: m.caption ?? '',
          media: { id: f.file_id, mime: f.mime_type ?? mime, name: f.file_name ?? `${kind}-${m.message_id}.${ext}` },
        }
      : null;
  if (typeof m.text === 'string') return { text: m.text };
  const found =
    file('photo', m.photo?.at(-1), 'image/jpeg', 'jpg') ??
    file('voice', m.voice, 'audio/ogg', 'ogg') ??
    file('audio', m.audio, 'audio/mpeg', 'mp3') ??
    file('video', m.video, 'video/mp4', 'mp4') ??
    file('document', m.document, 'application/octet-stream', 'bin');
  if (found) return found;
  if (m.sticker) return { text: m.sticker.emoji ?? CHANNEL_STRINGS.unsupported('sticker') };
  if (m.location) return { text: CHANNEL_STRINGS.location('', m.location.latitude, m.location.longitude) };
  if (m.contact) return { text: `${m.contact.first_name ?? ''} ${m.contact.phone_number}`.trim() };
  return { text: CHANNEL_STRINGS.unsupported('Telegram') };
}

/**
 * Telegram Bot API: updates posted to our webhook with the `secret_token` we registered in the
 * `X-Telegram-Bot-Api-Secret-Token` header; replies by `sendMessage`. Telegram reports no delivery, so a
 * reply it took stays "Sent".
 */
export function telegramAdapter(apiUrl: string): ChannelAdapter {
  const method = (c: OpenConnection, name: string) => `${apiUrl}/bot${c.secrets.botToken ?? ''}/${name}`;
  const call = async (c: OpenConnection, name: string, body: unknown) => {
    const res = await callProvider(method(c, name), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await refusal(res);
    const j = (await res.json()) as { ok?: boolean; result?: unknown; description?: string };
    if (!j.ok) throw new ProviderError(j.description ?? 'Telegram refused the call.', false);
    return j.result;
  };
  return {
    kind: 'telegram',
    verify(req, c) {
      const header = req.headers['x-telegram-bot-api-secret-token'];
      if (typeof header !== 'string') return false;
      const given = Buffer.from(header);
      const want = Buffer.from(c.verifyToken);
      return given.length === want.length && timingSafeEqual(given, want);
    },
    parse(rawBody): Parsed {
      const u = JSON.parse(rawBody) as { update_id?: unknown; message?: TgMessage };
      if (typeof u.update_id !== 'number') throw new Error('not a Telegram update');
      const m = u.message;
      // Edited messages, channel posts, callbacks...: not conversations with a customer.
      if (!m || typeof m.chat?.id !== 'number') return { messages: [], statuses: [] };
      const name = [m.from?.first_name, m.from?.last_name].filter(Boolean).join(' ') || m.from?.username || '';
      return {
        messages: [
          {
            providerId: `update:${u.update_id}`,
            peer: String(m.chat.id),
            name,
            at: m.date * 1000 || Date.now(),
            ...contentOf(m),
          },
        ],
        statuses: [],
      };
    },
    async send(c, o) {
      const r = (await call(c, 'sendMessage', { chat_id: o.peer, text: o.text })) as { message_id?: number };
      if (typeof r?.message_id !== 'number') throw new ProviderError('Telegram answered without a message id.', false);
      return `${o.peer}:${r.message_id}`;
    },
    async fetchMedia(c, id) {
      const f = (await call(c, 'getFile', { file_id: id })) as { file_path?: string };
      if (!f?.file_path) throw new ProviderError('Telegram answered without a file path.', false);
      const res = await callProvider(`${apiUrl}/file/bot${c.secrets.botToken ?? ''}/${f.file_path}`, {}, 60_000);
      if (!res.ok) throw await refusal(res);
      return Buffer.from(await res.arrayBuffer());
    },
    async test(c) {
      const me = (await call(c, 'getMe', {})) as { username?: string; first_name?: string };
      return me?.username ? `@${me.username}` : (me?.first_name ?? '');
    },
  };
}

/** Tells Telegram where to post the bot's updates, with the secret it must send back. */
export async function registerTelegramWebhook(apiUrl: string, c: OpenConnection, url: string): Promise<void> {
  const res = await callProvider(`${apiUrl}/bot${c.secrets.botToken ?? ''}/setWebhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, secret_token: c.verifyToken, allowed_updates: ['message'] }),
  });
  if (!res.ok) throw await refusal(res);
}
