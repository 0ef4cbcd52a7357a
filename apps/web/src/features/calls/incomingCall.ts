import { INCOMING_CALL_STRINGS, keypressLabel } from '@parley/contracts';
import { createStore, useStore } from '../../lib/store';

/** What the Incoming Call entry shows (NAV-17, CALL-15): who is calling and what they pressed. */
export interface IncomingCall {
  name: string;
  number: string;
  /** The phone menu choice as shown ("English · Aircon"), null when the call server sent none. */
  keypress: string | null;
  /** Ringing until answered; active while the call is up. */
  state: 'ringing' | 'active';
}

/** The part of a JsSIP RTCSession this uses (a scripted one in tests). */
export interface CallSessionLike {
  remote_identity: { display_name?: string; uri: { user: string } };
  connection?: RTCPeerConnection | null;
  on(event: 'accepted' | 'confirmed' | 'ended' | 'failed', f: () => void): void;
  answer(options: { mediaConstraints: MediaStreamConstraints }): void;
  terminate(options?: { status_code?: number; reason_phrase?: string }): void;
}
/** The INVITE that brought the call. */
export interface CallRequestLike {
  getHeader(name: string): string | undefined;
}

let current: { call: IncomingCall; session: CallSessionLike } | null = null;
/** What the entry shows: the current call, set again whenever `current` changes. */
const shown = createStore<IncomingCall | null>(null);
const emit = () => shown.set(current?.call ?? null);
let sounds: { start(): void; stop(): void } = { start() {}, stop() {} };
/** The ringing sound, given by the app; tests leave it silent. */
export function setRinging(s: typeof sounds): void {
  sounds = s;
}

/** The remote party's audio plays through an element of its own, made when a call comes. */
function playRemoteAudio(session: CallSessionLike) {
  const pc = session.connection;
  if (!pc || typeof document === 'undefined') return;
  const audio = document.createElement('audio');
  audio.autoplay = true;
  audio.dataset.testid = 'call-audio';
  pc.addEventListener('track', (e) => {
    audio.srcObject = e.streams[0] ?? new MediaStream([e.track]);
    void audio.play().catch(() => undefined);
  });
  document.body.append(audio);
  const remove = () => audio.remove();
  session.on('ended', remove);
  session.on('failed', remove);
}

/**
 * A call that reached this softphone (JsSIP `newRTCSession`, originator remote). One call at a time: another
 * while one rings or is up is answered Busy Here. The entry shows while it rings; Decline refuses it (486),
 * Accept answers with audio only (CALL-16); it is forgotten when it ends or fails, on either side.
 */
export function offerIncoming(session: CallSessionLike, request: CallRequestLike): void {
  if (current) {
    session.terminate({ status_code: 486, reason_phrase: 'Busy Here' });
    return;
  }
  const keypress = request.getHeader('X-Keypress');
  const call: IncomingCall = {
    name: session.remote_identity.display_name?.trim() || INCOMING_CALL_STRINGS.unknownCaller,
    number: session.remote_identity.uri.user,
    keypress: keypress ? keypressLabel(keypress) : null,
    state: 'ringing',
  };
  current = { call, session };
  const done = () => {
    if (current?.session !== session) return;
    current = null;
    sounds.stop();
    emit();
  };
  session.on('ended', done);
  session.on('failed', done);
  session.on('accepted', () => {
    if (current?.session !== session) return;
    current = { session, call: { ...current.call, state: 'active' } };
    sounds.stop();
    emit();
  });
  playRemoteAudio(session);
  sounds.start();
  emit();
}

export const incomingCall = {
  get: shown.get,
  subscribe: shown.subscribe,
  accept() {
    if (current?.call.state !== 'ringing') return;
    sounds.stop();
    current.session.answer({ mediaConstraints: { audio: true, video: false } });
  },
  decline() {
    if (current?.call.state !== 'ringing') return;
    current.session.terminate({ status_code: 486, reason_phrase: 'Busy Here' });
  },
  hangUp() {
    current?.session.terminate();
  },
};

export const useIncomingCall = () => useStore(shown);
