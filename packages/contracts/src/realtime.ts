import { z } from 'zod';
import type { LabelsUpdated, SettingsChanged } from './labels.js';
import type { AnnouncementMessage } from './shell.js';
import type { StatusUpdated } from './status.js';
import type { TicketUpdated } from './tickets.js';

/**
 * Every server-to-client event is sent as `{ seq, data }`: `seq` is the account's event sequence, so a
 * client can remember the last one it applied and ask for the rest after a reconnect.
 */
export interface Envelope<T> {
  seq: number;
  data: T;
}

/** Events the server sends, by socket event name (the spec's names). */
export interface ServerToClient {
  statusUpdated: (e: Envelope<StatusUpdated>) => void;
  /** SHELL-37: an announcement was published or removed (null). */
  announcementMessage: (e: Envelope<AnnouncementMessage>) => void;
  /** An admin saved the account's labels: the whole list after the save. */
  labelsUpdated: (e: Envelope<LabelsUpdated>) => void;
  /** LABEL-20: an admin changed an account setting. */
  settingsChanged: (e: Envelope<SettingsChanged>) => void;
  /** A ticket changed (priority, ...): the item as everyone sees it. */
  updateTicket: (e: Envelope<TicketUpdated>) => void;
  /** Catch-up after connect: everything after the client's lastSeq that it may see, then the head. */
  catchUp: (e: { events: { name: string; seq: number; data: unknown }[]; head: number; complete: boolean }) => void;
}

/** Events the client sends. */
export interface ClientToServer {
  joinRoom: (ticketId: number, ack?: (r: { ok: boolean; error?: string }) => void) => void;
  leaveRoom: (ticketId: number) => void;
  /** STATUS-14: the client says it is here; an Offline agent becomes Online. */
  tellOnline: () => void;
  /** SHELL-37: the announcement that shows now, if any. */
  getAnnouncement: (ack: (r: AnnouncementMessage) => void) => void;
}

/** The socket handshake: the session token (or the HttpOnly cookie) and the last sequence applied. */
export const HandshakeAuth = z.object({
  token: z.string().max(200).optional(),
  lastSeq: z.number().int().min(0).optional(),
});

/** Room names, decided here once for server and tests. */
export const rooms = {
  account: (id: number) => `account:${id}`,
  user: (id: number) => `user:${id}`,
  ticket: (id: number) => `ticket:${id}`,
  visitor: (token: string) => `visitor:${token}`,
};

/** `GET /api/events?after=N`: the same catch-up over HTTP. */
export const EventsQuery = z.object({ after: z.coerce.number().int().min(0).default(0) });
