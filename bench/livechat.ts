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
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
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
import {
  ARRIVING,
  addressOf,
  benchWorkspace,
  gate,
  keepAlive,
  liveChatToken,
  ok,
  rssKb,
  sleep,
  startServer,
} from './lib/serverProcess.js';

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
    const ws = await benchWorkspace(url, o.agents);
    const admin = ws.admin;
    const liveToken = await liveChatToken(url, admin);

    // Agents: users signed in, sockets connected (Online).
    const agents: { username: string; token: string; socket: Agent }[] = [];
    for (const { username, token } of ws.agents) {
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
