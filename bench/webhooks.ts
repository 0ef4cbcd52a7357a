/**
 * `npm run bench -- webhooks [--webhooks=5000] [--concurrency=50] [--peers=200]`
 *
 * Messaging-channel ingestion end to end: one Parley server as its own process (SQLite in a temp dir, or a
 * fresh database on BENCH_DATABASE_URL) with a WhatsApp number and a Telegram bot connected; this process
 * posts --webhooks signed webhooks, half WhatsApp (X-Hub-Signature-256) and half Telegram (secret-token
 * header), from --peers customers, --concurrency at a time, while an agent's socket listens for the
 * account's `newMessage` events.
 *
 * Figures:
 *   acknowledged/s      webhooks answered 200 per second of the burst, with the ack's p50 / p99
 *   HTTP floor          the same number of `GET /healthz` at the same concurrency on the same server: the
 *                       baseline of this run (what any request costs here)
 *   webhook -> socket   from a webhook's POST to its message's `newMessage` at the agent's socket, p50 / p99
 *   stored/s            messages stored per second, from the first POST to the last message at the socket
 * Checks that every webhook became exactly one message before printing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PLANS } from '@parley/contracts';
import { io as connect } from 'socket.io-client';
import { openDatabase } from '../apps/server/src/platform/db/db.js';
import { tgText, waText, whatsappWebhook } from '../apps/server/src/testing/channelStandIns.js';
import { fmt, freshBenchDatabase, nowMs, percentile } from './lib/common.js';

interface Options {
  webhooks: number;
  concurrency: number;
  peers: number;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { webhooks: 5000, concurrency: 50, peers: 200 };
  for (const arg of argv) {
    const m = /^--(webhooks|concurrency|peers)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --webhooks= --concurrency= --peers=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.webhooks < 10 || o.concurrency < 1 || o.peers < 1) throw new Error('at least 10 webhooks, 1 at a time, 1 peer');
  return o;
}

const root = path.resolve(import.meta.dirname, '..');
const PASSWORD = 'bench password 1';
const PHONE_ID = '106540352242922';
const APP_SECRET = 'bench-app-secret';
const BOT_TOKEN = '123456789:AABenchBotTokenForTheWebhookBench_0123';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startServer(env: Record<string, string>): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const proc = spawn(process.execPath, [...prof, '--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      PUBLIC_URL: url,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    if (proc.exitCode !== null) throw new Error('the server exited early');
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, proc };
    } catch {}
    if (Date.now() > deadline) throw new Error('the server did not start');
  }
}

async function ok(url: string, method: string, body?: unknown, token?: string) {
  const r = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${method} ${url}: ${r.status} ${text}`);
  return JSON.parse(text);
}

/** Runs `n` jobs `concurrency` at a time; answers each job's duration (ms) and the whole run's. */
async function burst(n: number, concurrency: number, job: (i: number) => Promise<void>) {
  const took = new Float64Array(n);
  let next = 0;
  const start = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = nowMs();
        await job(i);
        took[i] = nowMs() - t;
      }
    }),
  );
  return { took: took.sort(), ms: nowMs() - start };
}

