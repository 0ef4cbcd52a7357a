import {
  type NewMessageEvent,
  RegisterQueueInput,
  VISITOR_NAMESPACE,
  VISITOR_STRINGS,
  type VisitorClientToServer,
  VisitorHandshake,
  VisitorMessageInput,
  type VisitorServerToClient,
} from '@parley/contracts';
import type pino from 'pino';
import type { Namespace, Socket } from 'socket.io';
import type { ZodError } from 'zod';
import type { DB } from '../../platform/db/db.js';
import type { Listener, StoredEvent } from '../../platform/outbox/index.js';
import type { Realtime } from '../../platform/realtime/realtime.js';
import type { Conversations } from '../messages/index.js';
import { registerQueue, visitorSend } from './commands/visitor.js';
import { visitorHistory } from './livechat.queries.js';
import { queuePlaces, visitorRoom } from './queue.js';
import { clientIp, type RateLimit, type VisitorLimits } from './rateLimit.js';
import { latestChat, type TokenAccount, visitorOf } from './settings.js';

interface VisitorData {
  account: TokenAccount;
  visitorId: number;
  csrf: string;
  token: string;
}
export type VisitorSocket = Socket<VisitorClientToServer, VisitorServerToClient, Record<string, never>, VisitorData>;
export type VisitorNamespace = Namespace<
  VisitorClientToServer,
  VisitorServerToClient,
  Record<string, never>,
  VisitorData
>;

/** Socket events that may reach a visitor, and how each payload is cut down for them. */
const FORWARDED = new Set(['newMessage', 'queueAccepted', 'liveChatEnded']);

/** Errors a visitor sees: the first validation message, a known 4xx message, else a generic one. */
export function visitorError(err: unknown): string {
  const z = err as ZodError;
  if (z && Array.isArray(z.issues) && z.issues[0]) return z.issues[0].message;
  const e = err as { status?: number; message?: string };
  if (e?.status && e.status < 500 && e.message) return e.message;
  return 'Unavailable.';
}

export interface LiveChatHub {
  ns: VisitorNamespace;
  /** Tells each waiting visitor of the account its place (debounced a little). */
  placesChanged(accountId: number): void;
  listener: Listener;
  registerLimit: RateLimit;
  messageLimit: RateLimit;
}

/**
 * The visitor socket (`/visitor`): authenticated by the account's link token and the visitor's csrf; a
 * visitor is put in its own room only and can never join another (there is no join event). Register and
 * message calls are rate limited.
 */
