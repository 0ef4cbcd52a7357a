import { sql } from 'kysely';
import type pino from 'pino';
import { type Clock, systemClock, timersOf } from '../clock.js';
import type { DB, Dialect } from '../db/db.js';
import { appendedIn, onCommitted, type RawEventRow, type StoredEvent, type Trx, toStoredEvent } from './outbox.js';

/**
 * A listener runs once per event it subscribes to. A `transactional` listener's database work commits
 * together with its receipt, so its effect happens exactly once even if the relay repeats the event.
 * An `effect` listener (socket fan-out, e-mail) is at-least-once and must tolerate repeats. An effect marked
 * `unordered` does not depend on the order of events (a Web Push, a webhook): the relay runs it on several
 * events of a batch at once, so one that waits on the network or the database does not hold the batch up.
 * An effect marked `immediate` (a socket emit) also runs the moment a command commits on this node, in
 * account sequence order, and the claim later skips it: it must depend on the event alone and do its work
 * before its first await.
 */
export type Listener =
  | {
      name: string;
      kind: 'transactional';
      events: string[] | '*';
      /**
       * For a listener that acts on the current state of something the event names (not on the event's own
       * data): events of one batch with the same key need only the last run; the others get their receipt.
       */
      coalesce?: (e: StoredEvent) => string | null;
      /**
       * Whether the listener has anything to do with this event, from the event alone (it never changes, so
       * every repeat decides the same): an event it does not want gets no receipt row and no transaction.
       */
      wants?: (e: StoredEvent) => boolean;
      /**
       * Slow work that needs no transaction (reading and decoding a file), run before the batch transaction
       * opens so no lock is held meanwhile; its result is handed to `handle`. It may run again on a retry.
       * One that throws sets the event aside for a retry, as a failing listener does.
       */
      prepare?: (e: StoredEvent) => Promise<unknown>;
      handle(e: StoredEvent, trx: Trx, prepared?: unknown): Promise<void>;
    }
  | {
      name: string;
      kind: 'effect';
      events: string[] | '*';
      unordered?: boolean;
      immediate?: boolean;
      handle(e: StoredEvent): Promise<void>;
    };

export interface RelayOptions {
  db: DB;
  dialect: Dialect;
  nodeId: string;
  leaseMs: number;
  pollMs: number;
  batch: number;
  log: pino.Logger;
  maxAttempts?: number;
  /**
   * While commands keep committing, the next claim waits until this long after the previous batch (default
   * 2 ms), so that it carries several commands' events: a claim and a batch transaction cost about the same
   * for one event as for fifty. A command after a quieter spell than that is claimed at once.
   */
  lingerMs?: number;
  /**
   * The handle commands commit through on this node. Given, the events they commit reach the immediate
   * effects right after the commit instead of after the next claim (a socket sees a message one claim and
   * its wait sooner); the relay still claims them, runs everything else, and marks them delivered.
   */
  commits?: DB;
  /**
   * The time leases, retries and receipts are stamped with, and the timers of the poll and the linger
   * (default the real time).
   */
  clock?: Clock;
}

/** What the immediate effects did with an event at its commit. */
interface RanAtCommit {
  done: Set<string>;
  settled: Promise<unknown>;
  at: number;
}

type TransactionalListener = Extract<Listener, { kind: 'transactional' }>;
type EffectListener = Extract<Listener, { kind: 'effect' }>;

const RELAY_CLAIM_LOCK = 72_700_001;
/** The mark of a listener-event pair whose `prepare` failed in this batch. */
const UNPREPARED = Symbol('unprepared');
/** Events of a batch an unordered effect works on at once (below the Postgres pool's 10 connections). */
const UNORDERED_AT_ONCE = 8;
/** Receipts inserted by one statement: 4 parameters a row stays far below both databases' limits. */
const RECEIPTS_PER_INSERT = 250;
/** Committed events older than this still waiting for a predecessor are left to the claim. */
export const HELD_MAX_MS = 2_000;
/** What immediate effects did at commit is forgotten after this if no claim here asked (another node's). */
const RAN_AT_COMMIT_MAX_MS = 120_000;

