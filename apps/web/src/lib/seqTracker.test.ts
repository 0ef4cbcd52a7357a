import { describe, expect, it } from 'vitest';
import { SeqTracker } from './seqTracker';

describe('realtime sequence tracking', () => {
  it('FOUNDATION an event seen twice is applied once; out-of-order events are all applied', () => {
    const t = new SeqTracker();
    expect([5, 6, 6, 8, 7, 5].map((s) => t.accept(s))).toEqual([true, true, false, true, true, false]);
    expect(t.last).toBe(8);
  });

  it('FOUNDATION after a reconnect the client asks from before an overtaken event, and drops repeats', () => {
    const t = new SeqTracker(200);
    for (const s of [300, 301, 303]) t.accept(s); // 302 was overtaken and not yet received
    const from = t.resumeFrom();
    expect(from).toBe(103);
    // The server's catch-up sends what is after `from`; only 302 is new.
    const replay = [250, 300, 301, 302, 303].filter((s) => s > (from ?? 0));
    expect(replay.filter((s) => t.accept(s))).toEqual([250, 302]);
  });

  it('FOUNDATION memory stays bounded and very old numbers are dropped', () => {
    const t = new SeqTracker(10, 100);
    for (let s = 1; s <= 1000; s++) t.accept(s);
    expect(t.accept(850)).toBe(false); // far behind: treated as applied
    expect(t.accept(1001)).toBe(true);
    expect(t.accept(-1)).toBe(false);
    expect(t.accept(1.5)).toBe(false);
  });

  it('FOUNDATION a first connection asks for nothing; a catch-up head moves the resume point', () => {
    const t = new SeqTracker(5);
    expect(t.resumeFrom()).toBeUndefined();
    t.caughtUp(40);
    expect(t.resumeFrom()).toBe(35);
  });
});
