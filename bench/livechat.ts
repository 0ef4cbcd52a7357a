/**
 * `npm run bench -- livechat [--visitors=1000] [--agents=50] [--messages=10]`
 *
 * One Parley server as its own process (SQLite in a temp dir, or a fresh database on BENCH_DATABASE_URL),
 * so its memory can be read from /proc without the clients in it. This process plays the visitors and
 * the agents over loopback:
 *   1. `--visitors` visitors call /api/livechat/info, connect to the /visitor socket and registerQueue, all
 *      together, at most 50 of them mid-handshake at a time (each from its own loopback address, 127.x.y.z, as real visitors come from many addresses:
 *      the per-IP register limit stays on);
 *   2. server memory (RSS, from /proc/<pid>/status) before the visitors and with all of them connected and
 *      queued: the difference per visitor;
 *   3. `--agents` agents (own sockets, all Online) each Take one (acceptLiveChat null), exchange
 *      `--messages` messages both ways (visitor -> agent over the visitor socket, agent -> visitor with
 *      POST /api/ticket/message), end the chat, and take the next, until nobody waits.
 * Prints: accept call round trip p50/p99, visitor wait (registerQueue answered -> queueAccepted) p50/p99,
 * visitor -> agent latency (visitorMessage sent -> newMessage at the agent's socket) p50/p99, agent ->
 * visitor latency p50/p99, and memory per connected visitor.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type {
  ClientToServer,
  NewMessageEvent,
  ServerToClient,
  VisitorClientToServer,
  VisitorServerToClient,
} from '@parley/contracts';
import { io, type Socket } from 'socket.io-client';
import { fmt, freshBenchDatabase, percentile } from './lib/common.js';

const root = path.resolve(import.meta.dirname, '..');
const PASSWORD = 'correct horse battery';

interface Options {
  visitors: number;
  agents: number;
  messages: number;
}
function parseOptions(argv: string[]): Options {
  const o: Options = { visitors: 1000, agents: 50, messages: 10 };
  for (const arg of argv) {
    const m = /^--(visitors|agents|messages)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --visitors= --agents= --messages=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.visitors < 1 || o.agents < 1) throw new Error('visitors and agents must be at least 1');
  return o;
}

type Visitor = Socket<VisitorServerToClient, VisitorClientToServer>;
type Agent = Socket<ServerToClient, ClientToServer>;

/** Each visitor's own loopback source address (Linux routes all of 127/8 to lo). */
const addressOf = (i: number) => `127.${1 + Math.floor(i / 62500)}.${1 + (Math.floor(i / 250) % 250)}.${1 + (i % 250)}`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 100 });