const subscribes = (l: Listener, e: StoredEvent) =>
  (l.events === '*' || l.events.includes(e.type)) && (l.kind !== 'transactional' || !l.wants || l.wants(e));

/**
 * Claims undelivered events with a lease and hands them to listeners. Runs on every node. An account's
 * events are claimed only while no other node holds a live lease on that account's events, so each
 * account's events are delivered in sequence order; different accounts proceed in parallel.
 */
export class Relay {
  private readonly listeners: Listener[] = [];
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private pending = false;
  delivered = 0;
  /** Non-empty batches claimed since start (delivered / batches is the mean batch size). */
  batches = 0;
  /** Events whose immediate effects ran at their commit, since start. */
  deliveredAtCommit = 0;
  /** Seconds spent since start, by part: `claim`, each effect listener's name, `transaction`. */
  readonly seconds: Record<string, number> = {};
  /** Per account, the highest sequence number the immediate effects ran on here (at commit or from a claim). */
  private readonly ranUpTo = new Map<number, number>();
  /** Committed events waiting for a predecessor's immediate effects, by account, in sequence order. */
  private readonly held = new Map<number, StoredEvent[]>();
  /** By event id: the immediate effects run at commit, for the claim to skip. */
  private readonly ranAtCommit = new Map<number, RanAtCommit>();
  private stopCommits: (() => void) | null = null;
  /** The events of the batch being delivered: a commit heard late leaves them to the claim. */
  private claiming = new Set<number>();
  private pruned = 0;

  private readonly now: Clock;

  constructor(private readonly o: RelayOptions) {
    this.now = o.clock ?? systemClock;
  }

  register(l: Listener): void {
    if (this.listeners.some((x) => x.name === l.name)) throw new Error(`listener ${l.name} registered twice`);
    this.listeners.push(l);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Woken by the commits of this server's own handle only (never another server's in the same process).
    this.stopCommits = onCommitted(this.o.commits ?? this.o.db, (events) => {
      if (this.o.commits) this.atCommit(events);
      this.nudge();
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopCommits?.();
    this.stopCommits = null;
    this.held.clear();
    this.nudge();
    await this.loop;
  }

  nudge(): void {
    this.pending = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.pending = false;
      let claimed = 0;
      try {
        claimed = await this.tick();
      } catch (err) {
        this.o.log.error({ err }, 'relay tick failed');
      }
      if (!this.running) break;
      // A full batch may have left more behind; a partial one took all that was due, and a command committed
      // since (on this node) has set `pending`. Claiming again at once would cost an empty claim per batch.
      if (claimed >= this.o.batch) continue;
      const timers = timersOf(this.now);
      const tickEnded = this.now();
      if (!this.pending) {
        await new Promise<void>((resolve) => {
          const t = timers.setTimeout(resolve, this.o.pollMs);
          this.wake = () => {
            timers.clearTimeout(t);
            resolve();
          };
        });
        this.wake = null;
      }
      // Events keep coming: the next claim waits until `lingerMs` after this batch, so that a few more commands
      // commit first. After a quieter spell than that the claim goes at once.
      const lingerMs = this.o.lingerMs ?? 2;
      const linger = Math.min(lingerMs, lingerMs - (this.now() - tickEnded));
      if (claimed > 0 && linger > 0 && this.running)
        await new Promise<void>((resolve) => timers.setTimeout(resolve, linger));
    }
  }

