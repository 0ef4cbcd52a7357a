/**
 * `npm run bench -- soak [--minutes=30] [--agents=20] [--rate=20] [--every=30]`
 *
 * Steady mixed load on one Parley server (its own process; SQLite in a temp dir, or a fresh database on
 * BENCH_DATABASE_URL) for `--minutes`, to see whether anything grows or slows with time. `--agents` agents,
 * each with a socket that receives the account's events, together make about `--rate` calls a second, mixed
 * as a working team would: replies in tickets (half), new tickets, ticket list loads, searches, status
 * changes. Every `--every` seconds it prints the server's RSS and V8 heap (from /proc and /metrics), the
 * event loop's lag p99 over the interval (the server's own monitor, read from /metrics), and the calls'
 * p50/p99 in that interval. The first interval after a one-minute warm-up is the baseline: the end prints
 * the last interval against it and the slope of heap and RSS over the run (MB a minute). A server that leaks
 * shows a steady slope; one that slows shows a growing p99 ratio.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { fmt, freshBenchDatabase, nowMs, percentile } from './lib/common.js';
import { benchWorkspace, keepAlive, request, rssKb, sleep, startServer } from './lib/serverProcess.js';

const WARMUP_S = 60;

interface Options {
  minutes: number;
  agents: number;
  rate: number;
  every: number;
}
function parseOptions(argv: string[]): Options {
  const o: Options = { minutes: 30, agents: 20, rate: 20, every: 30 };
  for (const arg of argv) {
    const m = /^--(minutes|agents|rate|every)=(\d+(?:\.\d+)?)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --minutes= --agents= --rate= --every=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.minutes <= 0 || o.agents < 1 || o.rate <= 0 || o.every < 5) throw new Error('bad options');
  return o;
}

/** One sample of the server and of the calls made since the last one. */
interface Sample {
  at: number;
  rssMb: number;
  heapMb: number;
  lagP99: number;
  calls: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Reads gauges from the Prometheus text /metrics answers. */
async function metrics(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z0-9_]+) ([0-9.e+-]+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den ? num / den : Number.NaN;
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-soak-'));
  const pg = process.env.BENCH_DATABASE_URL ? await freshBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  const watchdog = setTimeout(
    () => {
      process.stderr.write('soak bench: ran 10 minutes past its time, gave up\n');
      process.exit(1);
    },
    (o.minutes + 10) * 60_000,
  );
  watchdog.unref();
  const sockets: Socket[] = [];
  let server: { url: string; proc: ChildProcess } | undefined;
  try {
    server = await startServer({ DATA_DIR: dataDir, ...(pg ? { DATABASE_URL: pg.url } : {}) });
    const { url, proc } = server;
    const ws = await benchWorkspace(url, o.agents);
    const agents: { token: string; tickets: number[]; away: boolean }[] = [];
    for (const { token } of ws.agents) {
      const socket = io(url, { transports: ['websocket'], auth: { token }, reconnection: true, forceNew: true });
      sockets.push(socket);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      agents.push({ token, tickets: [], away: false });
    }

    const words = ['refund', 'parcel', 'invoice', 'password', 'delivery', 'broken', 'upgrade', 'cancel'];
    const pick = <T>(a: T[]) => a[Math.floor(Math.random() * a.length)]!;
    let latencies: number[] = [];
    let errors = 0;
    /** One call of a working day's mix, as one agent. */
    const oneCall = async (a: (typeof agents)[number]) => {
      const r = Math.random();
      const t0 = nowMs();
      let res: { status: number };
      if (r < 0.5 && a.tickets.length) {
        res = await request(
          `${url}/api/ticket/message`,
          'POST',
          { ticket_id: pick(a.tickets), message: `About the ${pick(words)}: ${randomBytes(6).toString('hex')}` },
          { token: a.token },
        );
      } else if (r < 0.65 || !a.tickets.length) {
        const made = await request(
          `${url}/api/ticket/create`,
          'POST',
          { title: `My ${pick(words)} ${randomBytes(3).toString('hex')}`, name: 'Pat Customer', message: 'Hello' },
          { token: a.token },
        );
        res = made;
        const id = (made.body.data as { id?: number } | undefined)?.id;
        // Each agent works on its latest 20 tickets, as agents close old ones and take new ones.
        if (id) a.tickets = [...a.tickets.slice(-19), id];
      } else if (r < 0.85) {
        res = await request(`${url}/api/ticket/load/me/0/ticket/0`, 'GET', undefined, { token: a.token });
      } else if (r < 0.95) {
        res = await request(`${url}/api/search/data?message=${pick(words)}`, 'GET', undefined, { token: a.token });
      } else {
        a.away = !a.away;
        res = await request(
          `${url}/api/online_status/update`,
          'POST',
          a.away ? { status: 'AWAY', reason: 'Break' } : { status: 'ONLINE', reason: '' },
          { token: a.token },
        );
      }
      latencies.push(nowMs() - t0);
      if (res.status !== 200) errors += 1;
    };

    const samples: Sample[] = [];
    const started = nowMs();
    const end = started + o.minutes * 60_000;
    let running = true;
    // Paced: each agent sends its share of `rate`, with jitter, never more than one call at a time.
    const loops = agents.map(async (a) => {
      const gap = (1000 * o.agents) / o.rate;
      while (running) {
        const t = nowMs();
        await oneCall(a).catch(() => {
          errors += 1;
        });
        await sleep(Math.max(0, gap * (0.5 + Math.random()) - (nowMs() - t)));
      }
    });
    process.stdout.write(
      `soak: ${o.minutes} min, ${o.agents} agents, ~${o.rate} calls/s (${pg ? 'postgres' : 'sqlite'}); a line every ${o.every} s\n\n`,
    );
    process.stdout.write('| minute | RSS MB | heap MB | loop lag p99 ms | calls | p50 ms | p99 ms | errors |\n');
    process.stdout.write('|---:|---:|---:|---:|---:|---:|---:|---:|\n');
    await metrics(url); // starts the lag interval
    while (nowMs() < end) {
      await sleep(Math.min(o.every * 1000, end - nowMs()));
      const m = await metrics(url);
      const sorted = Float64Array.from(latencies).sort();
      const s: Sample = {
        at: (nowMs() - started) / 60_000,
        rssMb: rssKb(proc.pid!) / 1024,
        heapMb: (m.get('nodejs_heap_size_used_bytes') ?? Number.NaN) / 2 ** 20,
        lagP99: (m.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
        calls: sorted.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        errors,
      };
      latencies = [];
      errors = 0;
      samples.push(s);
      process.stdout.write(
        `| ${fmt(s.at, 1)} | ${fmt(s.rssMb, 1)} | ${fmt(s.heapMb, 1)} | ${fmt(s.lagP99, 1)} | ${s.calls} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${s.errors} |\n`,
      );
    }
    running = false;
    await Promise.all(loops);

    const steady = samples.filter((s) => s.at * 60 >= WARMUP_S);
    if (steady.length < 2) {
      process.stdout.write('\n(run longer than a minute and two intervals for the drift figures)\n');
      return;
    }
    const first = steady[0]!;
    const last = steady.at(-1)!;
    const xs = steady.map((s) => s.at);
    process.stdout.write(
      `\nbaseline: the first interval after the ${WARMUP_S} s warm-up (minute ${fmt(first.at, 1)}); last: minute ${fmt(last.at, 1)}\n\n`,
    );
    process.stdout.write(
      '| figure | baseline | last | last / baseline | slope over the run |\n|---|---:|---:|---:|---:|\n',
    );
    const row = (label: string, a: number, b: number, unit: string, k: keyof Sample) =>
      process.stdout.write(
        `| ${label} | ${fmt(a, 1)} | ${fmt(b, 1)} | ${fmt(b / a, 2)}x | ${fmt(
          slope(
            xs,
            steady.map((s) => s[k] as number),
          ),
          2,
        )} ${unit}/min |\n`,
      );
    row('RSS (MB)', first.rssMb, last.rssMb, 'MB', 'rssMb');
    row('V8 heap used (MB)', first.heapMb, last.heapMb, 'MB', 'heapMb');
    row('event loop lag p99 (ms)', first.lagP99, last.lagP99, 'ms', 'lagP99');
    row('call p99 (ms)', first.p99, last.p99, 'ms', 'p99');
    const total = samples.reduce((n, s) => n + s.errors, 0);
    process.stdout.write(`\ncalls that failed over the run: ${total}\n`);
  } finally {
    keepAlive.destroy();
    for (const s of sockets) s.close();
    if (server?.proc && server.proc.exitCode === null) {
      server.proc.kill('SIGTERM');
      await new Promise((r) => server?.proc.once('exit', r));
    }
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`soak bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
