import { createHmac, timingSafeEqual } from 'node:crypto';
import { type OpenConnection, ProviderError, refusal, type WebhookRequest } from '../adapter.js';

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

/**
 * Graph API error codes that say "later" although the answer is a 400: an unknown or temporary error (1, 2),
 * the app's, the user's or the Page's rate limits (4, 17, 32, 613), and what Meta marks `is_transient`.
 */
const TRANSIENT_CODES = new Set([1, 2, 4, 17, 32, 613]);

/** A failed Graph API answer as a ProviderError in Meta's words ("(#code) message"), transient when Meta says so. */
export async function metaRefusal(res: Response): Promise<ProviderError> {
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { error?: { code?: number; is_transient?: boolean } } | null;
  const e = await refusal(res);
  const code = body?.error?.code;
  const later = body?.error?.is_transient === true || (typeof code === 'number' && TRANSIENT_CODES.has(code));
  return later && !e.transient ? new ProviderError(e.message, true) : e;
}

/** `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body under the app secret. */
export function metaSignatureValid(req: WebhookRequest, appSecret: string | undefined): boolean {
  const header = req.headers['x-hub-signature-256'];
  if (typeof header !== 'string' || !header.startsWith('sha256=') || !appSecret) return false;
  const want = createHmac('sha256', appSecret).update(req.rawBody, 'utf8').digest();
  return sameBytes(Buffer.from(header.slice(7), 'hex'), want);
}
