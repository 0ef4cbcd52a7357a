/**
 * `npm run bench -- chaos [--seconds=40] [--rate=20] [--watchers=8]`
 *
 * Three Parley nodes as processes on one Postgres database (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test; a fresh database made and dropped) and a Redis of the bench's
 * own (`redis-server` on a free port, so restarting it disturbs nothing else), behind a small round-robin
 * proxy (bench/lib/roundRobinProxy.ts). Under steady load for `--seconds`:
 *   - writers post messages into a staff ticket through the proxy at about `--rate` a second, each with its
 *     own `client_id`, retrying the same message until one call is acknowledged (200);
 *   - `--watchers` agent sockets, connected through the proxy, apply events as the web app does (the
 *     contracts' SeqTracker: each sequence number once; the handshake asks for what came after the floor;
 *     a catch-up confirms up to its head; `GET /api/events` fills a gap at the end);
 * and faults: at 25 % of the time one node is SIGKILLed, at 45 % it is started again, at 65 % Redis is
 * killed and started again (empty). At the end every watcher fills its gaps, then the bench checks:
 * every acknowledged message is stored exactly once, and every watcher applied each of them exactly once;
 * sockets on the killed node came back by themselves. Prints the counts, reconnections, and how long
 * watchers were without a connection. Exits 1 if a check fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newQueueId, SeqTracker } from '@parley/contracts';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { fmt, freshBenchDatabase, nowMs } from './lib/common.js';
import { startRoundRobinProxy } from './lib/roundRobinProxy.js';
import { benchWorkspace, freePort, keepAlive, ok, request, sleep, startServer } from './lib/serverProcess.js';

interface Options {
  seconds: number;
  rate: number;
  watchers: number;
}
function parseOptions(argv: string[]): Options {
  const o: Options = { seconds: 40, rate: 20, watchers: 8 };
  for (const arg of argv) {
    const m = /^--(seconds|rate|watchers)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --seconds= --rate= --watchers=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.seconds < 10 || o.rate < 1 || o.watchers < 1) throw new Error('seconds >= 10, rate and watchers >= 1');
  return o;
}

type CatchUp = { events: { name: string; seq: number; data: unknown }[]; head: number; complete: boolean };

/** An agent's socket applying events the way the web app's realtime client does. */
class Watcher {
  readonly seqs = new SeqTracker();
  /** How many times each message text was applied. */
  readonly applied = new Map<string, number>();
  disconnects = 0;
  reconnects = 0;
  offlineMs = 0;
  private downAt = 0;
  private socket: Socket | null = null;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  connect(): Promise<void> {
    const socket = io(this.url, {
      transports: ['websocket'],
      reconnectionDelay: 500,
      reconnectionDelayMax: 2_000,
      auth: (cb) => {
        const from = this.seqs.resumeFrom();
        cb(from === undefined ? { token: this.token } : { token: this.token, lastSeq: from });
      },
    });
    this.socket = socket;
    socket.on('catchUp', (e: CatchUp) => this.catchUp(e));
    socket.onAny((name: string, payload: { seq?: number; data?: unknown }) => {
      if (name !== 'catchUp' && typeof payload?.seq === 'number') this.apply(name, payload.seq, payload.data);
    });
    socket.on('disconnect', () => {
      this.disconnects += 1;
      this.downAt = nowMs();
    });
    socket.io.on('reconnect', () => {
      this.reconnects += 1;
      this.offlineMs += nowMs() - this.downAt;
    });
    return new Promise((resolve, reject) => {
      socket.once('catchUp', () => resolve());
      socket.once('connect_error', reject);
    });
  }

  /** What the app does once things are quiet: ask `GET /api/events` for everything after the floor. */
  async fillGaps(): Promise<void> {
    for (let page = 0; page < 20 && this.seqs.hasGap(); page++) {
      const after = this.seqs.resumeFrom() ?? 0;
      const r = await request(`${this.url}/api/events?after=${after}`, 'GET', undefined, { token: this.token });
      if (r.status !== 200) throw new Error(`GET /api/events: ${r.status}`);
      this.catchUp(r.body as unknown as CatchUp);
    }
  }

  close(): void {
    this.socket?.close();
  }

  private catchUp(e: CatchUp): void {
    for (const ev of e.events) this.apply(ev.name, ev.seq, ev.data);
    this.seqs.caughtUp(e.head);
  }

  private apply(name: string, seq: number, data: unknown): void {
    if (!this.seqs.accept(seq) || name !== 'newMessage') return;
    const text = (data as { message?: string }).message ?? '';
    if (text.startsWith('chaos-')) this.applied.set(text, (this.applied.get(text) ?? 0) + 1);
  }
}