  /**
   * Claims one batch and delivers it. Returns how many events were claimed.
   *
   * First the effect listeners, event by event in account sequence order (an event stops at its first failing
   * effect); then the unordered effects, on up to UNORDERED_AT_ONCE events at a time. Then one transaction for the whole batch: every transactional listener's receipt and work, in the
   * same order, with the outcome (delivered marks; for failed events the backoff and the receipts of the effects
   * that did succeed, so a retry skips them). A crash before that commit repeats the effects (at least once)
   * and nothing else happened. If a transactional listener throws, the batch transaction leaves nothing and
   * each transactional listener runs again in a transaction of its own, so only the failing one's event is
   * retried. Transactional listeners do not wait for effects: their work is the database's, exactly once
   * through the receipt, whatever a socket or a push service did.
   */
  async tick(): Promise<number> {
    this.forget(this.now());
    const rows = await this.timed('claim', () => this.claim());
    if (rows.length === 0) return 0;
    this.batches++;
    const events = rows.map(toStoredEvent).sort((a, b) => a.accountId - b.accountId || a.seq - b.seq);
    const atCommit = await this.takeAtCommit(events);
    const skip = await this.receiptsOfRetries(events);
    const errors = new Map<number, string>();
    const effectsDone = new Map<number, string[]>();

    for (const e of events) {
      const early = atCommit.get(e.id);
      const done: string[] = early ? [...early] : [];
      effectsDone.set(e.id, done);
      for (const l of this.listeners) {
        if (l.kind !== 'effect' || l.unordered || !subscribes(l, e)) continue;
        if (skip.get(e.id)?.has(l.name) || early?.has(l.name)) continue;
        try {
          await this.timed(l.name, () => l.handle(e));
          done.push(l.name);
        } catch (err) {
          errors.set(e.id, this.failed(l, e, err));
          break;
        }
      }
      // The claim has taken this event's immediate effects as far as the commit path would: its committed
      // successors waiting for it may go now.
      this.ranThrough(e.accountId, e.seq);
    }
    this.claiming = new Set();
    const unordered = events.flatMap((e) =>
      this.listeners
        .filter((l): l is EffectListener => l.kind === 'effect' && l.unordered === true)
        .filter((l) => subscribes(l, e) && !skip.get(e.id)?.has(l.name))
        .map((l) => ({ e, l })),
    );
    await inParallel(unordered, UNORDERED_AT_ONCE, async ({ e, l }) => {
      if (errors.has(e.id)) return;
      try {
        await this.timed(l.name, () => l.handle(e));
        effectsDone.get(e.id)?.push(l.name);
      } catch (err) {
        if (!errors.has(e.id)) errors.set(e.id, this.failed(l, e, err));
      }
    });

    const transactional = events.some((e) =>
      this.listeners.some((l) => l.kind === 'transactional' && subscribes(l, e)),
    );
    if (!transactional && errors.size === 0) {
      // Nothing but the delivered mark: one statement, no transaction around it.
      await this.settle(this.o.db, events, errors, effectsDone);
      this.delivered += events.length;
      return rows.length;
    }
    // Preparation outside the transaction (see `prepare`), for the listener-event pairs that may run.
    const prepared = new Map<string, unknown>();
    for (const e of events)
      for (const l of this.listeners) {
        if (l.kind !== 'transactional' || !l.prepare || !subscribes(l, e)) continue;
        try {
          prepared.set(`${e.id} ${l.name}`, await l.prepare(e));
        } catch (err) {
          if (!errors.has(e.id)) errors.set(e.id, this.failed(l, e, err));
          prepared.set(`${e.id} ${l.name}`, UNPREPARED);
        }
      }
    try {
      await this.timed('transaction', () =>
        this.o.db.transaction().execute(async (trx) => {
          await this.runTransactional(trx, events, undefined, prepared);
          await this.settle(trx, events, errors, effectsDone);
          if (appendedIn(trx)) this.pending = true;
        }),
      );
    } catch (err) {
      this.o.log.warn({ err, events: events.length }, 'relay batch transaction failed; listeners run one by one');
      for (const e of events) {
        for (const l of this.listeners) {
          if (l.kind !== 'transactional' || !subscribes(l, e)) continue;
          try {
            await this.o.db.transaction().execute(async (trx) => {
              await this.runTransactional(trx, [e], l, prepared);
              if (appendedIn(trx)) this.pending = true;
            });
          } catch (err) {
            if (!errors.has(e.id)) errors.set(e.id, this.failed(l, e, err));
            break;
          }
        }
      }
      await this.o.db.transaction().execute((trx) => this.settle(trx, events, errors, effectsDone));
    }
    this.delivered += events.length - errors.size;
    return rows.length;
  }

