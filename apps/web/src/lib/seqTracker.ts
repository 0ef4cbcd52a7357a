/**
 * Which events a client has applied, by the account's sequence number. Events can arrive out of order
 * (two server nodes relaying around a lease hand-off) and twice (catch-up overlapping live delivery).
 * `accept` says whether an event is new; `resumeFrom` is what to ask for after a reconnect: a little before
 * the highest applied number, so an event overtaken by a later one is still fetched; what was already
 * applied is then dropped by `accept`.
 */
export class SeqTracker {
  private readonly seen = new Set<number>();
  private highest: number | undefined;

  constructor(
    private readonly rewind = 200,
    private readonly keep = 5000,
  ) {}

  get last(): number | undefined {
    return this.highest;
  }

  accept(seq: number): boolean {
    if (!Number.isInteger(seq) || seq < 0 || this.seen.has(seq)) return false;
    // Older than anything we still remember: it was applied long ago (or is far too late to matter).
    if (this.highest !== undefined && seq <= this.highest - this.keep) return false;
    this.seen.add(seq);
    this.highest = Math.max(this.highest ?? 0, seq);
    if (this.seen.size > this.keep) {
      const floor = this.highest - this.keep;
      for (const s of this.seen) if (s <= floor) this.seen.delete(s);
    }
    return true;
  }

  /** After a catch-up: everything up to `head` that this client may see has been delivered. */
  caughtUp(head: number): void {
    this.highest = Math.max(this.highest ?? 0, head);
  }

  resumeFrom(): number | undefined {
    return this.highest === undefined ? undefined : Math.max(0, this.highest - this.rewind);
  }
}
