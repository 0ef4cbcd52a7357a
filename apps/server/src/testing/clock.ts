import type { Clock, TimerHandle, Timers } from '../platform/clock.js';

/**
 * A clock a test moves by hand. It reads the real time plus what the test has added (`advance`), so rows
 * written with the real time elsewhere never look newer than it; its timers fire only when the test
 * advances it past their time, in time order, never by themselves.
 */
export interface ManualClock extends Clock {
  timers: Timers;
  /** Moves the time on by `ms` and runs every timer that falls due on the way, in order. */
  advance(ms: number): void;
  /** How many timers are pending (intervals count while armed). */
  pending(): number;
}

interface Pending {
  at: number;
  fn: () => void;
  /** Set for an interval: its period. */
  every?: number;
  order: number;
}

export function manualClock(): ManualClock {
  let offset = 0;
  let order = 0;
  const pending = new Set<Pending>();
  const now = () => Date.now() + offset;
  const add = (fn: () => void, ms: number, every?: number): TimerHandle => {
    const p: Pending = { at: now() + Math.max(0, ms), fn, every, order: order++ };
    pending.add(p);
    return p as TimerHandle;
  };
  const remove = (t: TimerHandle) => void pending.delete(t as Pending);
  const timers: Timers = {
    setTimeout: (fn, ms) => add(fn, ms),
    clearTimeout: remove,
    setInterval: (fn, ms) => add(fn, ms, Math.max(1, ms)),
    clearInterval: remove,
  };
  const advance = (ms: number) => {
    const target = now() + ms;
    for (;;) {
      const due = [...pending].filter((p) => p.at <= target).sort((x, y) => x.at - y.at || x.order - y.order)[0];
      if (!due) break;
      // The time is the timer's own while it runs, as it would be on a real clock.
      offset = Math.max(offset, due.at - Date.now());
      if (due.every === undefined) pending.delete(due);
      else due.at += due.every;
      due.fn();
    }
    offset = Math.max(offset, target - Date.now());
  };
  return Object.assign(now, { timers, advance, pending: () => pending.size });
}