  /**
   * After a commit on this node: the immediate effects run on its events in account sequence order. An event
   * whose predecessor has not had them here yet (committed on another node, appended by a listener, or not
   * yet committed) waits for it, or for its own claim.
   */
  private atCommit(events: StoredEvent[]): void {
    const accounts = new Set<number>();
    for (const e of events) {
      const upTo = this.ranUpTo.get(e.accountId);
      if (upTo !== undefined && e.seq <= upTo) continue;
      if (this.claiming.has(e.id)) continue;
      let held = this.held.get(e.accountId);
      if (!held) {
        held = [];
        this.held.set(e.accountId, held);
      }
      let i = held.length;
      while (i > 0 && held[i - 1]!.seq > e.seq) i--;
      held.splice(i, 0, e);
      accounts.add(e.accountId);
    }
    for (const a of accounts) this.releaseHeld(a);
  }

  /** The immediate effects have run through `seq` of an account: the committed events next in line go. */
  private ranThrough(accountId: number, seq: number): void {
    this.ranUpTo.set(accountId, Math.max(this.ranUpTo.get(accountId) ?? 0, seq));
    this.releaseHeld(accountId);
  }

  private releaseHeld(accountId: number): void {
    const held = this.held.get(accountId);
    let upTo = this.ranUpTo.get(accountId);
    if (!held || upTo === undefined) return;
    while (held.length > 0 && held[0]!.seq <= upTo + 1) {
      const e = held.shift()!;
      if (e.seq === upTo + 1) this.runImmediate(e);
      upTo = Math.max(upTo, e.seq);
    }
    this.ranUpTo.set(accountId, upTo);
    if (held.length === 0) this.held.delete(accountId);
  }

  private runImmediate(e: StoredEvent): void {
    const done = new Set<string>();
    const runs: Promise<void>[] = [];
    for (const l of this.listeners) {
      if (l.kind !== 'effect' || !l.immediate || !subscribes(l, e)) continue;
      let run: Promise<void>;
      try {
        run = l.handle(e);
      } catch (err) {
        run = Promise.reject(err);
      }
      // A failure here is only logged: the claim runs the effect again.
      runs.push(
        run.then(
          () => void done.add(l.name),
          (err) => void this.failed(l, e, err),
        ),
      );
    }
    this.ranAtCommit.set(e.id, { done, settled: Promise.all(runs), at: this.now() });
    this.deliveredAtCommit++;
  }

  /**
   * For claimed events: the immediate effects that ran at their commit (the claim skips them). Claimed events
   * no longer wait for a predecessor here: the claim delivers them in order.
   */
  private async takeAtCommit(events: StoredEvent[]): Promise<Map<number, Set<string>>> {
    const out = new Map<number, Set<string>>();
    const claimed = new Set(events.map((e) => e.id));
    this.claiming = claimed;
    if (this.ranAtCommit.size === 0 && this.held.size === 0) return out;
    for (const accountId of new Set(events.map((e) => e.accountId))) {
      const held = this.held.get(accountId);
      if (!held) continue;
      const keep = held.filter((e) => !claimed.has(e.id));
      if (keep.length === 0) this.held.delete(accountId);
      else if (keep.length < held.length) this.held.set(accountId, keep);
    }
    for (const e of events) {
      const ran = this.ranAtCommit.get(e.id);
      if (!ran) continue;
      this.ranAtCommit.delete(e.id);
      await ran.settled;
      out.set(e.id, ran.done);
    }
    return out;
  }