async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) return proc;
    await sleep(100);
  }
  throw new Error('redis-server did not start');
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const db = await freshBenchDatabase(base);
  const watchdog = setTimeout(
    () => {
      process.stderr.write('chaos bench: gave up after its time and 10 minutes\n');
      process.exit(1);
    },
    o.seconds * 1000 + 10 * 60_000,
  );
  watchdog.unref();
  const redisPort = await freePort();
  let redis = await startRedis(redisPort);
  const env = (name: string) => ({
    DATABASE_URL: db.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    NODE_ID: name,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), `parley-chaos-${name}-`)),
  });
  const nodes: { name: string; url: URL; proc: ChildProcess }[] = [];
  const watchers: Watcher[] = [];
  const client = new pg.Client({ connectionString: db.url });
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>> | undefined;
  let failed = false;
  try {
    // One node first (it migrates), then the other two.
    for (const name of ['chaos-a', 'chaos-b', 'chaos-c']) {
      const s = await startServer(env(name));
      nodes.push({ name, url: new URL(s.url), proc: s.proc });
    }
    proxy = await startRoundRobinProxy(() => nodes.map((n) => n.url));
    const url = proxy.url;
    await client.connect();
    const ws = await benchWorkspace(url, Math.min(3, o.watchers - 1), 'Chaos');
    const admin = ws.admin;
    const tokens = [admin, ...ws.agents.map((a) => a.token)];
    const ticket = (await ok(`${url}/api/ticket/create`, 'POST', { title: 'Chaos', name: 'Pat' }, { token: admin }))
      .data as { id: number };
    for (let i = 0; i < o.watchers; i++) {
      const w = new Watcher(url, tokens[i % tokens.length]!);
      await w.connect();
      watchers.push(w);
    }

    // Writers: each message retried with its client_id until one call is acknowledged.
    const acked = new Set<string>();
    let sent = 0;
    let retries = 0;
    let running = true;
    const writer = async (k: number) => {
      const gap = (1000 * 4) / o.rate;
      while (running) {
        const text = `chaos-${k}-${sent++}`;
        const clientId = newQueueId();
        const deadline = nowMs() + 60_000;
        for (;;) {
          const r = await request(
            `${url}/api/ticket/message`,
            'POST',
            { ticket_id: ticket.id, message: text, client_id: clientId },
            { token: tokens[k % tokens.length] },
          ).catch(() => ({ status: 0 }));
          if (r.status === 200) {
            acked.add(text);
            break;
          }
          retries += 1;
          if (nowMs() > deadline) throw new Error(`${text} was never acknowledged`);
          await sleep(250);
        }
        await sleep(gap);
      }
    };
    const t0 = nowMs();
    process.stdout.write(`chaos: 3 nodes, ${o.watchers} watchers, ~${o.rate} messages/s for ${o.seconds} s\n`);
    const writers = Array.from({ length: 4 }, (_, k) => writer(k));
    const at = (share: number) => sleep(Math.max(0, t0 + o.seconds * 1000 * share - nowMs()));
    const log = (what: string) => process.stdout.write(`${fmt((nowMs() - t0) / 1000, 1)} s: ${what}\n`);

    await at(0.25);
    const victim = nodes[1]!;
    victim.proc.kill('SIGKILL');
    log(`SIGKILL ${victim.name}`);
    await at(0.45);
    const again = await startServer(env(victim.name));
    victim.url = new URL(again.url);
    victim.proc = again.proc;
    log(`${victim.name} started again`);
    await at(0.65);
    redis.kill('SIGKILL');
    await new Promise((r) => redis.once('exit', r));
    log('Redis killed');
    await sleep(1_000);
    redis = await startRedis(redisPort);
    log('Redis started again (empty)');
    await at(1);
    running = false;
    await Promise.all(writers);
    log(`load stopped: ${acked.size} messages acknowledged (${retries} retries)`);

    // Quiet: every node's relay delivers what is left; then each watcher fills its gaps.
    const deadline = nowMs() + 120_000;
    for (;;) {
      const left = await client.query('select count(*)::int as n from events where delivered_at is null');
      if (left.rows[0].n === 0) break;
      if (nowMs() > deadline) throw new Error(`${left.rows[0].n} events were never delivered`);
      await sleep(500);
    }
    await sleep(3_000);
    for (const w of watchers) await w.fillGaps();

    const stored = await client.query(
      "select message, count(*)::int as n from messages where ticket_id = $1 and message like 'chaos-%' group by message",
      [ticket.id],
    );
    const counts = new Map<string, number>(stored.rows.map((r: { message: string; n: number }) => [r.message, r.n]));
    const lost = [...acked].filter((t) => !counts.has(t));
    const doubled = [...counts].filter(([, n]) => n > 1);
    process.stdout.write(
      `\nstored: ${counts.size} messages; acknowledged but not stored: ${lost.length}; stored twice: ${doubled.length}\n\n`,
    );
    process.stdout.write('| watcher | applied | missing | applied twice | disconnects | reconnects | offline s |\n');
    process.stdout.write('|---:|---:|---:|---:|---:|---:|---:|\n');
    let missingAll = 0;
    let twiceAll = 0;
    watchers.forEach((w, i) => {
      const missing = [...acked].filter((t) => !w.applied.has(t)).length;
      const twice = [...w.applied.values()].filter((n) => n > 1).length;
      missingAll += missing;
      twiceAll += twice;
      process.stdout.write(
        `| ${i} | ${w.applied.size} | ${missing} | ${twice} | ${w.disconnects} | ${w.reconnects} | ${fmt(w.offlineMs / 1000, 1)} |\n`,
      );
    });
    const stillDown = watchers.filter((w) => w.disconnects > w.reconnects).length;
    failed = lost.length > 0 || doubled.length > 0 || missingAll > 0 || twiceAll > 0 || stillDown > 0;
    process.stdout.write(
      `\n${failed ? 'FAILED' : 'passed'}: every acknowledged message stored once (${lost.length} lost, ${doubled.length} doubled); ` +
        `every watcher applied each once (${missingAll} missing, ${twiceAll} twice); ${stillDown} watchers still disconnected\n`,
    );
  } finally {
    for (const w of watchers) w.close();
    keepAlive.destroy();
    await proxy?.close();
    for (const n of nodes) if (n.proc.exitCode === null && n.proc.signalCode === null) n.proc.kill('SIGTERM');
    await Promise.all(nodes.map((n) => (n.proc.exitCode === null ? new Promise((r) => n.proc.once('exit', r)) : null)));
    redis.kill('SIGKILL');
    await client.end().catch(() => {});
    await db.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    clearTimeout(watchdog);
  }
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`chaos bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
