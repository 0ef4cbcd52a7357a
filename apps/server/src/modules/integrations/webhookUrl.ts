import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { INTEGRATION_STRINGS } from '@parley/contracts';
import { type AllowedPushHost, isPrivateAddress, publicOnlyLookup } from '../notifications/pushEndpoints.js';

/** A `host` or `host:port` the operator allows besides public https URLs (WEBHOOK_ALLOWED_HOSTS). */
export type AllowedWebhookHost = AllowedPushHost;

/**
 * Why a webhook URL is refused, or null when it may be saved. https to a public host, or any http(s) URL on
 * a host the operator allows (a test receiver on 127.0.0.1). A literal private address or `localhost` is
 * refused here; a name is checked again each time it is sent to (`publicOnlyLookup`), so one that resolves to
 * a private address, then or later (DNS rebinding), is never connected to.
 */
export function webhookUrlProblem(raw: string, allowed: readonly AllowedWebhookHost[]): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return INTEGRATION_STRINGS.badUrl;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || !u.hostname)
    return INTEGRATION_STRINGS.badUrl;
  if (isAllowed(u, allowed)) return null;
  if (u.protocol !== 'https:') return INTEGRATION_STRINGS.httpsOnly;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIP(host)) return isPrivateAddress(host) ? INTEGRATION_STRINGS.privateAddress : null;
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.'))
    return INTEGRATION_STRINGS.privateAddress;
  return null;
}

const isAllowed = (u: URL, allowed: readonly AllowedWebhookHost[]) =>
  allowed.some((a) => a.host === u.hostname && a.port === u.port);

/** Connects to public addresses only: the name is resolved and checked for each new connection. */
const publicAgent = new https.Agent({ keepAlive: true, lookup: publicOnlyLookup as never });

/** How long a receiver has to answer one delivery. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Posts a delivery and answers the receiver's HTTP status; throws when there is none (refused, timed out, a
 * private address). The answer's body is read and dropped. The error never carries the URL (its query may
 * hold the receiver's own secret).
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  allowed: readonly AllowedWebhookHost[],
): Promise<number> {
  const u = new URL(url);
  const trusted = isAllowed(u, allowed);
  if (!trusted && u.protocol !== 'https:') return Promise.reject(new Error(INTEGRATION_STRINGS.httpsOnly));
  const send = u.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(
      u,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        timeout: WEBHOOK_TIMEOUT_MS,
        ...(trusted ? {} : { agent: publicAgent }),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('The receiver did not answer in time.')));
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EPUSHADDRESS' ? INTEGRATION_STRINGS.privateAddress : err.message)),
    );
    req.end(body);
  });
}
