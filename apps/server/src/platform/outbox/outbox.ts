import { sql, type Transaction } from 'kysely';
import { type DB, onPostgres } from '../db/db.js';
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

/** The events a transaction appended so far, as listeners will see them. */
const appended = new WeakMap<Trx, StoredEvent[]>();

/**
 * Who hears the events a command committed through a database handle (this node's relay, which wakes at
 * once). Keyed by the handle: two servers in one process hear only their own commands.
 */
const committedHooks = new WeakMap<DB, Set<(events: StoredEvent[]) => void>>();

/**
 * Calls `fn` with the events of every command that commits through `db` (in this process), right after its
 * commit and before the command's caller goes on. Returns the way to stop.
 */
export function onCommitted(db: DB, fn: (events: StoredEvent[]) => void): () => void {
  let hooks = committedHooks.get(db);
  if (!hooks) {
    hooks = new Set();
    committedHooks.set(db, hooks);
  }
  hooks.add(fn);
  return () => hooks.delete(fn);
}

/**
 * Appends an event inside the caller's transaction and gives it the account's next sequence number.
 * The `account_seq` row is locked until commit, so an account's sequence follows commit order.
 */
export async function appendEvent<T>(trx: Trx, e: NewEvent<T>): Promise<{ id: number; seq: number }> {
  const [one] = await appendEvents(trx, e.accountId, [e]);
  return one!;
}

/**
 * Appends several events of one account in order, with one bump of its sequence and one insert. The
 * `account_seq` row stays locked until commit, so a command that appends last (after its reads) holds the
 * account's sequence, which every writer of the account waits for, only for these two statements and commit.
 */
export async function appendEvents(
  trx: Trx,
  accountId: number,
  list: NewEvent[],
): Promise<{ id: number; seq: number }[]> {
  if (list.length === 0) return [];
  if (list.some((e) => e.accountId !== accountId)) throw new Error('appendEvents: events of another account');
  const at = Date.now();
  const n = list.length;
  const rowOf = (e: NewEvent) => ({
    type: e.type,
    payload: JSON.stringify(e.payload),
    socket_event: e.realtime?.name ?? null,
    rooms: JSON.stringify(e.realtime?.rooms ?? []),
  });
  let rows: { id: number | string; seq: number | string }[];
  if (onPostgres(trx)) {
    // One statement: the bump and the insert in one round trip, so the account's sequence row is locked
    // for that statement and the commit only (every writer of the account waits on it).
    const values = sql.join(
      list.map((e, i) => {
        const r = rowOf(e);
        return sql`(${i}::int, ${r.type}::text, ${r.payload}::text, ${r.socket_event}::text, ${r.rooms}::text)`;
      }),
    );
    ({ rows } = await sql<{ id: string; seq: string }>`
      with s as (
        insert into account_seq (account_id, last_seq) values (${accountId}::bigint, ${n}::bigint)
        on conflict (account_id) do update set last_seq = account_seq.last_seq + ${n}::bigint
        returning last_seq)
      insert into events (account_id, seq, type, payload, socket_event, rooms, created_at, available_at, attempts)
      select ${accountId}::bigint, s.last_seq - ${n}::bigint + 1 + v.i, v.type, v.payload, v.socket_event, v.rooms,
        ${at}::bigint, ${at}::bigint, 0
      from s cross join (values ${values}) as v(i, type, payload, socket_event, rooms)
      order by v.i
      returning id, seq`.execute(trx));
  } else {
    const { last_seq } = await trx
      .insertInto('account_seq')
      .values({ account_id: accountId, last_seq: n })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ last_seq: sql`account_seq.last_seq + ${n}` }))
      .returning('last_seq')
      .executeTakeFirstOrThrow();
    const first = Number(last_seq) - n + 1;
    rows = await trx
      .insertInto('events')
      .values(
        list.map((e, i) => ({
          account_id: accountId,
          seq: first + i,
          ...rowOf(e),
          created_at: at,
          available_at: at,
          attempts: 0,
        })),
      )
      .returning(['id', 'seq'])
      .execute();
  }
  // Both databases return the rows of a multi-row insert in the order given; the sort makes it explicit.
  const ids = rows.map((r) => ({ id: Number(r.id), seq: Number(r.seq) })).sort((a, b) => a.seq - b.seq);
  let stored = appended.get(trx);
  if (!stored) {
    stored = [];
    appended.set(trx, stored);
  }
  for (const [i, e] of list.entries()) {
    stored.push({
      id: ids[i]!.id,
      accountId,
      seq: ids[i]!.seq,
      type: e.type,
      payload: e.payload,
      socketEvent: e.realtime?.name ?? null,
      rooms: e.realtime?.rooms ?? [],
      createdAt: at,
      attempts: 0,
    });
  }
  return ids;
}

/** True when events were appended in this transaction (so the relay should look again once it commits). */
export const appendedIn = (trx: Trx): boolean => appended.has(trx);

/** The events this transaction appended so far, oldest first (a listener tells which its own work caused). */
export const eventsAppendedIn = (trx: Trx): readonly StoredEvent[] => appended.get(trx) ?? [];

/** How many times a command runs when Postgres rolls it back as a deadlock's victim. */
export const COMMAND_ATTEMPTS = 3;
/** deadlock_detected and serialization_failure: transient, the whole transaction rolled back. */
const retryable = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
};

/**
 * Runs a command: its rows and its events commit together or not at all. After commit the events go to
 * whoever listens on `db` (`onCommitted`: this node's relay, which wakes and runs its immediate effects on them
 * at once); other nodes find the events on their next poll. A transaction Postgres rolls back as a deadlock's
 * victim runs again (up to COMMAND_ATTEMPTS in all), so `fn` must do nothing outside `trx` it cannot repeat.
 */
export async function runCommand<R>(db: DB, fn: (trx: Trx) => Promise<R>): Promise<R> {
  let events: StoredEvent[] | undefined;
  const once = () =>
    db.transaction().execute(async (trx) => {
      const r = await fn(trx);
      events = appended.get(trx);
      return r;
    });
  let result: R;
  for (let attempt = 1; ; attempt++) {
    try {
      result = await once();
      break;
    } catch (err) {
      // Postgres chose this transaction as a deadlock's victim (or could not serialize it): it was rolled
      // back whole, so running the command again is what its caller would do, only sooner.
      if (attempt >= COMMAND_ATTEMPTS || !retryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
  if (events) {
    // The command has committed: nothing a hook does may turn that into a failure for its caller.
    for (const hook of committedHooks.get(db) ?? [])
      try {
        hook(events);
      } catch {}
  }
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
