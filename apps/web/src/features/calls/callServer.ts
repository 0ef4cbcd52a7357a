import type { CallRequestLike, CallSessionLike } from './incomingCall';

/** CALL-09 .. CALL-11: the state the call-server indicator shows. */
export type CallServerState = 'connecting' | 'connected' | 'error';

export interface CallServerLine {
  /** SIP over WebSocket (`wss://pbx.example/ws`). */
  url: string;
  /** The user's SIP number and password (the auth check's `sip`). */
  number: string;
  password: string;
}

/** What the indicator needs of a user agent: its events and a way to stop it. */
export interface UserAgentLike {
  on(event: 'connecting' | 'registered' | 'registrationFailed' | 'disconnected', f: () => void): void;
  start(): void;
  stop(): void;
}

/**
 * Connects a softphone line to its call server and reports the indicator's state: connecting until the line
 * is registered (connected), error when the socket closes or registration is refused. After an error the
 * user agent is stopped rather than left retrying on its own: the red icon stays until the user clicks it
 * (CALL-11), so the indicator never flickers between orange and red.
 */
export function watchCallServer(
  makeAgent: () => UserAgentLike,
  onState: (s: CallServerState) => void,
): { stop(): void } {
  const ua = makeAgent();
  let stopped = false;
  const set = (s: CallServerState) => {
    if (!stopped) onState(s);
  };
  const fail = () => {
    set('error');
    stopped = true;
    ua.stop();
  };
  ua.on('connecting', () => set('connecting'));
  ua.on('registered', () => set('connected'));
  ua.on('registrationFailed', fail);
  ua.on('disconnected', fail);
  set('connecting');
  ua.start();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      ua.stop();
    },
  };
}

/** NAV-17: a user agent that tells of calls set up by either side (an RTCSession, and an incoming one's INVITE). */
export interface CallingAgent {
  on(
    event: 'newRTCSession',
    f: (e: { originator: 'local' | 'remote'; session: CallSessionLike; request: CallRequestLike }) => void,
  ): void;
}

/** A JsSIP user agent for the line, loaded on demand (only users with an active line download it). */
export async function jssipAgent(line: CallServerLine): Promise<UserAgentLike & CallingAgent> {
  const JsSIP = await import('jssip');
  const host = new URL(line.url).hostname;
  return new JsSIP.UA({
    sockets: [new JsSIP.WebSocketInterface(line.url)],
    uri: `sip:${line.number}@${host}`,
    password: line.password,
    register: true,
    session_timers: false,
  }) as unknown as UserAgentLike & CallingAgent;
}
