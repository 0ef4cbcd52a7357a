import crypto from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import path from 'node:path';
import { type ClientToServer, HandshakeAuth, rooms, SESSION_COOKIE, type ServerToClient } from '@parley/contracts';
import type pino from 'pino';
import { Server, type Socket } from 'socket.io';
import { crossSite, TFA_SETUP_REQUIRED } from '../auth/guard.js';
import type { AuthContext } from '../auth/sessions.js';
import { onSessionsEnded, resolveSession, SessionCache, sessionLive } from '../auth/sessions.js';
import type { Clock } from '../clock.js';
import type { DB } from '../db/db.js';
import { eventsAfter, headSeq, type Listener, type StoredEvent } from '../outbox/index.js';

export type AppSocket = Socket<ClientToServer, ServerToClient, Record<string, never>, { auth: AuthContext }>;
export type AppIo = Server<ClientToServer, ServerToClient, Record<string, never>, { auth: AuthContext }>;

/** The parts of engine.io's connection and WebSocket transport that `batchFlushes` uses (not typed by engine.io). */
interface EngineTransport {
  name: string;
  send(packets: unknown[]): void;
  socket?: { _socket?: { cork(): void; uncork(): void } };
}
interface EngineConn {
  transport: EngineTransport;
  on(event: 'upgrade', fn: (t: EngineTransport) => void): void;
}

/** Writes all the packets of one engine.io flush to a WebSocket's TCP socket in one go (see createRealtime). */
function batchFlushes(t: EngineTransport): void {
  const tcp = t.name === 'websocket' ? t.socket?._socket : undefined;
  if (!tcp || typeof tcp.cork !== 'function') return;
  const send = t.send.bind(t);
  t.send = (packets) => {
    if (packets.length < 2) return send(packets);
    tcp.cork();
    try {
      send(packets);
    } finally {
      tcp.uncork();
    }
  };
}

/** Most events a reconnecting socket is sent in one catch-up; past that it reloads its views. */
export const CATCH_UP_LIMIT = 5000;

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

/** The host the client addressed, as Fastify's `req.host` reads it (the proxy's last X-Forwarded-Host). */
function publicHost(headers: Record<string, string | string[] | undefined>, trustProxy = false): string {
  const forwarded = headers['x-forwarded-host'];
  const last = (Array.isArray(forwarded) ? forwarded.at(-1) : forwarded)?.split(',').at(-1)?.trim();
  if (trustProxy && last) return last;
  return String(headers.host ?? '');
}

export interface RealtimeOptions {
  httpServer: HttpServer;
  db: DB;
  log: pino.Logger;
  redisUrl?: string;
  /** The stream and channel names of this installation in Redis (see `redisNamespace`). */
  redisPrefix?: string;
  /** How long a socket may trust that its session is live before it asks again (`SESSION_CACHE_MS`). */
  sessionCacheMs?: number;
  /** The server's clock (the session cache's time). */
  clock?: Clock;
  /** Behind a trusted proxy the public host is X-Forwarded-Host, as for HTTP (`TRUST_PROXY`). */
  trustProxy?: boolean;
}

/** The room of one session's sockets: ending the session disconnects them, on every node. */
const sessionRoom = (sessionId: number) => `session:${sessionId}`;

/** What a socket's acknowledgement says when its session ended before it acted. */
const SESSION_ENDED = 'Your session has ended. Please sign in again.';

/**
 * The nodes of one installation share a Redis stream; two installations on one Redis must not, or each
 * would receive the other's broadcasts (its `account:1` is another company's `account:1`) and wait on the
 * other's nodes in `fetchSockets`. The default name is derived from the database both nodes use.
 */
export function redisNamespace(o: { REDIS_PREFIX?: string; DATABASE_URL?: string; DATA_DIR: string }): string {
  if (o.REDIS_PREFIX) return o.REDIS_PREFIX;
  const identity = o.DATABASE_URL ?? path.resolve(o.DATA_DIR);
  return `parley:${crypto.createHash('sha256').update(identity).digest('hex').slice(0, 16)}`;
}

export interface Realtime {
  io: AppIo;
  /** The relay listener that sends stored events to their rooms. */
  listener: Listener;
  /** Hooks modules add to handle client events on each authenticated socket. */
  onConnection(fn: (socket: AppSocket) => void): void;
  close(): Promise<void>;
}

