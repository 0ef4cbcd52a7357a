import { EventEmitter } from 'node:events';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/db.js';
import type { Database } from '../db/schema.js';

export type Trx = Transaction<Database>;

/** What a command appends: a past-tense domain event and, when sockets should see it, where it goes. */
export interface NewEvent<T = unknown> {
  accountId: number;
  type: string;
  payload: T;
  realtime?: { name: string; rooms: string[] };
}

/** A stored event as listeners see it. */
export interface StoredEvent<T = unknown> {
  id: number;
  accountId: number;
  seq: number;
  type: string;
  payload: T;
  socketEvent: string | null;
  rooms: string[];
  createdAt: number;
  attempts: number;
}

/** Fires after a transaction that appended events commits, so this node's relay wakes at once. */
export const outboxSignal = new EventEmitter();

const appended = new WeakSet<Trx>();

/**
 * Appends an event inside the caller's transaction and gives it the account's next sequence number.
 * The `account_seq` row is locked until commit, so an account's sequence follows commit order.
 */
export async function appendEvent<T>(trx: Trx, e: NewEvent<T>): Promise<{ id: number; seq: number }> {
  const at = Date.now();
  const { last_seq } = await trx
    .insertInto('account_seq')
    .values({ account_id: e.accountId, last_seq: 1 })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ last_seq: sql`account_seq.last_seq + 1` }))
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  const row = await trx
    .insertInto('events')
    .values({
      account_id: e.accountId,
      seq: last_seq,
      type: e.type,
      payload: JSON.stringify(e.payload),
      socket_event: e.realtime?.name ?? null,
      rooms: JSON.stringify(e.realtime?.rooms ?? []),
      created_at: at,
      available_at: at,
      attempts: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  appended.add(trx);
  return { id: row.id, seq: last_seq };
}

/** True when events were appended in this transaction (so the relay should look again once it commits). */
export const appendedIn = (trx: Trx): boolean => appended.has(trx);

/**
 * Runs a command: its rows and its events commit together or not at all. After commit the local relay
 * is woken; other nodes find the events on their next poll.
 */
export async function runCommand<R>(db: DB, fn: (trx: Trx) => Promise<R>): Promise<R> {
  let touched = false;
  const result = await db.transaction().execute(async (trx) => {
    const r = await fn(trx);
    touched = appended.has(trx);
    return r;
  });
  if (touched) outboxSignal.emit('appended');
  return result;
}

export function toStoredEvent(r: RawEventRow): StoredEvent {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    seq: Number(r.seq),
    type: r.type,
    payload: JSON.parse(r.payload),
    socketEvent: r.socket_event,
    rooms: JSON.parse(r.rooms),
    createdAt: Number(r.created_at),
    attempts: Number(r.attempts),
  };
}

export interface RawEventRow {
  id: number;
  account_id: number;
  seq: number;
  type: string;
  payload: string;
  socket_event: string | null;
  rooms: string;
  created_at: number;
  attempts: number;
}

/** The events of an account after a sequence number, oldest first: the catch-up read. */
export async function eventsAfter(db: DB, accountId: number, after: number, limit: number): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'account_id', 'seq', 'type', 'payload', 'socket_event', 'rooms', 'created_at', 'attempts'])
    .where('account_id', '=', accountId)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map(toStoredEvent);
}

/** The account's latest sequence number (0 before its first event). */
export async function headSeq(db: DB, accountId: number): Promise<number> {
  const r = await db
    .selectFrom('account_seq')
    .select('last_seq')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return r ? Number(r.last_seq) : 0;
}
