import { createHmac, timingSafeEqual } from 'node:crypto';
import type { OpenConnection, WebhookRequest } from '../adapter.js';

/**
 * What Meta's webhooks share (WhatsApp, Messenger, Instagram): the GET handshake that proves the address
 * when it is set in the App Dashboard, and the signature of every POST.
 */

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** `hub.mode=subscribe` with our verify token: the `hub.challenge` to echo; null otherwise (403). */
export function metaHandshake(query: Record<string, unknown>, c: OpenConnection): string | null {
  if (query['hub.mode'] !== 'subscribe' || typeof query['hub.challenge'] !== 'string') return null;
  const given = Buffer.from(String(query['hub.verify_token'] ?? ''));
  return sameBytes(given, Buffer.from(c.verifyToken)) ? query['hub.challenge'] : null;
}

/** `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body under the app secret. */
export function metaSignatureValid(req: WebhookRequest, appSecret: string | undefined): boolean {
  const header = req.headers['x-hub-signature-256'];
  if (typeof header !== 'string' || !header.startsWith('sha256=') || !appSecret) return false;
  const want = createHmac('sha256', appSecret).update(req.rawBody, 'utf8').digest();
  return sameBytes(Buffer.from(header.slice(7), 'hex'), want);
}
