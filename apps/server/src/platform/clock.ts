/**
 * The server's clock: the time in milliseconds since the epoch, and optionally the timers that go with it.
 * Everything that decides by time (the SLA engine, the scheduler's leases, presence's grace, announcement
 * expiry, the session cache) reads one clock, so a test can move time by hand instead of waiting for it.
 * A bare `() => number` is a clock too; without timers of its own it uses the process's.
 */
export interface Clock {
  (): number;
  timers?: Timers;
}

/** A pending timer: what `clearTimeout`/`clearInterval` take back. */
export type TimerHandle = { unref?(): unknown };

export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(t: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(t: TimerHandle): void;
}

const processTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (t) => clearInterval(t as NodeJS.Timeout),
};

/** The real time and the process's timers: the product default. */
export const systemClock: Clock = Object.assign(() => Date.now(), { timers: processTimers });

/** The timers of a clock: its own, or the process's. */
export const timersOf = (clock: Clock): Timers => clock.timers ?? processTimers;
