import type { VisitorClientToServer, VisitorMessage, VisitorServerToClient } from '@parley/contracts';
// The zod-free part of the contracts: this file is part of the widget's light page too.
import { VISITOR_NAMESPACE } from '@parley/contracts/visitor';
import { io, type Socket } from 'socket.io-client';

export type VisitorSocket = Socket<VisitorServerToClient, VisitorClientToServer>;

const key = (token: string) => `parley.visitor.${token}`;
const memory = new Map<string, string>();
/** The visitor's csrf for this link, kept in the browser (partitioned storage inside a widget's frame). */
export const storedCsrf = {
  get(token: string): string | undefined {
    try {
      return localStorage.getItem(key(token)) ?? undefined;
    } catch {
      return memory.get(token);
    }
  },
  set(token: string, csrf: string) {
    memory.set(token, csrf);
    try {
      localStorage.setItem(key(token), csrf);
    } catch {
      // storage blocked: this page keeps it in memory
    }
  },
  clear(token: string) {
    memory.delete(token);
    try {
      localStorage.removeItem(key(token));
    } catch {
      // nothing stored
    }
  },
};

/** The visitor socket: reconnects every second while the network is away. */
export function openVisitorSocket(token: string, csrf: string): VisitorSocket {
  const s: VisitorSocket = io(VISITOR_NAMESPACE, {
    path: '/socket.io',
    auth: { token, csrf },
    reconnectionDelay: 1000,
    reconnectionDelayMax: 2000,
    transports: ['websocket', 'polling'],
  });
  // The browser knows at once when the network goes: tell the visitor then, not after a ping timeout.
  const offline = () => s.io.engine?.close();
  window.addEventListener('offline', offline);
  const close = s.close.bind(s);
  s.close = () => {
    window.removeEventListener('offline', offline);
    return close();
  };
  return s;
}

/** Messages by id, in order; a sent message replaces its pending copy (same clientId). */
export function mergeMessages(list: VisitorMessage[], add: VisitorMessage[]): VisitorMessage[] {
  const byId = new Map<string, VisitorMessage>();
  for (const m of [...list, ...add]) {
    if (m.clientId && m.id > 0) byId.delete(`c:${m.clientId}`);
    const k = m.id > 0 ? `i:${m.id}` : `c:${m.clientId}`;
    if (m.id <= 0 && m.clientId && [...byId.values()].some((x) => x.clientId === m.clientId && x.id > 0)) continue;
    byId.set(k, m);
  }
  return [...byId.values()].sort((a, b) => (a.id <= 0 ? 1 : b.id <= 0 ? -1 : a.id - b.id));
}

export const queueId = () => {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = 'queue-';
  const r = crypto.getRandomValues(new Uint8Array(10));
  for (const b of r) s += abc[b % abc.length];
  return s;
};

/** VISITOR-24 (design): a short two-tone chime made in the browser (no sound file to load). */
export function chime(): void {
  try {
    const ctx = new AudioContext();
    for (const [i, f] of [660, 880].entries()) {
      const o = ctx.createOscillator();
      const g = ctx.createGain();
      o.frequency.value = f;
      g.gain.value = 0.1;
      o.connect(g).connect(ctx.destination);
      o.start(ctx.currentTime + i * 0.15);
      o.stop(ctx.currentTime + i * 0.15 + 0.14);
    }
  } catch {
    // no audio in this browser
  }
}
