/**
 * Which events a client has applied, by the account's sequence number (web app and test clients alike).
 *
 * Events can arrive out of order (two server nodes relaying around a lease hand-off, Redis between nodes)
 * and twice (catch-up overlapping live delivery). `accept` says whether an event is new.
 *
 * The resume point is a confirmed floor, not the highest number seen: a catch-up (on connect, or over HTTP
 * with `GET /api/events`) answers every event up to its `head` that the client may see, so after it
 * nothing at or below `head` can be missing. A live event above the floor does not move it: an event
 * overtaken by it may still be on its way. `hasGap` says live events ran ahead of the floor; the client
 * then asks `GET /api/events?after=floor` when it is quiet, which moves the floor up again.
 */
export class SeqTracker {
  private readonly seen = new Set<number>();
  private highest: number | undefined;
  private floor: number | undefined;

  constructor(private readonly keep = 5000) {}

  get last(): number | undefined {
    return this.highest;
  }

  /** Every event at or below this has been applied (or is not the client's to see). */
  get confirmed(): number | undefined {
    return this.floor;
  }

  accept(seq: number): boolean {
    if (!Number.isInteger(seq) || seq < 0 || this.seen.has(seq)) return false;
    // At or below the floor: a catch-up already delivered everything there; this is a late repeat.
    if (this.floor !== undefined && seq <= this.floor) return false;
    if (this.highest !== undefined && seq <= this.highest - this.keep) return false;
    this.seen.add(seq);
    this.highest = Math.max(this.highest ?? 0, seq);
    if (this.seen.size > this.keep) {
      const drop = this.highest - this.keep;
      for (const s of this.seen) if (s <= drop) this.seen.delete(s);
    }
    return true;
  }

  /** After a complete catch-up up to `head`: everything this client may see up to it was delivered. */
  caughtUp(head: number): void {
    this.floor = Math.max(this.floor ?? 0, head);
    this.highest = Math.max(this.highest ?? 0, head);
  }

  /** What a reconnect asks for: everything after the floor (undefined on a first connection). */
  resumeFrom(): number | undefined {
    return this.floor;
  }

  /** Live events ran ahead of the floor: something overtaken may be missing until the next catch-up. */
  hasGap(): boolean {
    return this.highest !== undefined && this.highest > (this.floor ?? 0);
  }
}
