import { createHmac, timingSafeEqual } from 'node:crypto';
import { CHANNEL_STRINGS } from '@parley/contracts';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
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
import { webhookUrl } from '../connections.js';

/**
 * Twilio's request signature: base64 HMAC-SHA1, keyed with the auth token, of the full URL it posted to
 * followed by each POST parameter's name and value, sorted by name (then value), with nothing between.
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return createHmac('sha1', authToken)
    .update(url + sorted.map(([k, v]) => k + v).join(''), 'utf8')
    .digest('base64');
}

/** The URL as given, without its default port, and with it: Twilio signs whichever form it was given. */
function urlForms(url: string): string[] {
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ''}@` : '';
    const withPort = `${u.protocol}//${auth}${u.hostname}:${port}${u.pathname}${u.search}`;
    return [...new Set([url, u.href, withPort])];
  } catch {
    return [url];
  }
}

/** Delivery states of Twilio's MessageStatus; queued, accepted, sending and scheduled move nothing. */
const STATES: Record<string, StatusUpdate['state']> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
};

/** Twilio's words for the delivery errors a status callback names only by code. */
const ERRORS: Record<string, string> = {
  '21610': 'The customer has unsubscribed (replied STOP) from this number',
  '30001': 'Queue overflow',
  '30002': 'Account suspended',
  '30003': 'Unreachable destination handset',
  '30004': 'Message blocked',
  '30005': 'Unknown destination handset',
  '30006': 'Landline or unreachable carrier',
  '30007': 'Message filtered by the carrier',
  '30008': 'Unknown error',
  '30010': 'Message price exceeds max price',
  '30034': 'Message from an unregistered number (US A2P 10DLC)',
};

const EXT: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'text/vcard': 'vcf',
  'application/pdf': 'pdf',
};

/** An E.164 number an SMS can go to, or null (a short code, a sender name, a number that cannot be). */
export function smsNumber(raw: string): string | null {
  const p = /^\+[0-9]{6,16}$/.test(raw) ? parsePhoneNumberFromString(raw) : undefined;
  return p?.isValid() ? p.number : null;
}

/**
 * SMS through a Twilio-compatible Messages API: inbound messages and status callbacks are form posts
 * signed with the auth token (`X-Twilio-Signature`, over our public webhook URL and the parameters);
 * replies are `POST {api}/2010-04-01/Accounts/{sid}/Messages.json` with Basic auth, naming our webhook as
 * their StatusCallback, so sent, delivered, undelivered and failed come back.
 */
