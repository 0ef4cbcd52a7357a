import { beforeEach, describe, expect, it } from 'vitest';
import { type CallSessionLike, incomingCall, offerIncoming, setRinging } from './incomingCall';

/** A JsSIP-like incoming session whose events the test fires; it records what the app asked of it. */
function fakeSession(display_name: string, user: string) {
  const handlers = new Map<string, (() => void)[]>();
  const s = {
    remote_identity: { display_name, uri: { user } },
    answered: [] as unknown[],
    terminated: [] as unknown[],
    on(e: string, f: () => void) {
      handlers.set(e, [...(handlers.get(e) ?? []), f]);
    },
    answer(o: unknown) {
      s.answered.push(o);
    },
    terminate(o?: unknown) {
      s.terminated.push(o ?? {});
    },
    fire(e: string) {
      for (const f of handlers.get(e) ?? []) f();
    },
  };
  return s;
}
const invite = (headers: Record<string, string>) => ({ getHeader: (n: string) => headers[n] });

describe('the Incoming Call entry state', () => {
  let rings: string[];
  beforeEach(() => {
    rings = [];
    setRinging({ start: () => rings.push('start'), stop: () => rings.push('stop') });
    incomingCall.hangUp(); // whatever an earlier test left
  });

  it('NAV-17 CALL-15 CALL-22 a ringing call names the caller, the number and the keypress; it rings', () => {
    const s = fakeSession('Carol Caller', '2001');
    offerIncoming(s as unknown as CallSessionLike, invite({ 'X-Keypress': '12' }));
    expect(incomingCall.get()).toEqual({
      name: 'Carol Caller',
      number: '2001',
      keypress: 'English · Aircon',
      state: 'ringing',
    });
    expect(rings).toEqual(['start']);
    s.fire('failed'); // the caller gave up
    expect(incomingCall.get()).toBe(null);
    expect(rings).toEqual(['start', 'stop']);
  });

  it('CALL-16 Decline refuses the call (486); Accept answers with audio only, then Hang up ends it', () => {
    const a = fakeSession('', '2002');
    offerIncoming(a as unknown as CallSessionLike, invite({}));
    expect(incomingCall.get()).toMatchObject({ name: 'Unknown caller', keypress: null });
    incomingCall.decline();
    expect(a.terminated).toEqual([{ status_code: 486, reason_phrase: 'Busy Here' }]);
    a.fire('failed');
    expect(incomingCall.get()).toBe(null);

    const b = fakeSession('Dan', '2003');
    offerIncoming(b as unknown as CallSessionLike, invite({ 'X-Keypress': '9' }));
    expect(incomingCall.get()?.keypress).toBe('Unknown Keypress 9');
    incomingCall.accept();
    expect(b.answered).toEqual([{ mediaConstraints: { audio: true, video: false } }]);
    b.fire('accepted');
    expect(incomingCall.get()?.state).toBe('active');
    incomingCall.decline(); // nothing to decline once up
    expect(b.terminated).toEqual([]);
    incomingCall.hangUp();
    expect(b.terminated).toEqual([{}]);
    b.fire('ended');
    expect(incomingCall.get()).toBe(null);
  });

  it('NAV-17 one call at a time: another while one rings is answered Busy Here and changes nothing', () => {
    const first = fakeSession('First', '1');
    offerIncoming(first as unknown as CallSessionLike, invite({}));
    const second = fakeSession('Second', '2');
    offerIncoming(second as unknown as CallSessionLike, invite({}));
    expect(second.terminated).toEqual([{ status_code: 486, reason_phrase: 'Busy Here' }]);
    expect(incomingCall.get()?.name).toBe('First');
    second.fire('failed'); // the refused call's end is not the ringing one's
    expect(incomingCall.get()?.name).toBe('First');
    first.fire('ended');
  });
});
