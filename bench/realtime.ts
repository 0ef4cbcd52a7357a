/**
 * `npm run bench -- realtime [--events=10000] [--sockets=200] [--window=50] [--warmup=500] [--rate=0]`
 *
 * One Parley server in this process (SQLite in a temp dir, or a fresh database on BENCH_DATABASE_URL)
 * and N socket.io-client sockets of one user, all in the account room, connected over loopback from a
 * worker thread (so the clients' decoding runs on the other core, not on the server's event loop).
 *
 * The same payloads go through two paths at the same pacing: at most `window` events not yet received
 * by every socket and, with --rate, no more than `rate` a second (default: as fast as the window allows,
 * which measures throughput; a rate below both paths' capacity compares latency at equal load):
 *   full      a command (runCommand + appendEvent) -> outbox row -> relay -> io.to(room).emit
 *   baseline  io.to(room).emit straight away
 * Latency is send -> receipt at each socket (every socket, every event); events/s counts events
 * received by all sockets. Prints both and the ratios full/baseline.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { rooms, type StatusUpdated } from '@parley/contracts';
import { createParley, type Parley } from '../apps/server/src/app.js';
import { resolveSession } from '../apps/server/src/platform/auth/sessions.js';
import { loadConfig } from '../apps/server/src/platform/config.js';
import type { DB } from '../apps/server/src/platform/db/db.js';
import { appendEvent, runCommand } from '../apps/server/src/platform/outbox/index.js';
import { fmt, freshBenchDatabase, percentile } from './lib/common.js';
import { type FromWorker, nowMs, type Payload, startClientWorker, type ToWorker } from './lib/realtimeClients.js';

interface Options {
  events: number;
  sockets: number;
  window: number;
  warmup: number;
  /** Events per second to send at; 0 sends as fast as the window allows (closed loop). */
  rate: number;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { events: 10_000, sockets: 200, window: 50, warmup: 500, rate: 0 };
  for (const arg of argv) {
    const m = /^--(events|sockets|window|warmup|rate)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --events= --sockets= --window= --warmup= --rate=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.events < 1 || o.sockets < 1 || o.window < 1) throw new Error('events, sockets and window must be at least 1');
  return o;
}

interface PhaseResult {
  label: string;
  events: number;
  seconds: number;
  eventsPerSec: number;
  receipts: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
  /** Send -> received by the last of the sockets, per event. */
  allP50: number;
  allP99: number;
}

/** The p-th percentile of sorted values (nearest rank). */

/** The main thread's handle on the client worker: requests with answers, and per-event deliveries. */
class Clients {
  private waiters: { type: FromWorker['type']; resolve(m: FromWorker): void; reject(err: Error): void }[] = [];
  onDelivered: ((phase: number, i: number, at: number) => void) | null = null;
  failure: Error | null = null;

