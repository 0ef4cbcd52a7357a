import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
