import { describe, expect, it } from 'vitest';
import { type CallServerState, type UserAgentLike, watchCallServer } from './callServer';

/** A user agent whose events the test fires, as JsSIP's would. */
function fakeAgent() {
  const handlers = new Map<string, () => void>();
  const agent = {
    started: 0,
    stopped: 0,
    on(e: string, f: () => void) {
      handlers.set(e, f);
    },
    start() {
      agent.started++;
    },
    stop() {
      agent.stopped++;
    },
    fire(e: string) {
      handlers.get(e)?.();
    },
  };
  return agent;
}

describe('the call-server indicator', () => {
  it('CALL-09 CALL-10 CALL-11 connecting (orange) until registered (green); a lost socket is an error that stays until a retry', () => {
    const ua = fakeAgent();
    const states: CallServerState[] = [];
    watchCallServer(
      () => ua as UserAgentLike,
      (s) => states.push(s),
    );
    expect(ua.started).toBe(1);
    ua.fire('connecting');
    ua.fire('registered');
    expect(states).toEqual(['connecting', 'connecting', 'connected']);
    ua.fire('disconnected');
    expect(states.at(-1)).toBe('error');
    expect(ua.stopped).toBe(1);
    // The stopped agent's later events change nothing: no flicker back to orange.
    ua.fire('connecting');
    ua.fire('registered');
    expect(states.at(-1)).toBe('error');
  });

  it('CALL-11 a refused registration is an error; stopping after it does not stop twice', () => {
    const ua = fakeAgent();
    const states: CallServerState[] = [];
    const w = watchCallServer(
      () => ua as UserAgentLike,
      (s) => states.push(s),
    );
    ua.fire('registrationFailed');
    expect(states).toEqual(['connecting', 'error']);
    w.stop();
    expect(ua.stopped).toBe(1);
  });
});
