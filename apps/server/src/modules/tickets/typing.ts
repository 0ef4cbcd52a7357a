import { rooms, TYPING_REMOTE_MS } from '@parley/contracts';
import { type Clock, systemClock, type TimerHandle, timersOf } from '../../platform/clock.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';

type Nsp = AppSocket['nsp'];
/** The room of the sockets typing in a ticket now; only the server joins sockets to it. */
export const typingRoom = (ticketId: number) => `ticketTyping:${ticketId}`;
/** How long the info call waits for the other nodes' sockets before it answers without them. */
const ASK_NODES_MS = 1_000;

/**
 * TICKET-66 (design): who is typing in a ticket, without a write per keystroke. The messages module relays
 * `sendTyping` / `removeTyping` to the ticket room (RT-11) and stores nothing; this board listens to the
 * same events on the same sockets and joins the socket to the ticket's typing room, leaving it on
 * `removeTyping`, 5 s after its last `sendTyping` (RT-39: a typing indicator set by a socket event clears
 * after 5 s), or when it disconnects. The room lives in the socket adapter, so the ticket's `typing` list
 * is read with `fetchSockets`, across nodes when they share Redis.
 */
export class TypingBoard {
  private nsp: Nsp | null = null;
  private readonly timers = new Map<string, TimerHandle>();
  /** The 5 s clear runs on the app's clock, so a test moves past it instead of waiting. */
  private readonly clock: Clock;

  constructor(clock: Clock = systemClock) {
    this.clock = clock;
  }

  /** Follows one signed-in socket's typing events. */
  follow(socket: AppSocket): void {
    this.nsp ??= socket.nsp;
    const key = (ticketId: number) => `${socket.id}:${ticketId}`;
    const { setTimeout, clearTimeout } = timersOf(this.clock);
    const stop = (ticketId: number) => {
      const t = this.timers.get(key(ticketId));
      if (t) clearTimeout(t);
      this.timers.delete(key(ticketId));
      void socket.leave(typingRoom(ticketId));
    };
    socket.on('sendTyping', (raw) => {
      const ticketId = Number(raw);
      // As the relay: only in a ticket room the socket was let into (its account's, CHAT-06 for chats).
      if (!Number.isSafeInteger(ticketId) || ticketId <= 0 || !socket.rooms.has(rooms.ticket(ticketId))) return;
      const t = this.timers.get(key(ticketId));
      if (t) clearTimeout(t);
      this.timers.set(
        key(ticketId),
        setTimeout(() => stop(ticketId), TYPING_REMOTE_MS),
      );
      void socket.join(typingRoom(ticketId));
    });
    socket.on('removeTyping', (raw) => {
      const ticketId = Number(raw);
      if (Number.isSafeInteger(ticketId) && ticketId > 0) stop(ticketId);
    });
    socket.on('leaveRoom', (raw) => {
      const ticketId = Number(raw);
      if (Number.isSafeInteger(ticketId) && ticketId > 0) stop(ticketId);
    });
    socket.on('disconnect', () => {
      for (const [k, t] of this.timers)
        if (k.startsWith(`${socket.id}:`)) {
          clearTimeout(t);
          this.timers.delete(k);
        }
    });
  }

  /** The usernames typing in one of the account's tickets now, in the order their sockets are found. */
  async typing(accountId: number, ticketId: number): Promise<string[]> {
    if (!this.nsp) return [];
    const found = await Promise.race([
      this.nsp
        .in(typingRoom(ticketId))
        .fetchSockets()
        .catch(() => []),
      new Promise<[]>((resolve) => setTimeout(() => resolve([]), ASK_NODES_MS).unref()),
    ]);
    const names = found.filter((s) => s.data.auth?.accountId === accountId).map((s) => s.data.auth.username);
    return [...new Set(names)];
  }
}

/**
 * One board per running app: the routes and the socket handlers of the module are both given the app's
 * database handle (and nothing else they share), so the handle names the app. Several apps in one process
 * (the tests) each get their own. The socket handlers, set up with the app, pass its clock.
 */
const boards = new WeakMap<object, TypingBoard>();
export function typingBoardOf(app: object, clock?: Clock): TypingBoard {
  let b = boards.get(app);
  if (!b) {
    b = new TypingBoard(clock);
    boards.set(app, b);
  }
  return b;
}
