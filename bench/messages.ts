/**
 * `npm run bench -- messages [--agents=50] [--seconds=30] [--senders=0] [--warmup=2]`
 *
 * One Parley server in this process (SQLite in a temp dir, or a fresh database on BENCH_DATABASE_URL),
 * one ticket, and N agents (N users, one socket each, websocket transport) watching it: every socket has
 * joined the ticket's room and hears the account's `newMessage` events. The sockets live in a worker
 * thread, so decoding N copies of every message runs on the other core, not on the server's event loop.
 *
 * Each sending agent (all of them unless --senders) sends its next message as soon as the previous one is
 * acknowledged, for --seconds, along two paths in turn (the same sockets, the same pacing):
 *   baseline  a bench-only socket event: one raw INSERT into messages, then io.to(room).emit('newMessage')
 *   full      `newChatMessage` (RT-10): validation, access check, the message command (idempotent queue- id,
 *             ticket touch, outbox event) -> relay -> realtime listener -> emit to the ticket's audience
 * messages/s counts rows persisted (counted in the database afterwards) per second of sending; latency is
 * send -> `newMessage` received, at every watcher, for every message.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { newQueueId, rooms } from '@parley/contracts';
import { sql } from 'kysely';
import { io as connect, type Socket } from 'socket.io-client';
import { createParley, type Parley } from '../apps/server/src/app.js';
import { resolveSession } from '../apps/server/src/platform/auth/sessions.js';
import { loadConfig } from '../apps/server/src/platform/config.js';
import { fmt, freshBenchDatabase, percentile } from './lib/common.js';

interface Options {
  agents: number;
  seconds: number;
  /** How many of the agents send; 0 means all of them. */
  senders: number;
  warmup: number;
}

type Mode = 'raw' | 'full';
type ToWorker =
  | { type: 'connect'; url: string; tokens: string[]; ticketId: number }
  | { type: 'run'; phase: number; mode: Mode; seconds: number; senders: number; ticketId: number }
  | { type: 'close' };
interface Report {
  type: 'report';
  phase: number;
  sent: number;
  acked: number;
  failed: number;
  firstError: string;
  sendSeconds: number;
  receipts: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
  /** Send -> received by the last watcher, per message. */
  allP50: number;
  allP99: number;
  ackP50: number;
  ackP99: number;
}
type FromWorker = { type: 'connected' } | Report | { type: 'closed' } | { type: 'error'; message: string };

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
/** The bench's own socket event for the baseline path. */
const RAW_EVENT = 'benchRawSend';

function parseOptions(argv: string[]): Options {
  const o: Options = { agents: 50, seconds: 30, senders: 0, warmup: 2 };
  for (const arg of argv) {
    const m = /^--(agents|seconds|senders|warmup)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --agents= --seconds= --senders= --warmup=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.agents < 1 || o.seconds < 1) throw new Error('agents and seconds must be at least 1');
  if (o.senders === 0 || o.senders > o.agents) o.senders = o.agents;
  return o;
}

// ---------------------------------------------------------------------------------------------------------
// Worker side: the agents' sockets.

