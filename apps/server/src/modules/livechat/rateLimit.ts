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

/** Register calls (info, register, registerQueue, rate) per IP: 40 in 10 s. */
export const REGISTER_LIMIT = { max: 40, windowMs: 10_000 };
/** Visitor messages per visitor session: 20 in 10 s. */
export const MESSAGE_LIMIT = { max: 20, windowMs: 10_000 };