export function visitorSocket(
  realtime: Realtime,
  db: DB,
  conversations: Conversations,
  log: pino.Logger,
  limits: VisitorLimits,
): LiveChatHub {
  const ns = realtime.io.of(VISITOR_NAMESPACE) as unknown as VisitorNamespace;
  const { register: registerLimit, message: messageLimit } = limits;
  const pending = new Map<number, NodeJS.Timeout>();

  const placesChanged = (accountId: number) => {
    if (pending.has(accountId)) return;
    pending.set(
      accountId,
      setTimeout(async () => {
        pending.delete(accountId);
        try {
          for (const p of await queuePlaces(db, accountId))
            ns.to(visitorRoom(p.visitorId)).emit('queueNumber', p.place);
        } catch (err) {
          log.warn({ err }, 'livechat: queue places failed');
        }
      }, 20),
    );
  };

  ns.use(async (socket, next) => {
    try {
      const parsed = VisitorHandshake.safeParse(socket.handshake.auth ?? {});
      if (!parsed.success) return next(new Error('invalid handshake'));
      const { account, visitor } = await visitorOf(db, parsed.data.token, parsed.data.csrf);
      socket.data = { account, visitorId: visitor.id, csrf: parsed.data.csrf, token: parsed.data.token };
      next();
    } catch (err) {
      next(new Error(visitorError(err)));
    }
  });

  ns.on('connection', (socket: VisitorSocket) => {
    const { account, visitorId } = socket.data;
    void socket.join(visitorRoom(visitorId));
    placesChanged(account.accountId);
    const ip = clientIp(
      socket.conn.remoteAddress ?? socket.handshake.address,
      socket.handshake.headers['x-forwarded-for'],
      limits.trustProxy,
    );

    socket.on('registerQueue', async (raw, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      if (!registerLimit.take(ip)) return reply({ ok: false, error: VISITOR_STRINGS.tooFast });
      const claimed = (raw ?? {}) as { token?: unknown; csrf?: unknown };
      if (claimed.token !== socket.data.token || claimed.csrf !== socket.data.csrf)
        return reply({ ok: false, error: VISITOR_STRINGS.sessionEnded });
      // A visitor already waiting or chatting (a reload, a reconnect) gets its place back without the form.
      const current = await latestChat(db, account.accountId, visitorId).catch(() => undefined);
      if (current && (current.state === 'queued' || current.state === 'chatting')) {
        const places = await queuePlaces(db, account.accountId);
        const ticketId = current.ticket_id === null ? null : Number(current.ticket_id);
        return reply({
          ok: true,
          queue: places.find((p) => p.visitorId === visitorId)?.place ?? 0,
          ticket_id: ticketId,
        });
      }
      const input = RegisterQueueInput.safeParse(raw ?? {});
      if (!input.success) return reply({ ok: false, error: visitorError(input.error) });
      try {
        const r = await registerQueue(
          db,
          input.data.token,
          input.data.csrf,
          input.data,
          String(socket.handshake.headers['user-agent'] ?? ''),
        );
        const places = await queuePlaces(db, account.accountId);
        placesChanged(account.accountId);
        reply({ ok: true, queue: places.find((p) => p.visitorId === visitorId)?.place ?? 0, ticket_id: r.ticketId });
      } catch (err) {
        reply({ ok: false, error: visitorError(err) });
      }
    });

    socket.on('visitorMessage', async (raw, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      if (!messageLimit.take(`v:${visitorId}`)) return reply({ ok: false, error: VISITOR_STRINGS.tooFast });
      const input = VisitorMessageInput.safeParse(raw ?? {});
      if (!input.success) return reply({ ok: false, error: visitorError(input.error) });
      try {
        reply({ ok: true, data: await visitorSend(db, conversations, { account, visitorId }, input.data) });
      } catch (err) {
        reply({ ok: false, error: visitorError(err) });
      }
    });

    socket.on('visitorHistory', async (ack) => {
      if (typeof ack !== 'function') return;
      try {
        ack({ ok: true, ...(await visitorHistory(db, { account, visitorId })) });
      } catch (err) {
        ack({ ok: false, error: visitorError(err) });
      }
    });
  });

  const listener: Listener = {
    name: 'livechat.visitors',
    kind: 'effect',
    immediate: true,
    events: '*',
    async handle(e: StoredEvent) {
      if (!e.socketEvent || !FORWARDED.has(e.socketEvent)) return;
      const targets = e.rooms.filter((r) => r.startsWith('visitor:'));
      if (targets.length === 0) return;
      let data: unknown = e.payload;
      if (e.socketEvent === 'newMessage') {
        const m = e.payload as NewMessageEvent;
        // Notes never reach visitors; nor does anything but plain text and system lines.
        if (m.type !== 'text' && m.type !== 'system') return;
        data = {
          message: {
            id: m.id,
            ticketId: m.ticketId,
            sender: m.sender,
            senderName: m.senderName,
            type: m.type,
            message: m.message,
            ts: m.created_at,
            clientId: m.client_id,
          },
        };
      }
      (ns.to(targets) as unknown as { emit(n: string, p: unknown): void }).emit(e.socketEvent, { seq: e.seq, data });
    },
  };

  return { ns, placesChanged, listener, registerLimit, messageLimit };
}