function runWorker(): void {
  const port = parentPort!;
  const post = (m: FromWorker) => port.postMessage(m);
  let sockets: Socket[] = [];
  let closing = false;
  // The running phase: send times by message index, receipts per index, every receipt's latency.
  let phase = -1;
  let sentAt = new Float64Array(0);
  let counts = new Uint16Array(0);
  let lastAt = new Float64Array(0);
  let latencies: number[] = [];

  const onMessage = (e: { data?: { message?: string } }) => {
    const at = nowMs();
    const text = e?.data?.message;
    if (typeof text !== 'string' || !text.startsWith('b ')) return;
    const sp = text.indexOf(' ', 2);
    if (Number(text.slice(2, sp)) !== phase) return;
    const i = Number(text.slice(sp + 1));
    if (!(i < sentAt.length)) return;
    latencies.push(at - sentAt[i]!);
    counts[i]!++;
    lastAt[i] = at;
  };

  async function run(m: Extract<ToWorker, { type: 'run' }>): Promise<Report> {
    phase = m.phase;
    const cap = 1_000_000;
    sentAt = new Float64Array(cap);
    counts = new Uint16Array(cap);
    lastAt = new Float64Array(cap);
    latencies = [];
    const acks: number[] = [];
    let next = 0;
    let acked = 0;
    let failed = 0;
    let firstError = '';
    const start = nowMs();
    const deadline = start + m.seconds * 1000;
    let lastAck = start;
    const senders = sockets.slice(0, m.senders);
    await Promise.all(
      senders.map(
        (socket) =>
          new Promise<void>((resolve) => {
            const one = () => {
              if (nowMs() >= deadline || next >= cap) return resolve();
              const i = next++;
              const body = {
                ticket_id: m.ticketId,
                message: `b ${m.phase} ${i}`,
                type: 'text',
                client_id: newQueueId(),
              };
              sentAt[i] = nowMs();
              socket.emit(
                m.mode === 'full' ? 'newChatMessage' : RAW_EVENT,
                body,
                (r: { ok: boolean; error?: string }) => {
                  const at = nowMs();
                  acks.push(at - sentAt[i]!);
                  lastAck = at;
                  if (r?.ok) acked++;
                  else {
                    failed++;
                    firstError ||= r?.error ?? 'no answer';
                  }
                  one();
                },
              );
            };
            one();
          }),
      ),
    );
    const sent = next;
    // Deliveries still on their way: wait until every watcher has every acknowledged message (or 20 s).
    const target = sockets.length;
    const waitUntil = nowMs() + 20_000;
    const missing = () => {
      let n = 0;
      for (let i = 0; i < sent; i++) if (counts[i]! < target) n++;
      return n;
    };
    while (missing() > failed && nowMs() < waitUntil) await new Promise((r) => setTimeout(r, 50));
    const lat = Float64Array.from(latencies).sort();
    const all = new Float64Array(sent);
    let k = 0;
    for (let i = 0; i < sent; i++) if (counts[i] === target) all[k++] = lastAt[i]! - sentAt[i]!;
    const allSorted = all.subarray(0, k).sort();
    const ackSorted = Float64Array.from(acks).sort();
    return {
      type: 'report',
      phase: m.phase,
      sent,
      acked,
      failed,
      firstError,
      sendSeconds: (lastAck - start) / 1000,
      receipts: latencies.length,
      expected: acked * target,
      p50: percentile(lat, 50),
      p99: percentile(lat, 99),
      max: lat[lat.length - 1] ?? Number.NaN,
      allP50: percentile(allSorted, 50),
      allP99: percentile(allSorted, 99),
      ackP50: percentile(ackSorted, 50),
      ackP99: percentile(ackSorted, 99),
    };
  }

  port.on('message', async (m: ToWorker) => {
    try {
      if (m.type === 'connect') {
        const all = m.tokens.map((token, s) => {
          const socket = connect(m.url, {
            transports: ['websocket'],
            auth: { token },
            reconnection: false,
            forceNew: true,
          });
          sockets.push(socket);
          socket.on('newMessage', onMessage);
          socket.on('disconnect', (reason) => {
            if (!closing) post({ type: 'error', message: `socket ${s} disconnected (${reason})` });
          });
          return new Promise<void>((resolve, reject) => {
            socket.once('connect_error', reject);
            // After the catch-up the socket is in its rooms; then it joins the ticket's room too.
            socket.once('catchUp', () =>
              socket.emit('joinRoom', m.ticketId, (r: { ok: boolean; error?: string }) =>
                r?.ok ? resolve() : reject(new Error(`joinRoom: ${r?.error}`)),
              ),
            );
          });
        });
        await Promise.all(all);
        post({ type: 'connected' });
      } else if (m.type === 'run') {
        post(await run(m));
      } else if (m.type === 'close') {
        closing = true;
        for (const s of sockets) s.disconnect();
        sockets = [];
        post({ type: 'closed' });
        port.close();
      }
    } catch (err) {
      post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  });
}

function startWorker(): Worker {
  const code =
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
    `register();\nawait import(${JSON.stringify(import.meta.url)});\n`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
}

function ask<T extends FromWorker['type']>(
  worker: Worker,
  m: ToWorker,
  type: T,
  ms: number,
): Promise<Extract<FromWorker, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no ${type} from the worker in ${ms} ms`)), ms);
    const onMessage = (x: FromWorker) => {
      if (x.type === 'error') done(new Error(`worker: ${x.message}`));
      else if (x.type === type) done(null, x as Extract<FromWorker, { type: T }>);
    };
    const onError = (err: Error) => done(err);
    function done(err: Error | null, x?: Extract<FromWorker, { type: T }>) {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      if (err) reject(err);
      else resolve(x!);
    }
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.postMessage(m);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Main side: the server, the agents, the two paths and the table.

async function call(url: string, method: string, p: string, body: unknown, token?: string) {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** The bench's raw path: one INSERT, then the emit, then the ack. No validation, no outbox, no relay. */
function installRawPath(p: Parley, ticketId: number): void {
  let seq = 2_000_000_000;
  p.realtime.io.on('connection', (socket) => {
    const s = socket as unknown as {
      data: { auth: { accountId: number; username: string } };
      on(e: string, f: (body: { message: string; client_id: string }, ack: (r: unknown) => void) => void): void;
    };
    s.on(RAW_EVENT, async (body, ack) => {
      try {
        const { accountId, username } = s.data.auth;
        const at = Date.now();
        const row = await p.handle.db
          .insertInto('messages')
          .values({
            account_id: accountId,
            ticket_id: ticketId,
            type: 'text',
            message: body.message,
            sender: username,
            client_id: body.client_id,
            created_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const data = { id: Number(row.id), ticketId, type: 'text', message: body.message, sender: username, ts: at };
        p.realtime.io.to(rooms.account(accountId)).emit('newMessage', { seq: ++seq, data } as never);
        ack({ ok: true });
      } catch (err) {
        ack({ ok: false, error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
}

interface Row {
  label: string;
  r: Report;
  persisted: number;
  perSec: number;
}

async function persistedOf(p: Parley, ticketId: number, phase: number): Promise<number> {
  const row = await p.handle.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('ticket_id', '=', ticketId)
    .where(sql`message`, 'like', `b ${phase} %`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function printTable(o: Options, dialect: string, rows: Row[]): void {
  const cpu = os.cpus();
  const [b, f] = rows as [Row, Row];
  const ratio = (x: number, y: number) => `${fmt(x / y)}x`;
  const table: string[][] = [
    [
      'path',
      'persisted',
      'msgs/s',
      'receipts',
      'p50 ms',
      'p99 ms',
      'max ms',
      'all p50',
      'all p99',
      'ack p50',
      'ack p99',
    ],
    ...rows.map(({ label, r, persisted, perSec }) => [
      label,
      String(persisted),
      fmt(perSec, 0),
      `${r.receipts}/${r.expected}`,
      fmt(r.p50),
      fmt(r.p99),
      fmt(r.max, 1),
      fmt(r.allP50),
      fmt(r.allP99),
      fmt(r.ackP50),
      fmt(r.ackP99),
    ]),
    [
      'baseline/full',
      '',
      ratio(b.perSec, f.perSec),
      '',
      ratio(f.r.p50, b.r.p50),
      ratio(f.r.p99, b.r.p99),
      '',
      ratio(f.r.allP50, b.r.allP50),
      ratio(f.r.allP99, b.r.allP99),
      ratio(f.r.ackP50, b.r.ackP50),
      ratio(f.r.ackP99, b.r.ackP99),
    ],
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)));
  process.stdout.write(
    `\nmessages: ${o.agents} agents watching one ticket, ${o.senders} sending as fast as acknowledged, ` +
      `${o.seconds} s a path, ${dialect}, ${new Date().toISOString()}\n` +
      `machine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ` +
      `node ${process.version}, ${os.platform()} ${os.release()}, load ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}\n\n`,
  );
  for (const r of table) process.stdout.write(`${line(r).join('  ')}\n`);
  process.stdout.write(
    '\nmsgs/s: rows persisted (counted in the database) per second of sending.\n' +
      'p50/p99/max: send -> newMessage received, at every watcher, for every message (ms).\n' +
      'all p50/p99: send -> received by the last watcher, per message. ack: send -> acknowledgement.\n' +
      'ratios: baseline/full for throughput (how many times faster the raw path is), full/baseline for latency.\n',
  );
  for (const { label, r, persisted } of rows) {
    if (r.failed) process.stdout.write(`${label}: ${r.failed} sends refused, the first: ${r.firstError}\n`);
    if (persisted !== r.acked) process.stdout.write(`${label}: ${r.acked} acknowledged but ${persisted} persisted\n`);
    if (r.receipts < r.expected) process.stdout.write(`${label}: ${r.expected - r.receipts} deliveries missing\n`);
  }
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const pg = process.env.BENCH_DATABASE_URL ? await freshBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  let parley: Parley | null = null;
  let worker: Worker | null = null;
  const watchdog = setTimeout(() => {
    process.stderr.write('messages bench: gave up after 10 minutes\n');
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
    const url = `http://127.0.0.1:${await parley.listen()}`;
    const sfx = randomBytes(3).toString('hex');
    const setup = await call(url, 'POST', '/api/setup', {
      company: `Bench ${sfx}`,
      name: 'Ann Admin',
      username: `ann-${sfx}`,
      email: `ann-${sfx}@example.com`,
      password: 'correct horse battery',
    });
    const auth = await resolveSession(parley.handle.db, setup.token);
    if (!auth) throw new Error('the new session does not resolve');
    process.stdout.write(`creating ${o.agents} agents on ${url} (${parley.handle.dialect}) ...\n`);
    const tokens: string[] = [];
    for (let a = 0; a < o.agents; a++) {
      const username = `agent${a}-${sfx}`;
      const password = 'agent password 1';
      await call(url, 'POST', '/api/users', { username, name: `Agent ${a}`, password, type: 'agent' }, setup.token);
      tokens.push((await call(url, 'POST', '/api/auth2', { client: username, password })).token);
    }
    const at = Date.now();
    const ticket = await parley.handle.db
      .insertInto('tickets')
      .values({
        account_id: auth.accountId,
        ticket_number: 1,
        title: 'Benchmark ticket',
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: '',
        name: 'Pat',
        email: 'pat@example.com',
        phone: '',
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const ticketId = Number(ticket.id);
    installRawPath(parley, ticketId);

    worker = startWorker();
    await ask(worker, { type: 'connect', url, tokens, ticketId }, 'connected', 120_000);
    const inRoom = await parley.realtime.io.in(rooms.ticket(ticketId)).fetchSockets();
    if (inRoom.length !== o.agents)
      throw new Error(`${inRoom.length} sockets in the ticket room, expected ${o.agents}`);

    let phase = 0;
    const run = async (label: string, mode: Mode, seconds: number): Promise<Row> => {
      phase++;
      process.stdout.write(`${label}: ${seconds} s ...\n`);
      const r = await ask(
        worker!,
        { type: 'run', phase, mode, seconds, senders: o.senders, ticketId },
        'report',
        seconds * 1000 + 60_000,
      );
      const persisted = await persistedOf(parley!, ticketId, phase);
      return { label, r, persisted, perSec: persisted / r.sendSeconds };
    };
    if (o.warmup > 0) {
      await run('warm-up baseline', 'raw', o.warmup);
      await run('warm-up full', 'full', o.warmup);
    }
    const baseline = await run('baseline (insert+emit)', 'raw', o.seconds);
    // The relay may still be delivering the warm-up's and baseline's rows: let the full path start clean.
    await new Promise((r) => setTimeout(r, 500));
    const relayBefore = { ...parley.relay.seconds };
    const countsBefore = {
      delivered: parley.relay.delivered,
      batches: parley.relay.batches,
      atCommit: parley.relay.deliveredAtCommit,
    };
    const full = await run('full (newChatMessage)', 'full', o.seconds);
    printTable(o, parley.handle.dialect, [baseline, full]);
    // Where the relay spent its time during the full phase (effects run at once are summed, so may exceed it).
    const relayParts = Object.entries(parley.relay.seconds)
      .map(([part, s]) => `${part} ${(s - (relayBefore[part] ?? 0)).toFixed(2)} s`)
      .join(', ');
    process.stdout.write(`relay time in the full phase: ${relayParts}\n`);
    const batches = parley.relay.batches - countsBefore.batches;
    const delivered = parley.relay.delivered - countsBefore.delivered;
    process.stdout.write(
      `relay batches in the full phase: ${batches}, ${delivered} events, ${(delivered / Math.max(1, batches)).toFixed(1)} a batch; ${parley.relay.deliveredAtCommit - countsBefore.atCommit} events fanned out at their commit\n`,
    );
    await ask(worker, { type: 'close' }, 'closed', 10_000).catch(() => {});
  } finally {
    if (worker) await worker.terminate();
    await parley?.close();
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

if (isMainThread) {
  main().catch((err) => {
    process.stderr.write(`messages bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
} else if (parentPort) runWorker();
