import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccount, type SpineDb, spineDatabase } from '../../testing/spine.js';
import { dialects, tempDir } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { appendEvent, runCommand } from './outbox.js';

/**
 * SPINE crash safety: a relay in its own OS process is killed with SIGKILL in the middle of a stream of
 * events; a fresh relay process takes over once the dead one's lease lapses. Nothing is lost, the
 * transactional listener's work happens exactly once, and the effect listener, which may see an event
 * twice (at least once), lands its idempotent effect exactly once.
 */
const root = path.resolve(import.meta.dirname, '../../../../..');
const WORKER = path.join(root, 'apps/server/src/testing/relayWorker.ts');
const EVENTS = 60;
const BATCH = 5;
const LEASE_MS = 300;

const children: ChildProcess[] = [];
const killAllNow = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
};
process.once('exit', killAllNow);

interface Worker {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

async function startWorker(s: SpineDb, nodeId: string, effectLog: string): Promise<Worker> {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: root,
    env: {
      ...process.env,
      ...s.env,
      DATABASE_URL: s.env.DATABASE_URL ?? '',
      NODE_ID: nodeId,
      RELAY_LEASE_MS: String(LEASE_MS),
      RELAY_POLL_MS: '10',
      RELAY_BATCH: String(BATCH),
      LOG_LEVEL: 'error',
      EFFECT_LOG: effectLog,
      EFFECT_DELAY_MS: '15',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`worker ${nodeId} exited early:\n${out}`);
      return out.includes('ready');
    },
    () => `worker ${nodeId} to start:\n${out}`,
    15_000,
  );
  return { child, exited, output: () => out };
}

/** The effect log: one [event id, node] per time the effect listener ran. */
const readLog = (file: string): [number, string][] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [id, node] = l.split(' ');
          return [Number(id), node!];
        })
    : [];

const countBy = (ids: number[]) => {
  const m = new Map<number, number>();
  for (const id of ids) m.set(id, (m.get(id) ?? 0) + 1);
  return m;
};

describe.each(dialects)('SPINE relay killed mid-stream on %s', (dialect) => {
  let s: SpineDb | undefined;
  const dir = tempDir('parley-relay-kill-');
  afterAll(async () => {
    killAllNow();
    await s?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('SPINE a relay process killed with SIGKILL mid-stream: a fresh one delivers the rest, each effect exactly once', async () => {
    s = await spineDatabase(dialect);
    const db = s.db;
    await sql`create table relay_kill_tx (event_id bigint not null, node_id text not null)`.execute(db);
    await sql`create table relay_kill_effects (event_id bigint primary key, node_id text not null)`.execute(db);
    const effectLog = path.join(dir, 'effects.log');

    const accounts = [await createAccount(db, 'A'), await createAccount(db, 'B')];
    for (let i = 0; i < EVENTS; i++) {
      await runCommand(db, (trx) =>
        appendEvent(trx, { accountId: accounts[i % 2]!, type: 'test.killed', payload: { i } }),
      );
    }
    const ids = (await db.selectFrom('events').select('id').orderBy('id').execute()).map((r) => Number(r.id));
    expect(ids).toHaveLength(EVENTS);

    // The first worker gets about a third of the way, into the middle of a batch (each effect takes 15 ms),
    // then dies without any chance to clean up.
    const first = await startWorker(s, 'worker-first', effectLog);
    await waitFor(
      () => readLog(effectLog).length >= 4 * BATCH + 2,
      () => `progress:\n${first.output()}`,
      10_000,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const atKill = await db.selectFrom('events').select(['id', 'delivered_at', 'lease_owner']).execute();
    const deliveredAtKill = atKill.filter((r) => r.delivered_at !== null).length;
    expect(deliveredAtKill).toBeLessThan(EVENTS);
    // What it had claimed stays leased to the dead worker until the lease lapses.
    const orphaned = atKill.filter((r) => r.delivered_at === null && r.lease_owner === 'worker-first');
    expect(orphaned.length).toBeGreaterThan(0);
    expect(orphaned.length).toBeLessThanOrEqual(BATCH);
    const ranBeforeKill = readLog(effectLog).length;
    expect(ranBeforeKill).toBeLessThan(EVENTS);

    const second = await startWorker(s, 'worker-second', effectLog);
    await waitFor(
      async () =>
        Number(
          (
            await db
              .selectFrom('events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('delivered_at', 'is', null)
              .executeTakeFirstOrThrow()
          ).n,
        ) === 0,
      () => `the second worker to deliver the rest:\n${second.output()}`,
      15_000,
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    // Every event delivered, none set aside as failed: a crash is not a failed attempt.
    const events = await db.selectFrom('events').select(['id', 'delivered_at', 'attempts', 'last_error']).execute();
    expect(events.every((e) => e.delivered_at !== null && e.attempts === 0 && e.last_error === null)).toBe(true);

    // Transactional listener: exactly once per event, across the crash.
    const tx = (
      await sql<{ event_id: number; node_id: string }>`select event_id, node_id from relay_kill_tx`.execute(db)
    ).rows;
    const txCount = countBy(tx.map((r) => Number(r.event_id)));
    expect([...txCount.keys()].sort((a, b) => a - b)).toEqual(ids);
    expect([...txCount.values()].every((n) => n === 1)).toBe(true);
    const receipts = await db
      .selectFrom('event_receipts')
      .select('event_id')
      .where('listener', '=', 'killTx')
      .execute();
    expect(countBy(receipts.map((r) => Number(r.event_id))).size).toBe(EVENTS);
    expect(receipts).toHaveLength(EVENTS);

    // Effect listener: ran at least once per event; only events the dead worker had in hand ran twice.
    const runs = readLog(effectLog);
    const runCount = countBy(runs.map(([id]) => id));
    expect([...runCount.keys()].sort((a, b) => a - b)).toEqual(ids);
    const repeated = [...runCount].filter(([, n]) => n > 1).map(([id]) => id);
    expect(repeated.length).toBeGreaterThan(0);
    expect(repeated.length).toBeLessThanOrEqual(BATCH);
    expect([...runCount.values()].every((n) => n <= 2)).toBe(true);
    for (const id of repeated) {
      expect(runs.filter(([x]) => x === id).map(([, node]) => node)).toEqual(['worker-first', 'worker-second']);
    }
    expect(runs.length).toBe(EVENTS + repeated.length);
    expect(new Set(runs.map(([, node]) => node))).toEqual(new Set(['worker-first', 'worker-second']));

    // ...and its idempotent effect landed exactly once per event.
    const effects = (
      await sql<{ event_id: number; node_id: string }>`select event_id, node_id from relay_kill_effects`.execute(db)
    ).rows;
    expect(effects.map((r) => Number(r.event_id)).sort((a, b) => a - b)).toEqual(ids);
  });
});
