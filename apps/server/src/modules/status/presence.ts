import { sql } from 'kysely';
import type pino from 'pino';
import { type Clock, systemClock, type TimerHandle, timersOf } from '../../platform/clock.js';
import type { DB } from '../../platform/db/db.js';
import { runCommand } from '../../platform/outbox/index.js';
import type { Task } from '../../platform/scheduler.js';
import { applyStatus, type Who } from './commands/applyStatus.js';

export interface PresenceOptions {
  db: DB;
  nodeId: string;
  log: pino.Logger;
  /** How long a user whose last socket closed stays Online (a reload, a short network drop). */
  graceMs: number;
  /** How often this node says it is alive; a node silent for 3 beats is taken for dead. */
  heartbeatMs: number;
  /** The time and the timers of heartbeats and grace periods (tests move it by hand). */
  clock?: Clock;
}

/** A node silent for this many heartbeats is taken for dead and its connections are dropped. */
export const STALE_BEATS = 3;

/**
 * Presence across nodes (STATUS-04, STATUS-14). Every open socket is a `user_connections` row naming its
 * node; a user with no row left anywhere goes Offline after the grace period. Each node heartbeats in
 * `nodes`; the `sweepStalePresence` task drops the rows of a node that stopped (it crashed) and applies
 * the same rule, and sets Offline whoever is shown Online with no connection at all.
 */
export class Presence {
  /** This node's open sockets, to put back if another node swept them while this one was stalled. */
  private readonly local = new Map<string, Who>();
  /** Per socket, the chain of its presence writes: a quick connect-then-close applies in that order. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly timers = new Set<TimerHandle>();
  private readonly pending = new Set<Promise<unknown>>();
  private heartbeat: TimerHandle | null = null;
  private stopped = false;
  private readonly clock: Clock;

  constructor(private readonly o: PresenceOptions) {
    this.clock = o.clock ?? systemClock;
  }

  get nodeId(): string {
    return this.o.nodeId;
  }

  /** Writes the first heartbeat and keeps beating. */
  async start(): Promise<void> {
    await this.beat();
    this.heartbeat = timersOf(this.clock).setInterval(() => void this.track(this.beat()), this.o.heartbeatMs);
    this.heartbeat.unref?.();
  }

