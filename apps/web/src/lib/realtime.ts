import type { Envelope, ServerToClient } from '@parley/contracts';
import { useEffect, useRef } from 'react';
import { io, type Socket } from 'socket.io-client';
import { SeqTracker } from './seqTracker';

type Payload<K extends keyof ServerToClient> = Parameters<ServerToClient[K]>[0];

/**
 * What `on` hands a handler, by event name: the `data` of every enveloped server event (the contracts'
 * `ServerToClient` map), plus the client's own `resync` (a catch-up was cut short: reload the views).
 * Ephemeral events (typing, read receipts, meeting counts) carry no sequence and never reach `on`.
 */
export type RealtimeEvents = {
  [K in keyof ServerToClient as Payload<K> extends Envelope<unknown> ? K : never]: Payload<K> extends Envelope<infer T>
    ? T
    : never;
} & { resync: null };
export type RealtimeEventName = keyof RealtimeEvents;
export type RealtimeHandler<K extends RealtimeEventName> = (data: RealtimeEvents[K], seq: number) => void;

/**
 * Events the server sends without an envelope (typing, read receipts, meeting counts): no sequence number,
 * no catch-up; a handler sees them only while connected.
 */
export type EphemeralEvents = {
  [K in Exclude<keyof ServerToClient, 'catchUp'> as Payload<K> extends Envelope<unknown> ? never : K]: Payload<K>;
};
export type EphemeralEventName = keyof EphemeralEvents;

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
  private readonly ephemeral = new Map<string, Set<(data: unknown) => void>>();
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
    for (const [name, set] of this.ephemeral) for (const h of set) socket.on(name, h);
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

  /** Calls `h` with each event `name` applied (once per sequence number); returns the unsubscribe. */
  on<K extends RealtimeEventName>(name: K, h: RealtimeHandler<K>): () => void {
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
    }
    // The socket delivers untyped JSON; the contract map says what each name carries.
    const handler = h as Handler;
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Calls `h` with each ephemeral event `name`, on this socket and on any later one; returns the unsubscribe. */
  onEphemeral<K extends EphemeralEventName>(name: K, h: (data: EphemeralEvents[K]) => void): () => void {
    const handler = h as (data: unknown) => void;
    let set = this.ephemeral.get(name);
    if (!set) {
      set = new Set();
      this.ephemeral.set(name, set);
    }
    set.add(handler);
    this.socket?.on(name as string, handler);
    return () => {
      set.delete(handler);
      this.socket?.off(name as string, handler);
    };
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

/**
 * The shared realtime socket. `RealtimeClient` keeps it private and only forwards enveloped events; conversations
 * and chats also need the plain ones (typing, read receipts) and emits with arguments and acks.
 */
export function currentSocket(): Socket | null {
  return (realtime as unknown as { socket: Socket | null }).socket;
}

/**
 * Subscribes a component to realtime events while it is mounted. `names` is one event name or several
 * (one handler for all, e.g. "something changed: refetch"); the latest `handler` is always the one called,
 * so it may close over props and state without re-subscribing.
 */
export function useRealtimeEvent<K extends RealtimeEventName>(
  names: K | readonly K[],
  handler: RealtimeHandler<K>,
  enabled = true,
): void {
  const latest = useRef(handler);
  latest.current = handler;
  const key = typeof names === 'string' ? names : names.join(',');
  useEffect(() => {
    if (!enabled) return;
    const offs = (key.split(',') as K[]).map((n) => realtime.on(n, (d, seq) => latest.current(d, seq)));
    return () => {
      for (const off of offs) off();
    };
  }, [key, enabled]);
}

/** `useRealtimeEvent` for the ephemeral events (typing, read receipts, meeting counts). */
export function useEphemeralEvent<K extends EphemeralEventName>(
  name: K,
  handler: (data: EphemeralEvents[K]) => void,
): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => realtime.onEphemeral(name, (d) => latest.current(d)), [name]);
}
