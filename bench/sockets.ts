/**
 * `npm run bench -- sockets [--agents=5000] [--visitors=5000] [--users=20] [--broadcasts=20]`
 *
 * Many connected sockets on one node. One Parley server as its own process (SQLite in a temp dir, or a fresh
 * database on BENCH_DATABASE_URL), so its memory is read from /proc without the clients in it; then, as the
 * baseline, a bare socket.io server (bench/lib/bareSocketServer.ts) as its own process, with the same
 * sockets and the same broadcasts. This process plays the clients over loopback:
 *   1. `--agents` agent sockets, signed in as `--users` agents (an agent has several tabs and devices), at
 *      most 50 handshakes at a time; server RSS before and after: kB per agent socket;
 *   2. `--visitors` visitor sockets on /visitor, each from its own loopback address after
 *      /api/livechat/info (the widget open on a page, nobody chatting yet): kB per visitor socket;
 *   3. `--broadcasts` account-wide events: Parley's is an admin's status change (POST
 *      /api/online_status/update -> `statusUpdated` to the account's room through the outbox and the relay);
 *      the baseline's is the same payload emitted to one room. Latency is the call's start -> receipt at
 *      each agent socket (p50/p99/max), and -> the last socket (all delivered).
 * Prints both servers' figures and Parley / bare ratios.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { fmt, freshBenchDatabase, nowMs, percentile } from './lib/common.js';
import {
  ARRIVING,
  addressOf,
  benchWorkspace,
  freePort,
  gate,
  liveChatToken,
  ok,
  rssKb,
  sleep,
  startServer,
} from './lib/serverProcess.js';

const root = path.resolve(import.meta.dirname, '..');

interface Options {
  agents: number;
  visitors: number;
  users: number;
  broadcasts: number;
}
function parseOptions(argv: string[]): Options {
  const o: Options = { agents: 5000, visitors: 5000, users: 20, broadcasts: 20 };
  for (const arg of argv) {
    const m = /^--(agents|visitors|users|broadcasts)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --agents= --visitors= --users= --broadcasts=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.agents < 1 || o.users < 1 || o.broadcasts < 1)
    throw new Error('agents, users and broadcasts must be at least 1');
  return o;
}

/** What one server is: where agents and visitors connect, and how it broadcasts to every agent socket. */
interface Target {
  name: string;
  url: string;
  pid: number;
  agentAuth(i: number): Record<string, string>;
  visitorAuth(i: number): Promise<Record<string, string>>;
  broadcast(b: number): Promise<void>;
}

interface Figures {
  rss0: number;
  rssAgents: number;
  rssAll: number;
  latencies: Float64Array;
  allDelivered: Float64Array;
}

async function connectAll(
  n: number,
  make: (i: number) => Promise<Socket>,
  sockets: Socket[],
  what: string,
): Promise<Socket[]> {
  const arriving = gate(ARRIVING);
  const made: Socket[] = [];
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await arriving.enter();
      try {
        const s = await make(i);
        sockets.push(s);
        made.push(s);
        await new Promise<void>((resolve, reject) => {
          if (s.connected) resolve();
          s.once('connect', () => resolve());
          s.once('connect_error', (err) => reject(new Error(`${what} ${i}: ${err.message}`)));
        });
      } finally {
        arriving.leave();
      }
    }),
  );
  return made;
}

async function measure(t: Target, o: Options, sockets: Socket[]): Promise<Figures> {
  await sleep(1500);
  const rss0 = rssKb(t.pid);
  process.stdout.write(`${t.name}: connecting ${o.agents} agent sockets ...\n`);
  const agents = await connectAll(
    o.agents,
    async (i) =>
      io(t.url, {
        transports: ['websocket'],
        auth: t.agentAuth(i),
        reconnection: false,
        forceNew: true,
        timeout: 60_000,
      }),
    sockets,
    'agent',
  );
  await sleep(2000);
  const rssAgents = rssKb(t.pid);
  process.stdout.write(`${t.name}: connecting ${o.visitors} visitor sockets ...\n`);
  await connectAll(
    o.visitors,
    async (i) =>
      io(`${t.url}/visitor`, {
        transports: ['websocket'],
        auth: await t.visitorAuth(i),
        reconnection: false,
        forceNew: true,
        timeout: 60_000,
        localAddress: addressOf(i),
      } as Parameters<typeof io>[1]),
    sockets,
    'visitor',
  );
  await sleep(2000);
  const rssAll = rssKb(t.pid);

  // Counted from here: presence changes of the agents connecting have all arrived by now.
  const counts = new Uint32Array(agents.length);
  const latencies: number[] = [];
  const allDelivered: number[] = [];
  let sentAt = 0;
  let expected = 0;
  let left = 0;
  let done: () => void = () => {};
  agents.forEach((s, k) => {
    s.on('statusUpdated', () => {
      if (counts[k]! >= expected) return;
      counts[k]! += 1;
      if (counts[k] !== expected) return;
      latencies.push(nowMs() - sentAt);
      left -= 1;
      if (left === 0) done();
    });
  });
  process.stdout.write(`${t.name}: ${o.broadcasts} broadcasts to ${agents.length} sockets ...\n`);
  for (let b = 0; b < o.broadcasts; b++) {
    expected = b + 1;
    left = agents.length;
    const all = new Promise<void>((resolve, reject) => {
      done = resolve;
      setTimeout(
        () =>
          reject(
            new Error(`${t.name}: broadcast ${b} reached ${agents.length - left} of ${agents.length} sockets in 30 s`),
          ),
        30_000,
      ).unref();
    });
    sentAt = nowMs();
    await t.broadcast(b);
    await all;
    allDelivered.push(nowMs() - sentAt);
    await sleep(300);
  }
  for (const s of sockets.splice(0)) s.close();
  await sleep(1000);
  const sorted = (a: number[]) => Float64Array.from(a).sort();
  return { rss0, rssAgents, rssAll, latencies: sorted(latencies), allDelivered: sorted(allDelivered) };
}

