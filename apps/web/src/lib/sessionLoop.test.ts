import type { AuthCheckAnswer } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { settle } from '../testing/waitFor.test-support';
import { SessionLoop } from './sessionLoop';

const good: AuthCheckAnswer = { result: 'success', token: '', refresh_token: '', adminName: 'Ann' };
const bad: AuthCheckAnswer = { result: 'failed', token: '', refresh_token: '' };

/** A loop over a scripted server and a manual clock. */
function harness(script: (AuthCheckAnswer | number)[]) {
  const timers: { fn: () => void; ms: number }[] = [];
  const calls = { reload: 0, resync: 0, checks: 0 };
  const loop = new SessionLoop({
    async check() {
      calls.checks++;
      const next = script.shift();
      if (next === undefined) throw new Error('script ran out');
      if (typeof next === 'number') throw { status: next };
      return next;
    },
    reload: () => calls.reload++,
    resync: () => calls.resync++,
    setTimer: (fn, ms) => timers.push({ fn, ms }),
    clearTimer: () => {},
  });
  /** Fires the last timer set and waits for the check it starts. */
  const tick = async () => {
    const t = timers.at(-1);
    if (!t) throw new Error('no timer');
    timers.length = 0;
    t.fn();
    // The scripted check and the loop's handling of it are promise jobs only.
    await settle();
    return t.ms;
  };
  return { loop, timers, calls, tick };
}

describe('session loop', () => {
  it('AUTH-20 checks again every 300000 ms while signed in', async () => {
    const h = harness([good, good]);
    await h.loop.checkNow();
    expect(h.loop.state.phase).toBe('signedIn');
    expect(h.timers[0]?.ms).toBe(300_000);
    expect(await h.tick()).toBe(300_000);
    expect(h.calls.checks).toBe(2);
  });

  it('AUTH-21 an invalid result while signed in reloads the page; on first load it shows sign-in', async () => {
    const first = harness([bad]);
    await first.loop.checkNow();
    expect(first.loop.state.phase).toBe('signedOut');
    expect(first.calls.reload).toBe(0);

    const later = harness([good, bad]);
    await later.loop.checkNow();
    await later.tick();
    expect(later.calls.reload).toBe(1);
  });

  it('AUTH-22 AUTH-23 a failed request retries every 5 s; only 403 and 500 count', async () => {
    const h = harness([0, 502, 404, 403, good]);
    await h.loop.checkNow();
    expect(h.timers[0]?.ms).toBe(5000);
    expect(h.loop.retries).toBe(0);
    await h.tick(); // 502: not counted
    await h.tick(); // 404: not counted
    expect(h.loop.retries).toBe(0);
    await h.tick(); // 403: counted
    expect(h.loop.retries).toBe(1);
    await h.tick();
    expect(h.loop.state.phase).toBe('signedIn');
  });

  it('AUTH-24 more than 5 counted failures show the network-error screen', async () => {
    const h = harness([500, 403, 500, 403, 500, 500]);
    await h.loop.checkNow();
    for (let i = 0; i < 4; i++) await h.tick();
    expect(h.loop.retries).toBe(5);
    expect(h.loop.state.phase).not.toBe('networkError');
    await h.tick();
    expect(h.loop.retries).toBe(6);
    expect(h.loop.state.phase).toBe('networkError');
    expect(h.timers).toHaveLength(0); // the loop waits for Reload or Log Out
  });

  it('AUTH-25 a good check resets the count and re-syncs after failures', async () => {
    const h = harness([good, 500, 500, good, good]);
    await h.loop.checkNow();
    expect(h.calls.resync).toBe(0);
    await h.tick();
    await h.tick();
    expect(h.loop.retries).toBe(2);
    await h.tick();
    expect(h.loop.retries).toBe(0);
    expect(h.calls.resync).toBe(1);
    await h.tick();
    expect(h.calls.resync).toBe(1);
  });
});