  /**
   * Lets go of what another node's claim will deliver: committed events that waited HELD_MAX_MS for a
   * predecessor that never reached this node, and records of immediate effects whose event this node never
   * claimed. Runs before every claim, empty ones included (a node whose claims find nothing still hears
   * commits), at most every HELD_MAX_MS / 4.
   */
  private forget(now: number): void {
    if (now - this.pruned < HELD_MAX_MS / 4) return;
    this.pruned = now;
    for (const [accountId, held] of this.held) {
      const keep = held.filter((e) => now - e.createdAt < HELD_MAX_MS);
      if (keep.length === 0) this.held.delete(accountId);
      else if (keep.length < held.length) this.held.set(accountId, keep);
    }
    for (const [id, ran] of this.ranAtCommit) if (now - ran.at > RAN_AT_COMMIT_MAX_MS) this.ranAtCommit.delete(id);
  }

  /** Committed events waiting here for a predecessor's fan-out, for tests and metrics. */
  get waitingForPredecessor(): number {
    let n = 0;
    for (const held of this.held.values()) n += held.length;
    return n;
  }

  private async timed<T>(part: string, fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await fn();
    } finally {
      this.seconds[part] = (this.seconds[part] ?? 0) + (performance.now() - start) / 1000;
    }
  }

  /** For events claimed again after a failure: the listeners that already succeeded on them. */
  private async receiptsOfRetries(events: StoredEvent[]): Promise<Map<number, Set<string>>> {
    const out = new Map<number, Set<string>>();
    const retried = events.filter((e) => e.attempts > 0).map((e) => e.id);
    if (retried.length === 0) return out;
    const rows = await this.o.db
      .selectFrom('event_receipts')
      .select(['event_id', 'listener'])
      .where('event_id', 'in', retried)
      .execute();
    for (const r of rows) {
      const id = Number(r.event_id);
      if (!out.has(id)) out.set(id, new Set());
      out.get(id)!.add(r.listener);
    }
    return out;
  }

  /**
   * The transactional listeners of these events (or only `only`), in event then registration order, inside
   * `trx`: the receipts are inserted first in one statement; a listener runs only where its receipt is new,
   * so a listener whose receipt committed earlier (a retry, another node that re-claimed the event) is skipped.
   */
  private async runTransactional(
    trx: Trx,
    events: StoredEvent[],
    only?: Listener,
    prepared = new Map<string, unknown>(),
  ): Promise<void> {
    const work: { e: StoredEvent; l: TransactionalListener }[] = [];
    // A pair whose preparation failed gets no receipt: it runs on the event's retry.
    for (const e of events)
      for (const l of only ? [only] : this.listeners)
        if (l.kind === 'transactional' && subscribes(l, e) && prepared.get(`${e.id} ${l.name}`) !== UNPREPARED)
          work.push({ e, l });
    if (work.length === 0) return;
    const fresh = new Set<string>();
    const at = this.now();
    for (let i = 0; i < work.length; i += RECEIPTS_PER_INSERT) {
      const inserted = await trx
        .insertInto('event_receipts')
        .values(
          work
            .slice(i, i + RECEIPTS_PER_INSERT)
            .map(({ e, l }) => ({ account_id: e.accountId, listener: l.name, event_id: e.id, processed_at: at })),
        )
        .onConflict((oc) => oc.columns(['listener', 'event_id']).doNothing())
        .returning(['listener', 'event_id'])
        .execute();
      for (const r of inserted) fresh.add(`${Number(r.event_id)} ${r.listener}`);
    }
    // A coalescing listener runs once per key: on the batch's last fresh event with that key.
    const last = new Map<string, number>();
    for (const { e, l } of work) {
      const key = l.coalesce?.(e);
      if (key != null && fresh.has(`${e.id} ${l.name}`)) last.set(`${l.name} ${key}`, e.id);
    }
    for (const { e, l } of work) {
      if (!fresh.has(`${e.id} ${l.name}`)) continue;
      const key = l.coalesce?.(e);
      if (key != null && last.get(`${l.name} ${key}`) !== e.id) continue;
      await l.handle(e, trx, prepared.get(`${e.id} ${l.name}`));
    }
  }

  /** Marks the batch's successful events delivered, and sets the failed ones aside for a retry. */
  private async settle(
    trx: Trx | DB,
    events: StoredEvent[],
    errors: Map<number, string>,
    effectsDone: Map<number, string[]>,
  ): Promise<void> {
    const done = events.filter((e) => !errors.has(e.id)).map((e) => e.id);
    if (done.length > 0) {
      await trx
        .updateTable('events')
        .set({ delivered_at: this.now(), lease_owner: null, lease_until: null })
        .where('id', 'in', done)
        .execute();
    }
    for (const e of events) {
      const error = errors.get(e.id);
      if (error === undefined) continue;
      await this.keepReceipts(trx, e, effectsDone.get(e.id) ?? []);
      await this.release(trx, e, error);
    }
  }

  private failed(l: Listener, e: StoredEvent, err: unknown): string {
    this.o.log.error({ err, listener: l.name, event: e.type, eventId: e.id }, 'listener failed');
    return `${l.name}: ${err instanceof Error ? err.message : String(err)}`;
  }

  private async claim(): Promise<RawEventRow[]> {
    const { db, dialect, nodeId, leaseMs, batch } = this.o;
    const at = this.now();
    const until = at + leaseMs;
    return db.transaction().execute(async (trx) => {
      // Serialise only the claim itself, so two nodes never split one account's backlog between them.
      if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${RELAY_CLAIM_LOCK})`.execute(trx);
      // SQLite's planner would rather walk the whole table in id order (delivered rows included, kept for
      // EVENT_RETENTION_DAYS) than read the partial index of pending rows: 6.7 ms a claim at 50k rows and
      // growing. Naming the index keeps a claim at ~0.06 ms whatever the table holds.
      const pending = dialect === 'sqlite' ? sql`events e indexed by events_pending_idx` : sql`events e`;
      const leased = dialect === 'sqlite' ? sql`events o indexed by events_pending_idx` : sql`events o`;
      // The accounts another node is delivering are found once (an uncorrelated subquery). Asked per
      // pending row instead (a correlated NOT EXISTS), a backlog of a few thousand events made one claim
      // take 20 s on Postgres while holding the claim lock: the relay fell further behind the longer it ran.
      const { rows } = await sql<RawEventRow>`
        update events set lease_owner = ${nodeId}, lease_until = ${until}
        where id in (
          select e.id from ${pending}
          where e.delivered_at is null and e.available_at <= ${at}
            and (e.lease_until is null or e.lease_until < ${at})
            and e.account_id not in (
              select o.account_id from ${leased}
              where o.delivered_at is null and o.lease_until >= ${at} and o.lease_owner <> ${nodeId})
          order by e.id
          limit ${batch})
        returning id, account_id, seq, type, payload, socket_event, rooms, created_at, attempts`.execute(trx);
      return rows;
    });
  }

  private async keepReceipts(trx: Trx | DB, e: StoredEvent, listeners: string[]): Promise<void> {
    if (listeners.length === 0) return;
    await trx
      .insertInto('event_receipts')
      .values(
        listeners.map((listener) => ({ account_id: e.accountId, listener, event_id: e.id, processed_at: this.now() })),
      )
      .onConflict((oc) => oc.columns(['listener', 'event_id']).doNothing())
      .execute();
  }

  /** A failed event is retried with backoff; after maxAttempts it is set aside with its error. */
  private async release(trx: Trx | DB, e: StoredEvent, error: string): Promise<void> {
    const attempts = e.attempts + 1;
    const dead = attempts >= (this.o.maxAttempts ?? 10);
    await trx
      .updateTable('events')
      .set({
        attempts,
        last_error: error.slice(0, 1000),
        lease_owner: null,
        lease_until: null,
        available_at: this.now() + Math.min(60_000, 500 * 2 ** attempts),
        delivered_at: dead ? this.now() : null,
      })
      .where('id', '=', e.id)
      .execute();
  }
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
