import { z } from 'zod';

/** CALL-10 .. CALL-14: the call-server indicator's words (the spec's, exactly) and ours. */
export const CALL_STRINGS = {
  connected: 'Connected to call server.',
  failed: 'Unable to connect to the call server. Click the icon to retry.',
  /** Ours: the orange state's tooltip (CALL-09). */
  connecting: 'Connecting to the call server...',
  dismiss: 'Dismiss',
  authenticate: 'Authenticate',
  /** Ours (CALL-14): what Authenticate is for, in its tooltip. */
  authenticateHelp: "Open the call server's address to accept its certificate, then retry.",
  badUrl: 'The call server address must be a ws:// or wss:// address.',
  notAllowed: 'Only admins and users with the call settings permission can change this.',
  saved: 'Call server saved.',
} as const;

const WS_URL = /^wss?:\/\//i;

/** A ws:// or wss:// address with a host, as `new URL` reads it; null when it is not one. */
export function parseSipWsUrl(value: string): URL | null {
  if (!WS_URL.test(value)) return null;
  try {
    const u = new URL(value);
    return u.hostname ? u : null;
  } catch {
    return null;
  }
}

/**
 * CALL-02: `sipIp` and `sipPort` of the auth check, read from the call server's address (the port defaults
 * to 443 for wss and 80 for ws).
 */
export function sipServerOf(value: string): { sipIp: string; sipPort: number } | null {
  const u = parseSipWsUrl(value);
  if (!u) return null;
  const port = u.port ? Number(u.port) : u.protocol === 'wss:' ? 443 : 80;
  return { sipIp: u.hostname, sipPort: port };
}

/**
 * CALL-14 (design): Authenticate opens the call server's address as https (http for ws) in a new tab, where
 * the browser can accept a certificate it does not trust yet; a WebSocket cannot ask for that itself.
 */
export function authenticateUrlOf(value: string): string | null {
  const u = parseSipWsUrl(value);
  if (!u) return null;
  return `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}/`;
}

/** CALL-43, CALL-44: `GET /api/call/config`: the account's own call server, and the installation's. */
export const CallConfig = z.object({
  /** The account's own address, or null to use the installation's. */
  sip_ws_url: z.string().nullable(),
  /** The installation's address (`SIP_WS_URL`), '' when none is set. */
  default_url: z.string(),
});
export type CallConfig = z.infer<typeof CallConfig>;
export const CallConfigAnswer = z.object({ result: z.literal('success'), data: CallConfig });

/** `POST /api/call/config`: a ws:// or wss:// address of at most 300 characters, or null (or '') for none. */
export const CallConfigInput = z.object({
  sip_ws_url: z
    .string()
    .trim()
    .max(300, CALL_STRINGS.badUrl)
    .nullable()
    .transform((v) => (v ? v : null))
    .refine((v) => v === null || parseSipWsUrl(v) !== null, CALL_STRINGS.badUrl),
});
export type CallConfigInput = z.input<typeof CallConfigInput>;
