import type { ServerToClient } from '@parley/contracts';
import { io, type Socket } from 'socket.io-client';
import { SeqTracker } from './seqTracker';

type Handler = (data: unknown, seq: number) => void;

/** How long live events may run ahead of the confirmed floor before the client asks what it missed. */
const GAP_FILL_MS = 3_000;
/**
 * `GET /api/events` answers 1,000 events a page. A gap fill fetches the next page while there is one, up
 * to 5 pages (5,000 events, as many as a reconnect's catch-up): further behind than that, reloading the
 * views (`resync`) is cheaper than replaying every event.
 */
export const GAP_FILL_PAGES = 5;

type CatchUp = { events: { name: string; seq: number; data: unknown }[]; head: number; complete: boolean };
/** RT-04: socket retry delay. */
export const RETRY_MS = 5_000;

/**
 * The realtime connection. It remembers the last sequence number it applied; after any reconnect it
 * asks for the events it missed, so nothing is lost whichever server node it lands on. An event seen
 * twice (catch-up overlapping live delivery) is applied once.
 */
export class RealtimeClient {
  private socket: Socket | null = null;
  private readonly seqs = new SeqTracker();
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly stateListeners = new Set<(connected: boolean) => void>();
  connected = false;

  constructor(private readonly opts: { gapFillMs?: number } = {}) {}

  connect(): void {
    if (this.socket) return;
    const socket = io({
      path: '/socket.io',
      withCredentials: true,
      // RT-01, RT-04: a dropped connection is retried after 5 s, every time (no random spread).
      reconnectionDelay: RETRY_MS,
      reconnectionDelayMax: RETRY_MS,
      randomizationFactor: 0,
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
    socket.on('catchUp', (e: Parameters<ServerToClient['catchUp']>[0]) => this.applyCatchUp(e));
    socket.onAny((name: string, payload: { seq?: number; data?: unknown }) => {
      if (name === 'catchUp' || typeof payload?.seq !== 'number') return;
      this.apply(name, payload.seq, payload.data);
      if (this.seqs.hasGap()) this.scheduleGapFill();
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

  /**
   * A catch-up (socket or HTTP) delivers everything up to its head. One that was cut short (the client was
   * away too long) cannot be replayed event by event: the views reload instead (`resync`).
   */
  private applyCatchUp(e: CatchUp) {
    for (const ev of e.events) this.apply(ev.name, ev.seq, ev.data);
    this.seqs.caughtUp(e.head);
    if (!e.complete) for (const h of this.handlers.get('resync') ?? []) h(null, e.head);
  }

  /**
   * Live events ran ahead of the confirmed floor (an event may have been overtaken between two nodes):
   * once things are quiet for a moment, ask `GET /api/events` for what is after the floor. It moves the
   * floor up, so a later reconnect asks for little.
   */
  private scheduleGapFill(): void {
    if (this.gapTimer !== null) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      void this.fillGap();
    }, this.opts.gapFillMs ?? GAP_FILL_MS);
  }

  /**
   * Asks for the events after the floor, page after page: a full page (`complete: false`) is applied and
   * the next one fetched at once, so a busy account's gap never reloads the views. Only past GAP_FILL_PAGES
   * pages is the last one taken as cut short (`resync`).
   */
  private async fillGap(): Promise<void> {
    let after = this.seqs.resumeFrom();
    if (after === undefined || !this.seqs.hasGap() || !this.connected) return;
    try {
      for (let page = 1; ; page++) {
        const res = await fetch(`${globalThis.location?.origin ?? ''}/api/events?after=${after}`, {
          credentials: 'include',
        });
        if (!res.ok) break;
        const e = (await res.json()) as CatchUp;
        const more = !e.complete && page < GAP_FILL_PAGES && e.head > after;
        this.applyCatchUp(more ? { ...e, complete: true } : e);
        if (!more) break;
        after = e.head;
      }
    } catch {
      // offline: the reconnect's catch-up does the same
    }
    if (this.seqs.hasGap()) this.scheduleGapFill();
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