  constructor(readonly worker: Worker) {
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'delivered') return this.onDelivered?.(m.phase, m.i, m.at);
      if (m.type === 'error') return this.fail(new Error(`client worker: ${m.message}`));
      const w = this.waiters.findIndex((x) => x.type === m.type);
      if (w >= 0) this.waiters.splice(w, 1)[0]!.resolve(m);
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => {
      if (this.waiters.length > 0) this.fail(new Error(`client worker exited (${code})`));
    });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(err);
  }

  /** Sends a message and waits for the answer of the given type (or fails after `ms`). */
  ask<T extends FromWorker['type']>(m: ToWorker, type: T, ms = 60_000): Promise<Extract<FromWorker, { type: T }>> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from the client worker in ${ms} ms`)), ms);
      this.waiters.push({
        type,
        resolve: (x) => {
          clearTimeout(timer);
          resolve(x as Extract<FromWorker, { type: T }>);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      this.worker.postMessage(m);
    });
  }
}

let phaseCounter = 0;

/**
 * Sends `n` payloads through `send`, keeping at most `window` of them not yet received by every socket,
 * and, when `rate` is set, no faster than `rate` a second.
 */
async function runPhase(
  clientsRef: Clients,
  label: string,
  n: number,
  { window, rate }: { window: number; rate: number },
  base: StatusUpdated,
  send: (p: Payload) => Promise<unknown> | undefined,
): Promise<PhaseResult> {
  const phase = ++phaseCounter;
  await clientsRef.ask({ type: 'phase', phase, n }, 'ready');
  let next = 0;
  let done = 0;
  let firstSend = 0;
  let lastAt = 0;
  const sent = new Float64Array(n);
  const complete = new Float64Array(n);
  let progressAt = Date.now();
  let timer: NodeJS.Timeout | null = null;
  await new Promise<void>((resolve, reject) => {
    const stall = setInterval(() => {
      if (clientsRef.failure) fail(clientsRef.failure);
      else if (Date.now() - progressAt > 30_000)
        fail(new Error(`${label}: no event delivered for 30 s (${done}/${n})`));
    }, 250);
    const fail = (err: unknown) => {
      clearInterval(stall);
      if (timer) clearTimeout(timer);
      clientsRef.onDelivered = null;
      reject(err);
    };
    const pump = () => {
      while (next < n && next - done < window) {
        const due = rate > 0 && next > 0 ? firstSend + (next * 1000) / rate : 0;
        if (due > nowMs()) {
          timer ??= setTimeout(
            () => {
              timer = null;
              pump();
            },
            Math.max(0, due - nowMs()),
          );
          return;
        }
        const i = next++;
        const sentAt = nowMs();
        if (i === 0) firstSend = sentAt;
        sent[i] = sentAt;
        try {
          const r = send({ ...base, phase, i, sentAt });
          if (r) r.catch(fail);
        } catch (err) {
          fail(err);
        }
      }
    };
    clientsRef.onDelivered = (p, i, at) => {
      if (p !== phase) return;
      complete[done] = at - sent[i]!;
      done++;
      progressAt = Date.now();
      if (at > lastAt) lastAt = at;
      if (done === n) {
        clearInterval(stall);
        clientsRef.onDelivered = null;
        resolve();
      } else pump();
    };
    pump();
  });
  const r = await clientsRef.ask({ type: 'report', phase }, 'report');
  const seconds = (lastAt - firstSend) / 1000;
  return {
    label,
    events: n,
    seconds,
    eventsPerSec: n / seconds,
    receipts: r.receipts,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    mean: r.mean,
    allP50: percentile(complete.sort(), 50),
    allP99: percentile(complete, 99),
  };
}

/** The bench's command: no rows of its own, one event for the account room (the spine's fixed cost). */
function pingCommand(db: DB, accountId: number, room: string, payload: Payload) {
  return runCommand(db, (trx) =>
    appendEvent(trx, {
      accountId,
      type: 'bench.pinged',
      payload,
      realtime: { name: 'statusUpdated', rooms: [room] },
    }),
  );
}

function printTable(o: Options, dialect: string, baseline: PhaseResult, full: PhaseResult): void {
  const cpu = os.cpus();
  const ratio = (f: number, b: number) => `${fmt(f / b)}x`;
  const rows: string[][] = [
    ['path', 'events', 'receipts', 'p50 ms', 'p99 ms', 'max ms', 'all p50', 'all p99', 'events/s', 'msgs/s'],
    ...[baseline, full].map((r) => [
      r.label,
      String(r.events),
      String(r.receipts),
      fmt(r.p50),
      fmt(r.p99),
      fmt(r.max, 1),
      fmt(r.allP50),
      fmt(r.allP99),
      fmt(r.eventsPerSec, 0),
      fmt(r.eventsPerSec * o.sockets, 0),
    ]),
    [
      'full/baseline',
      '',
      '',
      ratio(full.p50, baseline.p50),
      ratio(full.p99, baseline.p99),
      ratio(full.max, baseline.max),
      ratio(full.allP50, baseline.allP50),
      ratio(full.allP99, baseline.allP99),
      ratio(full.eventsPerSec, baseline.eventsPerSec),
      ratio(full.eventsPerSec, baseline.eventsPerSec),
    ],
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)));
  process.stdout.write(
    `\nrealtime: ${o.events} events x ${o.sockets} sockets, window ${o.window}, ` +
      `${o.rate ? `${o.rate} events/s` : 'closed loop'}, ${dialect}, ` +
      `${new Date().toISOString()}\n` +
      `machine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ` +
      `node ${process.version}, ${os.platform()} ${os.release()}\n\n`,
  );
  for (const r of rows) process.stdout.write(`${line(r).join('  ')}\n`);
  process.stdout.write(
    '\nevents/s: events received by every socket, per second; msgs/s = events/s x sockets.\n' +
      'p50/p99/max: send -> receipt at one socket, over every socket and event (ms).\n' +
      'all p50/p99: send -> received by the last socket, per event (ms).\n' +
      `Pacing, the same on both paths: at most ${o.window} events not yet received by every socket` +
      `${o.rate ? `, sent at ${o.rate} events/s` : ', sent as soon as the window allows'}.\n`,
  );
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const pg = process.env.BENCH_DATABASE_URL ? await freshBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  let parley: Parley | null = null;
  let worker: Worker | null = null;
  const watchdog = setTimeout(() => {
    process.stderr.write('realtime bench: gave up after 10 minutes\n');
    process.exit(1);
  }, 10 * 60_000);
  watchdog.unref();
  try {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: (process.env.BENCH_LOG_LEVEL as 'silent' | undefined) ?? 'silent',
      DATA_DIR: dataDir,
      DATABASE_URL: pg?.url,
    });
    parley = await createParley(config);
    const port = await parley.listen();
    const url = `http://127.0.0.1:${port}`;
    const suffix = randomBytes(3).toString('hex');
    const res = await fetch(`${url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        company: `Bench ${suffix}`,
        name: 'Ann Admin',
        username: `ann-${suffix}`,
        email: `ann-${suffix}@example.com`,
        password: 'correct horse battery',
      }),
    });
    if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${await res.text()}`);
    const { token } = (await res.json()) as { token: string };
    const auth = await resolveSession(parley.handle.db, token);
    if (!auth) throw new Error('the new session does not resolve');
    const room = rooms.account(auth.accountId);
    const base: StatusUpdated = {
      userId: auth.userId,
      username: auth.username,
      status: 'ONLINE',
      second_status: 'AWAY',
      reason: 'Benchmark',
      since: Date.now(),
    };

    worker = startClientWorker();
    const c = new Clients(worker);
    process.stdout.write(`connecting ${o.sockets} sockets to ${url} (${parley.handle.dialect}) ...\n`);
    await c.ask({ type: 'connect', url, token, sockets: o.sockets }, 'connected');
    const inRoom = await parley.realtime.io.in(room).fetchSockets();
    if (inRoom.length !== o.sockets) throw new Error(`${inRoom.length} sockets in ${room}, expected ${o.sockets}`);

    const p = parley;
    let seq = 1_000_000_000;
    const baselineSend = (payload: Payload) => {
      p.realtime.io.to(room).emit('statusUpdated', { seq: ++seq, data: payload });
      return undefined;
    };
    const fullSend = (payload: Payload) => pingCommand(p.handle.db, auth.accountId, room, payload);

    const pace = { window: o.window, rate: o.rate };
    if (o.warmup > 0) {
      process.stdout.write(`warm-up: ${o.warmup} events on each path ...\n`);
      await runPhase(c, 'warm-up baseline', o.warmup, pace, base, baselineSend);
      await runPhase(c, 'warm-up full', o.warmup, pace, base, fullSend);
    }
    process.stdout.write(`baseline: ${o.events} events ...\n`);
    const baseline = await runPhase(c, 'baseline (io.emit)', o.events, pace, base, baselineSend);
    process.stdout.write(`full path: ${o.events} events ...\n`);
    const full = await runPhase(c, 'full (command->outbox->relay)', o.events, pace, base, fullSend);
    printTable(o, parley.handle.dialect, baseline, full);

    await c.ask({ type: 'close' }, 'closed', 10_000);
  } finally {
    if (worker) await worker.terminate();
    await parley?.close();
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`realtime bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