export function smsAdapter(apiUrl: string, publicUrl: string | undefined): ChannelAdapter {
  const account = (c: OpenConnection) =>
    `${apiUrl}/2010-04-01/Accounts/${encodeURIComponent(c.settings.accountSid ?? '')}`;
  const auth = (c: OpenConnection) => ({
    authorization: `Basic ${Buffer.from(`${c.settings.accountSid ?? ''}:${c.secrets.authToken ?? ''}`).toString('base64')}`,
  });
  return {
    kind: 'sms',
    webhookAnswer: { contentType: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' },
    verify(req, c) {
      const header = req.headers['x-twilio-signature'];
      const token = c.secrets.authToken;
      if (typeof header !== 'string' || !token) return false;
      const given = Buffer.from(header, 'base64');
      const params = [...new URLSearchParams(req.rawBody)];
      return urlForms(req.url).some((url) => {
        const want = Buffer.from(twilioSignature(token, url, params), 'base64');
        return given.length === want.length && timingSafeEqual(given, want);
      });
    },
    parse(rawBody, c): Parsed {
      const p = new URLSearchParams(rawBody);
      const get = (k: string) => p.get(k) ?? '';
      const sid = get('MessageSid') || get('SmsSid');
      if (!sid) throw new Error('not a Twilio message webhook');
      const out: Parsed = { messages: [], statuses: [] };
      // Another account's (a subaccount's) message: not this connection's to store.
      if (get('AccountSid') && get('AccountSid') !== c.settings.accountSid) return out;
      const status = get('MessageStatus') || get('SmsStatus');
      if (status && status !== 'received' && status !== 'receiving') {
        const state = STATES[status];
        if (!state) return out;
        const code = get('ErrorCode');
        const words = [
          code ? `(#${code})` : '',
          get('ErrorMessage') || ERRORS[code] || (code ? '' : `${status[0]!.toUpperCase()}${status.slice(1)}`),
        ]
          .filter(Boolean)
          .join(' ');
        out.statuses.push({ providerId: sid, state, ...(state === 'failed' ? { error: words } : {}) });
        return out;
      }
      const from = get('From');
      if (!from) throw new Error('an SMS without its sender');
      const phone = smsNumber(from);
      const base: Omit<InboundMessage, 'providerId' | 'text'> = {
        peer: from,
        name: '',
        ...(phone ? { phone } : {}),
        at: Date.now(),
      };
      const media: NonNullable<InboundMessage['media']>[] = [];
      const links: string[] = [];
      const count = Math.min(Number(get('NumMedia')) || 0, 10);
      for (let i = 0; i < count; i++) {
        const url = get(`MediaUrl${i}`);
        const mime = (get(`MediaContentType${i}`) || 'application/octet-stream').split(';')[0]!.trim();
        // Only files on the API itself are fetched (with the account's credentials); anything else stays a link.
        if (url.startsWith(`${apiUrl}/`))
          media.push({
            id: url.slice(apiUrl.length),
            mime,
            name: `sms-${sid.slice(-8)}-${i + 1}.${EXT[mime] ?? 'bin'}`,
          });
        else if (url) links.push(url);
      }
      const text = [get('Body'), ...links].filter(Boolean).join('\n');
      // One message per file: the first carries the text, the others follow it.
      out.messages.push({ ...base, providerId: sid, text, ...(media[0] ? { media: media[0] } : {}) });
      for (const [i, m] of media.slice(1).entries())
        out.messages.push({ ...base, providerId: `${sid}:${i + 1}`, text: '', media: m });
      return out;
    },
    async send(c, o) {
      const to = smsNumber(o.peer);
      if (!to) throw new ProviderError(CHANNEL_STRINGS.badSmsNumber(o.peer), false);
      const form = new URLSearchParams({ To: to, From: c.settings.fromNumber ?? '', Body: o.text });
      const statusUrl = webhookUrl(publicUrl, c.webhookKey);
      if (statusUrl) form.set('StatusCallback', statusUrl);
      const res = await callProvider(`${account(c)}/Messages.json`, {
        method: 'POST',
        headers: { ...auth(c), 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      if (!res.ok) throw await refusal(res);
      const j = (await res.json().catch(() => null)) as { sid?: string; status?: string } | null;
      if (!j?.sid) throw new ProviderError('The SMS provider answered without a message SID.', false);
      return j.sid;
    },
    async fetchMedia(c, id) {
      if (!id.startsWith('/')) throw new ProviderError('Not a file of the SMS provider.', false);
      const res = await callProvider(`${apiUrl}${id}`, { headers: auth(c) }, 60_000);
      if (!res.ok) throw await refusal(res);
      return Buffer.from(await res.arrayBuffer());
    },
    async test(c) {
      const res = await callProvider(`${account(c)}.json`, { headers: auth(c) });
      if (!res.ok) throw await refusal(res);
      const j = (await res.json()) as { friendly_name?: string };
      // Replies leave from this number: it must be one of the account's, or every send would be refused.
      const from = c.settings.fromNumber ?? '';
      const numbers = await callProvider(
        `${account(c)}/IncomingPhoneNumbers.json?${new URLSearchParams({ PhoneNumber: from })}`,
        { headers: auth(c) },
      );
      if (!numbers.ok) throw await refusal(numbers);
      const list = (await numbers.json()) as { incoming_phone_numbers?: { phone_number?: string }[] };
      if (!list.incoming_phone_numbers?.some((n) => n.phone_number === from))
        throw new ProviderError(CHANNEL_STRINGS.notAccountNumber(from), false);
      return [j.friendly_name, from].filter(Boolean).join(', ');
    },
  };
}
