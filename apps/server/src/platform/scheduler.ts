import { sql } from 'kysely';
import type pino from 'pino';
import { type Clock, systemClock, type TimerHandle, timersOf } from './clock.js';
import type { DB } from './db/db.js';

export interface Task {
  /** Imperative name, also the lease key: `pruneDeliveredEvents`. */
  name: string;
  everyMs: number;
  /** `leaseAt`: the time the lease of this run starts, by this node's clock. */
  run(leaseAt: number): Promise<void>;
}

/**
 * Runs timed tasks. Before each run a node takes the task's lease in the database, so across any number
 * of nodes exactly one runs a task per period; a node that dies simply lets its lease lapse.
 */
export class Scheduler {
  private readonly timers: TimerHandle[] = [];
  private readonly running = new Set<Promise<unknown>>();
  private readonly tasks: Task[] = [];
  private started = false;

  constructor(
    private readonly db: DB,
    private readonly nodeId: string,
    private readonly log: pino.Logger,
    /** The time leases are taken by, and the timers that run the tasks. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Adds a task; it first runs when the scheduler starts (at once if it has already started). */
  schedule(task: Task): void {
    this.tasks.push(task);
    if (this.started) this.arm(task);
  }

  /** Starts every task: a first run at once, then one each period. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const task of this.tasks) this.arm(task);
  }

  private arm(task: Task): void {
    const tick = () => {
      const p = this.runOnce(task).finally(() => this.running.delete(p));
      this.running.add(p);
    };
    this.timers.push(timersOf(this.clock).setInterval(tick, task.everyMs));
    setImmediate(tick);
  }

  /** Takes the lease and runs the task; returns whether this node ran it. */
  async runOnce(task: Task): Promise<boolean> {
    try {
      const leaseAt = await this.acquire(task.name, task.everyMs);
      if (leaseAt === null) return false;
      await task.run(leaseAt);
      return true;
    } catch (err) {
      this.log.error({ err, task: task.name }, 'task failed');
      return false;
    }
  }

  /**
   * The lease lasts one period, so a task runs at most once per period whichever node holds it. Returns
   * the lease's start, or null when another node holds it.
   */
  async acquire(name: string, ms: number): Promise<number | null> {
    const at = this.clock();
    await this.db
      .insertInto('task_leases')
      .values({ name, owner: '', lease_until: 0, last_run_at: null })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const r = await this.db
      .updateTable('task_leases')
      .set({ owner: this.nodeId, lease_until: at + ms - 50, last_run_at: at })
      .where('name', '=', name)
      .where(sql<boolean>`lease_until <= ${at}`)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1 ? at : null;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) timersOf(this.clock).clearInterval(t);
    await Promise.allSettled([...this.running]);
  }
}