async function main() {
  const o = parseOptions(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-webhooks-'));
  const pg = process.env.BENCH_DATABASE_URL ? await freshBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  const handle = openDatabase({ dataDir, ...(pg ? { databaseUrl: pg.url } : {}), poolSize: 2 });
  let server: { url: string; proc: ChildProcess } | null = null;
  try {
    server = await startServer({
      DATA_DIR: dataDir,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      ...(pg ? { DATABASE_URL: pg.url } : {}),
    });
    const { url } = server;
    const suffix = randomBytes(3).toString('hex');
    const setup = await ok(`${url}/api/setup`, 'POST', {
      company: `Bench ${suffix}`,
      name: 'Ann Admin',
      username: `ann-${suffix}`,
      email: `ann-${suffix}@example.com`,
      password: PASSWORD,
    });
    const admin = setup.token as string;
    const accountId = (await ok(`${url}/api/auth/check`, 'POST', {}, admin)).accountId as number;
    await handle.db.updateTable('accounts').set({ plan: PLANS.enterprise }).where('id', '=', accountId).execute();
    const wa = await ok(
      `${url}/api/channels`,
      'POST',
      {
        name: 'Bench WhatsApp',
        settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, accessToken: 'token', appSecret: APP_SECRET },
      },
      admin,
    );
    const tg = await ok(
      `${url}/api/channels`,
      'POST',
      { name: 'Bench bot', settings: { kind: 'telegram', botToken: BOT_TOKEN } },
      admin,
    );
    const tgSecret = (
      await handle.db
        .selectFrom('channel_connections')
        .select('verify_token')
        .where('id', '=', tg.data.id)
        .executeTakeFirstOrThrow()
    ).verify_token;

    // The webhooks, made and signed before the clock starts. The text names the webhook: the socket
    // matches each newMessage to its POST by it.
    const hooks = Array.from(
      { length: o.webhooks },
      (_, i): { path: string; body: string; headers: Record<string, string> } => {
        const peer = i % o.peers;
        const text = `bench ${i} ${suffix}`;
        if (i % 2 === 0) {
          const w = whatsappWebhook(
            APP_SECRET,
            waText(`1650${String(5_000_000 + peer)}`, `Peer ${peer}`, text),
            PHONE_ID,
          );
          return {
            path: new URL(wa.data.webhookUrl).pathname,
            body: w.body,
            headers: { 'x-hub-signature-256': w.signature },
          };
        }
        return {
          path: new URL(tg.data.webhookUrl).pathname,
          body: JSON.stringify(tgText(1_000_000 + i, 9_000_000 + peer, `Peer ${peer}`, text)),
          headers: { 'x-telegram-bot-api-secret-token': tgSecret },
        };
      },
    );

    const sentAt = new Float64Array(o.webhooks);
    const seenAt = new Float64Array(o.webhooks);
    let seen = 0;
    let allSeen: () => void = () => {};
    const done = new Promise<void>((r) => {
      allSeen = r;
    });
    const socket = connect(url, { transports: ['websocket'], auth: { token: admin }, reconnection: false });
    socket.on('newMessage', (e: { data: { message?: string } }) => {
      const m = /^bench (\d+) /.exec(e.data?.message ?? '');
      if (!m) return;
      const i = Number(m[1]);
      if (seenAt[i] === 0) {
        seenAt[i] = nowMs();
        if (++seen === o.webhooks) allSeen();
      }
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });

    // The HTTP floor first, on the same server and connection settings.
    const floor = await burst(o.webhooks, o.concurrency, async () => {
      const r = await fetch(`${url}/healthz`);
      await r.arrayBuffer();
    });

    let refused = 0;
    const start = nowMs();
    const acks = await burst(o.webhooks, o.concurrency, async (i) => {
      const h = hooks[i]!;
      sentAt[i] = nowMs();
      const r = await fetch(`${url}${h.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...h.headers },
        body: h.body,
      });
      await r.arrayBuffer();
      if (r.status !== 200) refused++;
    });
    if (refused > 0) throw new Error(`${refused} webhooks were not acknowledged`);
    await Promise.race([
      done,
      sleep(10 * 60_000).then(() => {
        throw new Error(`only ${seen} of ${o.webhooks} messages reached the socket in 10 minutes`);
      }),
    ]);
    const end = nowMs();
    socket.disconnect();

    const stored = Number(
      (
        await handle.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .where('sender', '=', 'visitor')
          .executeTakeFirstOrThrow()
      ).n,
    );
    if (stored !== o.webhooks) throw new Error(`${stored} messages stored for ${o.webhooks} webhooks`);

    const toSocket = Float64Array.from(seenAt, (at, i) => at - sentAt[i]!).sort();
    const rate = (n: number, ms: number) => fmt(n / (ms / 1000), 0);
    const dialect = pg ? 'Postgres' : 'SQLite';
    process.stdout.write(
      [
        '',
        `webhooks bench (${dialect}): ${o.webhooks} webhooks, ${o.concurrency} at a time, ${o.peers} customers, load ${os.loadavg()[0]!.toFixed(1)}`,
        '',
        '| figure | per second | p50 ms | p99 ms |',
        '|---|---|---|---|',
        `| HTTP floor (GET /healthz, baseline) | ${rate(o.webhooks, floor.ms)} | ${fmt(percentile(floor.took, 50), 1)} | ${fmt(percentile(floor.took, 99), 1)} |`,
        `| webhooks acknowledged | ${rate(o.webhooks, acks.ms)} | ${fmt(percentile(acks.took, 50), 1)} | ${fmt(percentile(acks.took, 99), 1)} |`,
        `| webhook -> agent socket | ${rate(o.webhooks, end - start)} stored | ${fmt(percentile(toSocket, 50), 0)} | ${fmt(percentile(toSocket, 99), 0)} |`,
        '',
        `ack rate is ${fmt(floor.ms / acks.ms, 2)}x the HTTP floor's; every webhook became exactly one message (${stored}).`,
        '',
      ].join('\n'),
    );
  } finally {
    server?.proc.kill('SIGTERM');
    await handle.db.destroy();
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`webhooks bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
