import type { ServerToClient } from '@parley/contracts';
import { io, type Socket } from 'socket.io-client';
import { SeqTracker } from './seqTracker';

type Handler = (data: unknown, seq: number) => void;

/**
 * The realtime connection. It remembers the last sequence number it applied; after any reconnect it
 * asks for the events it missed, so nothing is lost whichever server node it lands on. An event seen
 * twice (catch-up overlapping live delivery) is applied once.
 */
export class RealtimeClient {
  private socket: Socket | null = null;
  private readonly seqs = new SeqTracker();
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly stateListeners = new Set<(connected: boolean) => void>();
  connected = false;

  connect(): void {
    if (this.socket) return;
    const socket = io({
      path: '/socket.io',
      withCredentials: true,
      reconnectionDelay: 5000,
      reconnectionDelayMax: 5000,
      auth: (cb) => {
        const from = this.seqs.resumeFrom();
        cb(from === undefined ? {} : { lastSeq: from });
      },
    });
    socket.on('connect', () => {
      this.setConnected(true);
      // STATUS-14: say we are here; an agent shown Offline becomes Online again.
      socket.emit('tellOnline');
    });
    socket.on('disconnect', () => this.setConnected(false));
    socket.on('catchUp', (e: Parameters<ServerToClient['catchUp']>[0]) => {
      for (const ev of e.events) this.apply(ev.name, ev.seq, ev.data);
      this.seqs.caughtUp(e.head);
    });
    socket.onAny((name: string, payload: { seq?: number; data?: unknown }) => {
      if (name === 'catchUp' || typeof payload?.seq !== 'number') return;
      this.apply(name, payload.seq, payload.data);
    });
    this.socket = socket;
  }

  /** Drops and re-opens the connection; the handshake carries lastSeq, so the server sends what was missed. */
  reconnect(): void {
    if (!this.socket) return;
    this.socket.disconnect().connect();
  }

  lastApplied(): number | undefined {
    return this.seqs.last;
  }

  /** A socket exists (connected or trying to); false after `disconnect()`. */
  isOpen(): boolean {
    return this.socket !== null;
  }

  disconnect(): void {
    this.socket?.disconnect();
    this.socket = null;
    this.setConnected(false);
  }

  /** Sends a client event and waits for the server's acknowledgement (rejects after `timeoutMs`). */
  request<T>(name: string, timeoutMs = 10_000): Promise<T> {
    const socket = this.socket;
    if (!socket?.connected) return Promise.reject(new Error('not connected'));
    return socket.timeout(timeoutMs).emitWithAck(name) as Promise<T>;
  }

  on(name: string, h: Handler): () => void {
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
    }
    set.add(h);
    return () => set.delete(h);
  }

  onState(fn: (connected: boolean) => void): () => void {
    this.stateListeners.add(fn);
    return () => {
      this.stateListeners.delete(fn);
    };
  }

  private apply(name: string, seq: number, data: unknown): void {
    if (!this.seqs.accept(seq)) return;
    for (const h of this.handlers.get(name) ?? []) h(data, seq);
  }

  private setConnected(v: boolean): void {
    this.connected = v;
    for (const fn of this.stateListeners) fn(v);
  }
}

export const realtime = new RealtimeClient();