/** A JSON call from a given source address. */
function request(url: string, method: string, body: unknown, opts: { token?: string; from?: string } = {}) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const u = new URL(url);
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        localAddress: opts.from,
        // Visitors each come from their own address on a connection of their own; agents' calls reuse kept-alive
        // connections, as a browser does (a new connection a call cost the agent's POST most of its time).
        agent: opts.from ? false : keepAlive,
        headers: {
          ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            reject(new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 200)}`));
          }
        });
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}
async function ok(url: string, method: string, body: unknown, opts: { token?: string; from?: string } = {}) {
  const r = await request(url, method, body, opts);
  if (r.status !== 200) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

async function startServer(env: Record<string, string>): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error('the server exited early');
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, proc };
    } catch {}
    if (Date.now() > deadline) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How many visitors may be connecting and registering at the same moment. */
const ARRIVING = 50;

/** A counting gate: enter() waits while `size` callers are inside. */
function gate(size: number) {
  let inside = 0;
  const waiting: (() => void)[] = [];
  return {
    async enter() {
      if (inside >= size) await new Promise<void>((r) => waiting.push(r));
      inside++;
    },
    leave() {
      inside--;
      waiting.shift()?.();
    },
  };
}
const sorted = (a: number[]) => Float64Array.from(a).sort();
const line = (label: string, a: number[]) => {
  const s = sorted(a);
  return `| ${label} | ${s.length} | ${fmt(percentile(s, 50), 1)} | ${fmt(percentile(s, 99), 1)} | ${fmt(s[s.length - 1] ?? Number.NaN, 1)} |`;
};

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-livechat-'));
  const pg = process.env.BENCH_DATABASE_URL ? await freshBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  const watchdog = setTimeout(() => {
    process.stderr.write('livechat bench: gave up after 10 minutes\n');
    process.exit(1);
  }, 10 * 60_000);
  watchdog.unref();
  const sockets: { close(): void }[] = [];
  let server: { url: string; proc: ChildProcess } | null = null;
  try {
    server = await startServer({ DATA_DIR: dataDir, ...(pg ? { DATABASE_URL: pg.url } : {}) });
    const { url, proc } = server;
    const suffix = randomBytes(3).toString('hex');
    const setup = await ok(`${url}/api/setup`, 'POST', {
      company: `Bench ${suffix}`,
      name: 'Ann Admin',
      username: `ann-${suffix}`,
      email: `ann-${suffix}@example.com`,
      password: PASSWORD,
    });
    const admin = setup.token as string;
    const liveToken = (
      (await ok(`${url}/api/livechat/settings`, 'GET', undefined, { token: admin })).data as {
        token: string;
      }
    ).token;

    // Agents: users signed in, sockets connected (Online).
    const agents: { username: string; token: string; socket: Agent }[] = [];
    for (let i = 0; i < o.agents; i++) {
      const username = `agent${i}-${suffix}`;
      await ok(
        `${url}/api/users`,
        'POST',
        {
          username,
          name: `Agent ${i}`,
          email: `${username}@example.com`,
          type: 'agent',
          password: PASSWORD,
          permission: [],
        },
        { token: admin },
      );
      const token = (await ok(`${url}/api/auth2`, 'POST', { client: username, password: PASSWORD })).token as string;
      const socket: Agent = io(url, {
        transports: ['websocket'],
        auth: { token },
        reconnection: false,
        forceNew: true,
      });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once('connect_error', reject);
        socket.once('catchUp', () => resolve());
      });
      agents.push({ username, token, socket });
    }
    await sleep(500);
    const before = rssKb(proc.pid!);

    // Visitors arrive together, at most ARRIVING in the connect-and-register phase at a time: a thousand
    // handshakes started in the same tick time out on a 2-core machine before the server has read them.
    process.stdout.write(`queueing ${o.visitors} visitors on ${url} ...\n`);
    const arriving = gate(ARRIVING);
    const t0 = performance.now();
    const waits: number[] = [];
    const toVisitor: number[] = [];
    const visitors = await Promise.all(
      Array.from({ length: o.visitors }, async (_, i) => {
        await arriving.enter();
        const from = addressOf(i);
        const info = await ok(`${url}/api/livechat/info`, 'POST', { token: liveToken }, { from });
        const csrf = info.csrf as string;
        const socket: Visitor = io(`${url}/visitor`, {
          transports: ['websocket'],
          auth: { token: liveToken, csrf },
          reconnection: false,
          forceNew: true,
          timeout: 60_000,
          localAddress: from,
        } as Parameters<typeof io>[1]);
        sockets.push(socket);
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        let queuedAt = 0;
        const accepted = new Promise<void>((resolve) =>
          socket.once('queueAccepted', () => {
            waits.push(performance.now() - queuedAt);
            resolve();
          }),
        );
        const pending = new Map<string, number>();
        socket.on('newMessage', (e) => {
          const sent = pending.get(e.data.message.message);
          if (sent !== undefined) {
            toVisitor.push(performance.now() - sent);
            pending.delete(e.data.message.message);
          }
        });
        const r = await socket.emitWithAck('registerQueue', {
          token: liveToken,
          csrf,
          name: `Visitor ${i}`,
          phone: '0123',
          email: `v${i}@example.com`,
          message: `Hello from visitor ${i}`,
        });
        if (!r.ok) throw new Error(`registerQueue ${i}: ${r.error}`);
        queuedAt = performance.now();
        arriving.leave();
        return { i, socket, accepted, pending };
      }),
    );
    const queueSeconds = (performance.now() - t0) / 1000;
    await sleep(1000);
    const withVisitors = rssKb(proc.pid!);
    const perVisitorKb = (withVisitors - before) / o.visitors;
    process.stdout.write(`queued in ${fmt(queueSeconds, 1)} s; agents at work ...\n`);

    // Agents: Take one, exchange messages, end, next.
    const acceptRtt: number[] = [];
    const toAgent: number[] = [];
    const postRtt: number[] = [];
    const byName = new Map(visitors.map((v) => [`Visitor ${v.i}`, v]));
    const t1 = performance.now();
    let served = 0;
    await Promise.all(
      agents.map(async (a) => {
        const waitingAt = new Map<string, (at: number) => void>();
        a.socket.on('newMessage', (e: { data: NewMessageEvent }) => {
          const done = waitingAt.get(e.data.message);
          if (done) {
            waitingAt.delete(e.data.message);
            done(performance.now());
          }
        });
        for (;;) {
          const s = performance.now();
          const r = await a.socket.emitWithAck('acceptLiveChat', null);
          acceptRtt.push(performance.now() - s);
          if (!r.ok) {
            if (r.error === 'There is no live chat waiting.') return;
            throw new Error(`accept: ${r.error}`);
          }
          served += 1;
          const rows = await ok(`${url}/api/ticket/data3/${r.ticket_id}/0`, 'GET', undefined, { token: a.token });
          const first = (rows.data as { senderName: string }[])[0]?.senderName ?? '';
          const v = byName.get(first);
          if (!v) throw new Error(`no visitor named ${first}`);
          await v.accepted;
          for (let k = 0; k < o.messages; k++) {
            const text = `v${v.i} m${k} ${randomBytes(3).toString('hex')}`;
            const got = new Promise<number>((resolve) => waitingAt.set(text, resolve));
            const sent = performance.now();
            const ack = await v.socket.emitWithAck('visitorMessage', { message: text });
            if (!ack.ok) throw new Error(`visitorMessage: ${ack.error}`);
            toAgent.push((await got) - sent);
            const reply = `a re ${text}`;
            const posted = performance.now();
            v.pending.set(reply, posted);
            await ok(
              `${url}/api/ticket/message`,
              'POST',
              { ticket_id: r.ticket_id, message: reply },
              { token: a.token },
            );
            postRtt.push(performance.now() - posted);
          }
          await ok(`${url}/api/livechat/end`, 'POST', { id: r.ticket_id }, { token: a.token });
        }
      }),
    );
    const workSeconds = (performance.now() - t1) / 1000;
    await sleep(300);
    if (served !== o.visitors) throw new Error(`served ${served} of ${o.visitors}`);

    process.stdout.write(
      `\nlivechat: ${o.visitors} visitors, ${o.agents} agents, ${o.messages} messages each way a chat (${pg ? 'postgres' : 'sqlite'})\n`,
    );
    process.stdout.write(`all queued in ${fmt(queueSeconds, 1)} s; all served in ${fmt(workSeconds, 1)} s\n\n`);
    process.stdout.write('| figure (ms) | n | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n');
    process.stdout.write(`${line('accept call round trip (Take one)', acceptRtt)}\n`);
    process.stdout.write(`${line('visitor wait: queued -> queueAccepted', waits)}\n`);
    process.stdout.write(`${line('visitor -> agent message', toAgent)}\n`);
    process.stdout.write(`${line('agent -> visitor message (POST -> visitor socket)', toVisitor)}\n`);
    process.stdout.write(`${line('agent POST /api/ticket/message round trip', postRtt)}\n`);
    process.stdout.write(
      `\nserver RSS: ${fmt(before / 1024, 1)} MB before visitors, ${fmt(withVisitors / 1024, 1)} MB with ${o.visitors} queued: ${fmt(perVisitorKb, 1)} kB per connected visitor\n`,
    );
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
  process.stderr.write(`livechat bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
