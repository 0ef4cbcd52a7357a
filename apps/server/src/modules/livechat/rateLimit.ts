/**
 * A fixed-window counter per key (IP or visitor session), in this node's memory. Visitors are never
 * trusted: registering (info, register, registerQueue) and sending are limited. Design: per node is
 * enough here, a flood to several nodes is still bounded by each node's limit.
 */
export class RateLimit {
  private readonly hits = new Map<string, { start: number; n: number }>();
  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Counts one hit; false when the key has used up its window. */
  take(key: string, now = Date.now()): boolean {
    const h = this.hits.get(key);
    if (!h || now - h.start >= this.windowMs) {
      if (this.hits.size > 50_000) this.prune(now);
      this.hits.set(key, { start: now, n: 1 });
      return true;
    }
    h.n += 1;
    return h.n <= this.max;
  }

  private prune(now: number) {
    for (const [k, h] of this.hits) if (now - h.start >= this.windowMs) this.hits.delete(k);
  }
}

/**
 * The visitor's IP address, derived one way for HTTP calls and the visitor socket. Behind a trusted proxy
 * (TRUST_PROXY=true) it is the first address of X-Forwarded-For, as Fastify's `req.ip` takes it; otherwise
 * the header is ignored (anyone could send it) and the connection's own address counts.
 */
export function clientIp(remote: string | undefined, forwardedFor: string | string[] | undefined, trust: boolean) {
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const first = trust ? header?.split(',')[0]?.trim() : undefined;
  const ip = first || remote || 'unknown';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/**
 * The limits of one node's visitor traffic, shared by the HTTP routes and the visitor socket: one IP has
 * one register budget whichever way it calls.
 */
export interface VisitorLimits {
  trustProxy: boolean;
  register: RateLimit;
  message: RateLimit;
}
export const visitorLimits = (trustProxy: boolean): VisitorLimits => ({
  trustProxy,
  register: new RateLimit(REGISTER_LIMIT.max, REGISTER_LIMIT.windowMs),
  message: new RateLimit(MESSAGE_LIMIT.max, MESSAGE_LIMIT.windowMs),
});

/** Register calls (info, register, registerQueue, rate) per IP: 40 in 10 s. */
export const REGISTER_LIMIT = { max: 40, windowMs: 10_000 };
/** Visitor messages per visitor session: 20 in 10 s. */
export const MESSAGE_LIMIT = { max: 20, windowMs: 10_000 };