export async function createRealtime(o: RealtimeOptions): Promise<Realtime> {
  const io: AppIo = new Server(o.httpServer, {
    path: '/socket.io',
    serveClient: false,
    // Same origin only: the web app is served by this server.
    cors: undefined,
    maxHttpBufferSize: 1_000_000,
  });

  const redisClients: { quit(): Promise<unknown> }[] = [];
  if (o.redisUrl) {
    // Loaded only for several nodes: the Redis client is some 600 modules a single node never needs.
    const { createClient } = await import('redis');
    const { createAdapter } = await import('@socket.io/redis-streams-adapter');
    const client = createClient({ url: o.redisUrl });
    client.on('error', (err) => o.log.error({ err: err.message }, 'redis error'));
    await client.connect();
    redisClients.push(client);
    const prefix = o.redisPrefix ?? 'parley';
    io.adapter(
      createAdapter(client, {
        streamName: `${prefix}:socket.io`,
        channelPrefix: `${prefix}:socket.io`,
        sessionKeyPrefix: `${prefix}:sio:session:`,
      }),
    );
  }

  // A socket without a valid session token is refused before it connects.
  io.use(async (socket, next) => {
    try {
      const parsed = HandshakeAuth.safeParse(socket.handshake.auth ?? {});
      if (!parsed.success) return next(new Error('invalid handshake'));
      const headers = socket.request.headers;
      let token = parsed.data.token;
      if (!token) {
        token = cookieValue(headers.cookie, SESSION_COOKIE);
        // The cookie goes with every request to this host, whichever page opens the socket: the handshake
        // must come from our own pages, as a cookie-authenticated write must (a WebSocket always sends Origin;
        // a same-origin polling GET may not, and is judged by Referer or Sec-Fetch-Site then).
        const sameOriginFetch = !headers.origin && !headers.referer && headers['sec-fetch-site'] === 'same-origin';
        if (token && !sameOriginFetch && crossSite({ headers, host: publicHost(headers, o.trustProxy) }))
          return next(new Error('cross-site'));
      }
      const auth = await resolveSession(o.db, token);
      if (!auth) return next(new Error('unauthorized'));
      // The account requires two-factor sign-in and it is not set up yet: no live events, no sending.
      if (auth.tfaSetupRequired) return next(new Error('two-factor setup required'));
      socket.data.auth = auth;
      next();
    } catch (err) {
      o.log.error({ err }, 'socket handshake failed');
      next(new Error('unavailable'));
    }
  });

  const handlers: ((s: AppSocket) => void)[] = [];
  const sessions = new SessionCache(o.sessionCacheMs ?? 0, undefined, o.clock);

  // A session ended (sign-out, Settings, password change or reset, deactivation): its sockets close on every
  // node (the adapter carries the disconnect), so they get no later events.
  const stopEnding = onSessionsEnded(o.db, (ids) => {
    io.in(ids.map(sessionRoom)).disconnectSockets(true);
  });

  // Each WebSocket frame engine.io writes is a syscall of its own; packets that queued while the previous
  // write was in flight (a busy ticket's newMessage and updateTicket, a catch-up) leave in one flush. Corking
  // the connection around the flush makes that one writev instead of one per packet.
  io.engine.on('connection', (conn: EngineConn) => {
    batchFlushes(conn.transport);
    conn.on('upgrade', batchFlushes);
  });

  io.on('connection', async (socket) => {
    const { auth } = socket.data;
    // Join first, then read the backlog: an event committed in between arrives twice, never zero times.
    socket.join([rooms.account(auth.accountId), rooms.user(auth.userId), sessionRoom(auth.sessionId)]);
    // Every client event first checks that the session still stands: a disconnect another node sent may not
    // have arrived yet. One that does not is refused (its acknowledgement says so) and the socket closed.
    socket.use((packet, next) => {
      const refuse = (error: string) => {
        const ack = packet.at(-1);
        if (typeof ack === 'function') ack({ ok: false, error });
      };
      sessionLive(o.db, auth, sessions).then(
        (live) => {
          if (live && !live.tfaSetupRequired) return next();
          refuse(live ? TFA_SETUP_REQUIRED : SESSION_ENDED);
          socket.disconnect(true);
        },
        (err) => {
          // Not known to be live: the event is not handled.
          o.log.error({ err }, 'socket session check failed');
          refuse('Unavailable.');
        },
      );
    });
    for (const h of handlers) h(socket);
    const lastSeq = HandshakeAuth.parse(socket.handshake.auth ?? {}).lastSeq;
    try {
      // The session may have ended between the handshake and the join (its disconnect found no socket).
      const live = await sessionLive(o.db, auth);
      if (!live || live.tfaSetupRequired) {
        socket.disconnect(true);
        return;
      }
      await sendCatchUp(socket, lastSeq);
    } catch (err) {
      o.log.error({ err }, 'catch-up failed');
      socket.disconnect(true);
    }
  });

  async function sendCatchUp(socket: AppSocket, lastSeq: number | undefined): Promise<void> {
    const { auth } = socket.data;
    if (lastSeq === undefined) {
      socket.emit('catchUp', { events: [], head: await headSeq(o.db, auth.accountId), complete: true });
      return;
    }
    // The head first: every sequence up to it is committed (they are given out in commit order), so the
    // events read next are all of them, and the client may take `head` as confirmed. Later ones arrive live.
    const head = await headSeq(o.db, auth.accountId);
    const events = (await eventsAfter(o.db, auth.accountId, lastSeq, CATCH_UP_LIMIT)).filter((e) => e.seq <= head);
    const complete = events.length < CATCH_UP_LIMIT;
    const visible = events.filter((e) => e.socketEvent && e.rooms.some((r) => socket.rooms.has(r)));
    socket.emit('catchUp', {
      events: visible.map((e) => ({ name: e.socketEvent as string, seq: e.seq, data: e.payload })),
      head: complete ? Math.max(head, lastSeq) : (events.at(-1)?.seq ?? lastSeq),
      complete,
    });
  }

  const listener: Listener = {
    name: 'realtime.fanout',
    kind: 'effect',
    immediate: true,
    events: '*',
    async handle(e: StoredEvent) {
      if (!e.socketEvent || e.rooms.length === 0) return;
      // The event name is dynamic by design: the contract's ServerToClient map types each one.
      (io.to(e.rooms) as unknown as { emit(n: string, p: unknown): void }).emit(e.socketEvent, {
        seq: e.seq,
        data: e.payload,
      });
    },
  };

  return {
    io,
    listener,
    onConnection: (fn) => handlers.push(fn),
    async close() {
      stopEnding();
      sessions.close();
      await new Promise<void>((resolve) => io.close(() => resolve()));
      for (const c of redisClients) await c.quit().catch(() => {});
    },
  };
}