async function startBare(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/lib/bareSocketServer.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.once('data', () => resolve());
    proc.once('exit', () => reject(new Error('the bare socket.io server exited early')));
  });
  return { url: `http://127.0.0.1:${port}`, proc };
}

async function stop(proc: ChildProcess | undefined) {
  if (!proc || proc.exitCode !== null) return;
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-sockets-'));
  const pg = process.env.BENCH_DATABASE_URL ? await freshBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  const watchdog = setTimeout(() => {
    process.stderr.write('sockets bench: gave up after 15 minutes\n');
    process.exit(1);
  }, 15 * 60_000);
  watchdog.unref();
  const sockets: Socket[] = [];
  let parley: { url: string; proc: ChildProcess } | undefined;
  let bare: { url: string; proc: ChildProcess } | undefined;
  try {
    parley = await startServer({ DATA_DIR: dataDir, ...(pg ? { DATABASE_URL: pg.url } : {}) });
    const url = parley.url;
    const ws = await benchWorkspace(url, o.users);
    const admin = ws.admin;
    const liveToken = await liveChatToken(url, admin);
    const tokens = ws.agents.map((a) => a.token);
    // The admin's status goes back and forth: each change is one `statusUpdated` to the account.
    let captured = '';
    const parleyTarget: Target = {
      name: 'parley',
      url,
      pid: parley.proc.pid!,
      agentAuth: (i) => ({ token: tokens[i % tokens.length]! }),
      visitorAuth: async (i) => {
        const info = await ok(`${url}/api/livechat/info`, 'POST', { token: liveToken }, { from: addressOf(i) });
        return { token: liveToken, csrf: info.csrf as string };
      },
      broadcast: async (b) => {
        const body = b % 2 === 0 ? { status: 'AWAY', reason: 'Admin' } : { status: 'ONLINE', reason: '' };
        await ok(`${url}/api/online_status/update`, 'POST', body, { token: admin });
      },
    };
    // One socket of the admin's own records the payload, so the baseline broadcasts the same bytes.
    const probe = io(url, {
      transports: ['websocket'],
      auth: { token: tokens[0]! },
      reconnection: false,
      forceNew: true,
    });
    probe.on('statusUpdated', (e: unknown) => {
      captured = JSON.stringify(e);
    });
    await new Promise<void>((r) => probe.once('connect', () => r()));
    const p = await measure(parleyTarget, o, sockets);
    probe.close();
    await stop(parley.proc);
    if (!captured) throw new Error('no statusUpdated payload was seen');

    bare = await startBare();
    const bareUrl = bare.url;
    const b = await measure(
      {
        name: 'bare socket.io',
        url: bareUrl,
        pid: bare.proc.pid!,
        agentAuth: () => ({}),
        visitorAuth: async () => ({}),
        broadcast: async () => {
          const r = await fetch(`${bareUrl}/broadcast`, { method: 'POST', body: captured });
          await r.text();
        },
      },
      o,
      sockets,
    );

    const perAgent = (f: Figures) => (f.rssAgents - f.rss0) / o.agents;
    const perVisitor = (f: Figures) => (o.visitors ? (f.rssAll - f.rssAgents) / o.visitors : Number.NaN);
    const row = (label: string, a: number, x: number, digits = 1) =>
      `| ${label} | ${fmt(a, digits)} | ${fmt(x, digits)} | ${fmt(a / x, 2)}x |\n`;
    process.stdout.write(
      `\nsockets: ${o.agents} agent sockets (${o.users} agents), ${o.visitors} visitor sockets, ${o.broadcasts} broadcasts (${pg ? 'postgres' : 'sqlite'}); payload ${captured.length} bytes\n\n`,
    );
    process.stdout.write('| figure | parley | bare socket.io | parley / bare |\n|---|---:|---:|---:|\n');
    process.stdout.write(row('server RSS before sockets (MB)', p.rss0 / 1024, b.rss0 / 1024));
    process.stdout.write(row('server RSS with every socket (MB)', p.rssAll / 1024, b.rssAll / 1024));
    process.stdout.write(row('kB per agent socket', perAgent(p), perAgent(b)));
    process.stdout.write(row('kB per visitor socket', perVisitor(p), perVisitor(b)));
    for (const [label, q] of [
      ['broadcast -> one socket p50 (ms)', 50],
      ['broadcast -> one socket p99 (ms)', 99],
    ] as const)
      process.stdout.write(row(label, percentile(p.latencies, q), percentile(b.latencies, q)));
    process.stdout.write(row('broadcast -> one socket max (ms)', p.latencies.at(-1)!, b.latencies.at(-1)!));
    process.stdout.write(
      row('broadcast -> every socket p50 (ms)', percentile(p.allDelivered, 50), percentile(b.allDelivered, 50)),
    );
    process.stdout.write(
      row('broadcast -> every socket p99 (ms)', percentile(p.allDelivered, 99), percentile(b.allDelivered, 99)),
    );
  } finally {
    for (const s of sockets) s.close();
    await stop(parley?.proc);
    await stop(bare?.proc);
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`sockets bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