  private async beat(): Promise<void> {
    try {
      const at = this.clock();
      const r = await this.o.db
        .updateTable('nodes')
        .set({ seen_at: at })
        .where('node_id', '=', this.o.nodeId)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) return;
      await this.o.db
        .insertInto('nodes')
        .values({ node_id: this.o.nodeId, seen_at: at })
        .onConflict((oc) => oc.column('node_id').doUpdateSet({ seen_at: at }))
        .execute();
      // Our row was gone: another node took us for dead and dropped our connections. Put them back.
      for (const [socketId, who] of this.local) await this.serial(socketId, () => this.register(who, socketId));
    } catch (err) {
      this.o.log.warn({ err }, 'presence heartbeat failed');
    }
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    return p;
  }

  private serial(socketId: string, fn: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(socketId) ?? Promise.resolve()).catch(() => {}).then(fn);
    this.chains.set(socketId, next);
    void next
      .finally(() => {
        if (this.chains.get(socketId) === next) this.chains.delete(socketId);
      })
      .catch(() => {});
    return this.track(next);
  }

  private async register(who: Who, socketId: string): Promise<void> {
    await runCommand(this.o.db, async (trx) => {
      await trx
        .insertInto('user_connections')
        .values({
          socket_id: socketId,
          account_id: who.accountId,
          user_id: who.userId,
          node_id: this.o.nodeId,
          connected_at: this.clock(),
        })
        .onConflict((oc) => oc.column('socket_id').doNothing())
        .execute();
      await applyStatus(trx, who, { status: 'ONLINE' }, this.clock());
    });
  }

  /** A socket connected: remember it; an Offline user becomes Online. */
  connected(who: Who, socketId: string): Promise<void> {
    this.local.set(socketId, who);
    return this.serial(socketId, () => this.register(who, socketId));
  }

  /** STATUS-14 `tellOnline`: the same as connecting, for a socket still open; a repeat changes nothing. */
  tellOnline(who: Who, socketId: string): Promise<void> {
    if (!this.local.has(socketId)) return Promise.resolve();
    return this.serial(socketId, () => this.register(who, socketId));
  }

  /** A socket closed: forget it; after the grace period a user with no socket left anywhere is Offline. */
  disconnected(who: Who, socketId: string): Promise<void> {
    this.local.delete(socketId);
    return this.serial(socketId, async () => {
      const at = this.clock();
      // "Last seen" is when a connection last closed; the sweep also waits out the grace from here. One
      // transaction: a sweep between the row's removal and this time would see a user with no connection and
      // an old "last seen", and set them Offline at once, with no grace.
      await this.o.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('users')
          .set({ last_seen_at: at })
          .where('account_id', '=', who.accountId)
          .where('id', '=', who.userId)
          .execute();
        await trx.deleteFrom('user_connections').where('socket_id', '=', socketId).execute();
      });
      if (this.stopped) return;
      const t = timersOf(this.clock).setTimeout(() => {
        this.timers.delete(t);
        this.track(this.offlineIfGone(who, at)).catch((err) => this.o.log.error({ err }, 'presence check failed'));
      }, this.o.graceMs);
      this.timers.add(t);
    });
  }

  /**
   * Sets the user Offline when no node holds a connection of theirs; answers whether it did. A grace timer
   * passes the time of the disconnect it waited for: when a connection of the user closed after that one (its
   * `last_seen_at` is newer), the grace runs from that later close and its own timer decides. Without this an
   * old tab closed half a minute ago set a user Offline the moment their last connection blinked.
   */
  offlineIfGone(who: Who, closedAt?: number): Promise<boolean> {
    return runCommand(this.o.db, async (trx) => {
      if (closedAt !== undefined) {
        const u = await trx
          .selectFrom('users')
          .select('last_seen_at')
          .where('account_id', '=', who.accountId)
          .where('id', '=', who.userId)
          .executeTakeFirst();
        if (u && Number(u.last_seen_at ?? 0) > closedAt) return false;
      }
      const left = await trx
        .selectFrom('user_connections')
        .select('socket_id')
        .where('account_id', '=', who.accountId)
        .where('user_id', '=', who.userId)
        .limit(1)
        .executeTakeFirst();
      if (left) return false;
      return (await applyStatus(trx, who, { status: 'OFFLINE' }, this.clock()))?.changed ?? false;
    });
  }

  /**
   * Drops the connections of nodes silent for STALE_BEATS heartbeats (and of nodes with no heartbeat at
   * all), then sets Offline every user shown Online with no connection anywhere whose status and last
   * disconnect are older than the grace period. Answers how many users went Offline.
   */
  async sweep(at = this.clock()): Promise<number> {
    const { db } = this.o;
    const cutoff = at - STALE_BEATS * this.o.heartbeatMs;
    // Never this node: it is running this code, however late its own beat.
    const stale = await db
      .selectFrom('nodes')
      .select('node_id')
      .where('seen_at', '<', cutoff)
      .where('node_id', '!=', this.o.nodeId)
      .execute();
    for (const { node_id } of stale) {
      // One transaction: a stalled node that beats meanwhile finds its row gone and re-registers after.
      await db.transaction().execute(async (trx) => {
        const gone = await trx
          .deleteFrom('nodes')
          .where('node_id', '=', node_id)
          .where('seen_at', '<', cutoff)
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) > 0)
          await trx.deleteFrom('user_connections').where('node_id', '=', node_id).execute();
      });
    }
    // Rows naming a node with no heartbeat row at all (left behind by a race with a sweep).
    await db
      .deleteFrom('user_connections')
      .where('connected_at', '<', cutoff)
      .where('node_id', '!=', this.o.nodeId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(selectFrom('nodes as n').select('n.node_id').whereRef('n.node_id', '=', 'user_connections.node_id')),
        ),
      )
      .execute();

    // Whoever is shown Online with no connection anywhere: users of the nodes just dropped, of a node that
    // stopped during someone's grace period, or who chose a status over HTTP without ever connecting.
    const settled = at - this.o.graceMs;
    const orphans = await db
      .selectFrom('users as u')
      .select(['u.account_id', 'u.id'])
      .where('u.status', '=', 'ONLINE')
      .where('u.status_since', '<=', settled)
      .where(sql<number>`coalesce(u.last_seen_at, 0)`, '<=', settled)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('user_connections as c')
              .select('c.socket_id')
              .whereRef('c.account_id', '=', 'u.account_id')
              .whereRef('c.user_id', '=', 'u.id'),
          ),
        ),
      )
      .limit(1000)
      .execute();
    let offline = 0;
    for (const r of orphans) {
      if (await this.offlineIfGone({ accountId: Number(r.account_id), userId: Number(r.id) })) offline++;
    }
    return offline;
  }

  /** The timed task; across nodes one runs it per period (the scheduler's lease). */
  sweepTask(): Task {
    return {
      name: 'sweepStalePresence',
      everyMs: this.o.heartbeatMs,
      run: async () => {
        const n = await this.sweep();
        if (n > 0) this.o.log.info({ users: n }, 'presence: users without a connection set Offline');
      },
    };
  }

  /** Resolves once the presence work started so far (writes, beats, grace checks) has finished. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Stops heartbeats and grace timers; sockets closing from now on only remove their rows. */
  stop(): void {
    this.stopped = true;
    if (this.heartbeat) timersOf(this.clock).clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const t of this.timers) timersOf(this.clock).clearTimeout(t);
    this.timers.clear();
  }

  /**
   * This node stops: its connections and heartbeat go now. Its users are not set Offline here: in a
   * rolling restart they reconnect to another node at once; whoever does not is set Offline by the sweep.
   */
  async close(): Promise<void> {
    this.stop();
    await Promise.allSettled([...this.pending]);
    this.local.clear();
    await this.o.db.deleteFrom('user_connections').where('node_id', '=', this.o.nodeId).execute();
    await this.o.db.deleteFrom('nodes').where('node_id', '=', this.o.nodeId).execute();
  }
}
