import { sql } from 'kysely';
import type pino from 'pino';
import type { DB, Dialect } from '../db/db.js';
import { outboxSignal, type RawEventRow, type StoredEvent, type Trx, toStoredEvent } from './outbox.js';

/**
 * A listener runs once per event it subscribes to. A `transactional` listener's database work commits
 * together with its receipt, so its effect happens exactly once even if the relay repeats the event.
 * An `effect` listener (socket fan-out, e-mail) is at-least-once and must tolerate repeats.
 */
export type Listener =
  | { name: string; kind: 'transactional'; events: string[] | '*'; handle(e: StoredEvent, trx: Trx): Promise<void> }
  | { name: string; kind: 'effect'; events: string[] | '*'; handle(e: StoredEvent): Promise<void> };

export interface RelayOptions {
  db: DB;
  dialect: Dialect;
  nodeId: string;
  leaseMs: number;
  pollMs: number;
  batch: number;
  log: pino.Logger;
  maxAttempts?: number;
}

const RELAY_CLAIM_LOCK = 72_700_001;

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
  private readonly onAppended = () => this.nudge();
  delivered = 0;

  constructor(private readonly o: RelayOptions) {}

  register(l: Listener): void {
    if (this.listeners.some((x) => x.name === l.name)) throw new Error(`listener ${l.name} registered twice`);
    this.listeners.push(l);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    outboxSignal.on('appended', this.onAppended);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    outboxSignal.off('appended', this.onAppended);
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
      if (claimed > 0 || this.pending) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.o.pollMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Claims one batch and delivers it. Returns how many events were claimed. */
  async tick(): Promise<number> {
    const rows = await this.claim();
    if (rows.length === 0) return 0;
    const events = rows.map(toStoredEvent).sort((a, b) => a.accountId - b.accountId || a.seq - b.seq);
    const done: number[] = [];
    for (const e of events) {
      const error = await this.deliver(e);
      if (error === null) done.push(e.id);
      else await this.release(e, error);
    }
    if (done.length > 0) {
      await this.o.db
        .updateTable('events')
        .set({ delivered_at: Date.now(), lease_owner: null, lease_until: null })
        .where('id', 'in', done)
        .execute();
      this.delivered += done.length;
    }
    return rows.length;
  }

  private async claim(): Promise<RawEventRow[]> {
    const { db, dialect, nodeId, leaseMs, batch } = this.o;
    const at = Date.now();
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

  /** Runs every matching listener; returns null when all succeeded, else the first error's text. */
  private async deliver(e: StoredEvent): Promise<string | null> {
    // On a retry, effect listeners that already succeeded are skipped (their receipts were kept).
    const done =
      e.attempts > 0
        ? new Set(
            (
              await this.o.db.selectFrom('event_receipts').select('listener').where('event_id', '=', e.id).execute()
            ).map((r) => r.listener),
          )
        : new Set<string>();
    const succeeded: string[] = [];
    for (const l of this.listeners) {
      if (l.events !== '*' && !l.events.includes(e.type)) continue;
      try {
        if (l.kind === 'effect') {
          if (done.has(l.name)) continue;
          await l.handle(e);
          succeeded.push(l.name);
          continue;
        }
        await this.o.db.transaction().execute(async (trx) => {
          const r = await trx
            .insertInto('event_receipts')
            .values({ account_id: e.accountId, listener: l.name, event_id: e.id, processed_at: Date.now() })
            .onConflict((oc) => oc.columns(['listener', 'event_id']).doNothing())
            .executeTakeFirst();
          if (Number(r.numInsertedOrUpdatedRows ?? 0) === 0) return;
          await l.handle(e, trx);
        });
      } catch (err) {
        this.o.log.error({ err, listener: l.name, event: e.type, eventId: e.id }, 'listener failed');
        await this.keepReceipts(e, succeeded);
        return `${l.name}: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    return null;
  }

  private async keepReceipts(e: StoredEvent, listeners: string[]): Promise<void> {
    if (listeners.length === 0) return;
    await this.o.db
      .insertInto('event_receipts')
      .values(
        listeners.map((listener) => ({ account_id: e.accountId, listener, event_id: e.id, processed_at: Date.now() })),
      )
      .onConflict((oc) => oc.columns(['listener', 'event_id']).doNothing())
      .execute();
  }

  /** A failed event is retried with backoff; after maxAttempts it is set aside with its error. */
  private async release(e: StoredEvent, error: string): Promise<void> {
    const attempts = e.attempts + 1;
    const dead = attempts >= (this.o.maxAttempts ?? 10);
    await this.o.db
      .updateTable('events')
      .set({
        attempts,
        last_error: error.slice(0, 1000),
        lease_owner: null,
        lease_until: null,
        available_at: Date.now() + Math.min(60_000, 500 * 2 ** attempts),
        delivered_at: dead ? Date.now() : null,
      })
      .where('id', '=', e.id)
      .execute();
  }
}
