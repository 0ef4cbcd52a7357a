import { CHANNEL_STRINGS } from '@parley/contracts';
import {
  type ChannelAdapter,
  callProvider,
  type InboundMessage,
  type OpenConnection,
  type Parsed,
  ProviderError,
  refusal,
  type StatusUpdate,
} from '../adapter.js';
import { metaHandshake, metaSignatureValid } from './meta.js';

/** The parts of a WhatsApp Cloud API webhook we read (Meta's "messages" field). */
interface WaMessage {
  from: string;
  id: string;
  timestamp: string;
  type: string;
  text?: { body: string };
  image?: WaMedia;
  audio?: WaMedia;
  video?: WaMedia;
  document?: WaMedia & { filename?: string };
  sticker?: WaMedia;
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  interactive?: {
    type: string;
    button_reply?: { id: string; title: string };
    list_reply?: { id: string; title: string };
  };
  button?: { text: string; payload?: string };
  reaction?: { emoji?: string };
}
interface WaMedia {
  id: string;
  mime_type?: string;
  caption?: string;
}
interface WaStatus {
  id: string;
  status: string;
  errors?: { code?: number; title?: string; message?: string; error_data?: { details?: string } }[];
}
interface WaValue {
  metadata?: { phone_number_id?: string };
  contacts?: { profile?: { name?: string }; wa_id?: string }[];
  messages?: WaMessage[];
  statuses?: WaStatus[];
}

const EXT: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'video/mp4': 'mp4',
  'application/pdf': 'pdf',
};
const baseMime = (m: string | undefined) => (m ?? 'application/octet-stream').split(';')[0]!.trim();

/** A message's text and its file, whatever its type; types we do not show say so in the text. */
function contentOf(m: WaMessage): Pick<InboundMessage, 'text' | 'media'> {
  const media = (kind: string, x: WaMedia | undefined, filename?: string) => {
    if (!x) return { text: CHANNEL_STRINGS.unsupported(kind) };
    const mime = baseMime(x.mime_type);
    return {
      text: x.caption ?? '',
      media: { id: x.id, mime, name: filename || `${kind}-${m.id.slice(-8)}.${EXT[mime] ?? 'bin'}` },
    };
  };
  switch (m.type) {
    case 'text':
      return { text: m.text?.body ?? '' };
    case 'image':
    case 'audio':
    case 'video':
    case 'sticker':
      return media(m.type, m[m.type]);
    case 'document':
      return media('document', m.document, m.document?.filename);
    case 'location': {
      const l = m.location;
      if (!l) return { text: CHANNEL_STRINGS.unsupported('location') };
      const place = [l.name, l.address].filter(Boolean).join(', ');
      return { text: CHANNEL_STRINGS.location(place, l.latitude, l.longitude) };
    }
    case 'interactive':
      return { text: m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? '' };
    case 'button':
      return { text: m.button?.text ?? '' };
    case 'reaction':
      return { text: m.reaction?.emoji ?? '' };
    default:
      return { text: CHANNEL_STRINGS.unsupported(m.type) };
  }
}

const STATES: Record<string, StatusUpdate['state']> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'failed',
};

/**
 * WhatsApp Cloud API: Meta's webhook (the `hub.*` handshake, `X-Hub-Signature-256` over the raw body with
 * the app secret), and `POST {api}/{phone number id}/messages` with the number's access token.
 */
export function whatsappAdapter(apiUrl: string): ChannelAdapter {
  const auth = (c: OpenConnection) => ({ authorization: `Bearer ${c.secrets.accessToken ?? ''}` });
  return {
    kind: 'whatsapp',
    handshake: metaHandshake,
    verify: (req, c) => metaSignatureValid(req, c.secrets.appSecret),
    parse(rawBody, c): Parsed {
      const body = JSON.parse(rawBody) as {
        object?: string;
        entry?: { changes?: { field?: string; value?: WaValue }[] }[];
      };
      if (body.object !== 'whatsapp_business_account' || !Array.isArray(body.entry))
        throw new Error('not a WhatsApp Business Account webhook');
      const out: Parsed = { messages: [], statuses: [] };
      for (const entry of body.entry)
        for (const change of entry.changes ?? []) {
          const v = change.value;
          // Another number of the same business account: not this connection's to store.
          if (change.field !== 'messages' || !v || v.metadata?.phone_number_id !== c.settings.phoneNumberId) continue;
          for (const m of v.messages ?? []) {
            if (typeof m.id !== 'string' || typeof m.from !== 'string') continue;
            const contact = v.contacts?.find((x) => x.wa_id === m.from);
            out.messages.push({
              providerId: m.id,
              peer: m.from,
              name: contact?.profile?.name ?? '',
              phone: `+${m.from.replace(/\D/g, '')}`,
              at: Number(m.timestamp) * 1000 || Date.now(),
              ...contentOf(m),
            });
          }
          for (const s of v.statuses ?? []) {
            const state = STATES[s.status];
            if (!state || typeof s.id !== 'string') continue;
            const e = s.errors?.[0];
            const words = e
              ? [e.code !== undefined ? `(#${e.code})` : '', e.title, e.error_data?.details ?? e.message]
              : [];
            out.statuses.push({
              providerId: s.id,
              state,
              ...(state === 'failed' ? { error: words.filter(Boolean).join(' ') || 'Failed' } : {}),
            });
          }
        }
      return out;
    },
    async send(c, o) {
      const body = o.template
        ? { type: 'template', template: { name: o.template.name, language: { code: o.template.language } } }
        : { type: 'text', text: { body: o.text, preview_url: false } };
      const res = await callProvider(`${apiUrl}/${encodeURIComponent(c.settings.phoneNumberId ?? '')}/messages`, {
        method: 'POST',
        headers: { ...auth(c), 'content-type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to: o.peer, ...body }),
      });
      if (!res.ok) throw await refusal(res);
      const j = (await res.json()) as { messages?: { id?: string }[] };
      const id = j.messages?.[0]?.id;
      if (!id) throw new ProviderError('WhatsApp answered without a message id.', false);
      return id;
    },
    async fetchMedia(c, id) {
      const meta = await callProvider(`${apiUrl}/${encodeURIComponent(id)}`, { headers: auth(c) });
      if (!meta.ok) throw await refusal(meta);
      const { url } = (await meta.json()) as { url?: string };
      if (!url) throw new ProviderError('WhatsApp answered without a media address.', false);
      const file = await callProvider(url, { headers: auth(c) }, 60_000);
      if (!file.ok) throw await refusal(file);
      return Buffer.from(await file.arrayBuffer());
    },
    async test(c) {
      const res = await callProvider(
        `${apiUrl}/${encodeURIComponent(c.settings.phoneNumberId ?? '')}?fields=display_phone_number,verified_name`,
        { headers: auth(c) },
      );
      if (!res.ok) throw await refusal(res);
      const j = (await res.json()) as { display_phone_number?: string; verified_name?: string };
      return [j.verified_name, j.display_phone_number].filter(Boolean).join(', ');
    },
  };
}
