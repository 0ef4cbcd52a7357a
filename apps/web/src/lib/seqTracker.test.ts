import { describe, expect, it } from 'vitest';
import { SeqTracker } from './seqTracker';

describe('realtime sequence tracking', () => {
  it('FOUNDATION an event seen twice is applied once; out-of-order events are all applied', () => {
    const t = new SeqTracker();
    t.caughtUp(4);
    expect([5, 6, 6, 8, 7, 5].map((s) => t.accept(s))).toEqual([true, true, false, true, true, false]);
    expect(t.last).toBe(8);
  });

  it('RT-01 RT-42 after a reconnect the client asks from its confirmed floor, so an overtaken event still comes', () => {
    const t = new SeqTracker();
    t.caughtUp(299);
    for (const s of [300, 301, 303]) t.accept(s); // 302 was overtaken and not yet received
    expect(t.hasGap()).toBe(true);
    expect(t.resumeFrom()).toBe(299);
    // The server's catch-up sends everything after 299 up to its head; only 302 is new.
    expect([300, 301, 302, 303].filter((s) => t.accept(s))).toEqual([302]);
    t.caughtUp(303);
    expect(t.hasGap()).toBe(false);
    expect(t.resumeFrom()).toBe(303);
    // A late repeat below the floor is dropped.
    expect(t.accept(250)).toBe(false);
  });

  it('FOUNDATION memory stays bounded and very old numbers are dropped', () => {
    const t = new SeqTracker(100);
    t.caughtUp(0);
    for (let s = 1; s <= 1000; s++) t.accept(s);
    expect(t.accept(850)).toBe(false); // far behind: treated as applied
    expect(t.accept(1001)).toBe(true);
    expect(t.accept(-1)).toBe(false);
    expect(t.accept(1.5)).toBe(false);
  });

  it('FOUNDATION a first connection asks for nothing; a catch-up head moves the resume point', () => {
    const t = new SeqTracker();
    expect(t.resumeFrom()).toBeUndefined();
    t.caughtUp(40);
    expect(t.resumeFrom()).toBe(40);
    expect(t.hasGap()).toBe(false);
  });
});
