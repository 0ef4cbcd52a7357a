/**
 * A Parley server as its own process for the benchmarks that read its memory from /proc without their
 * clients in it, and the loopback plumbing they share: JSON calls from a chosen source address, a counting
 * gate for handshakes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** Each visitor's own loopback source address (Linux routes all of 127/8 to lo). */
export const addressOf = (i: number) =>
  `127.${1 + Math.floor(i / 62500)}.${1 + (Math.floor(i / 250) % 250)}.${1 + (i % 250)}`;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 100 });

/** A JSON call from a given source address. */
export function request(url: string, method: string, body: unknown, opts: { token?: string; from?: string } = {}) {
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
export async function ok(url: string, method: string, body: unknown, opts: { token?: string; from?: string } = {}) {
  const r = await request(url, method, body, opts);
  if (r.status !== 200) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

export async function startServer(env: Record<string, string>): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // BENCH_CPU_PROF=<dir>: the server writes a CPU profile there when it stops.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const proc = spawn(process.execPath, [...prof, '--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How many visitors may be connecting and registering at the same moment. */
export const ARRIVING = 50;

/** A counting gate: enter() waits while `size` callers are inside. */
export function gate(size: number) {
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

export const BENCH_PASSWORD = 'correct horse battery';

/**
 * A new workspace on a running server (its admin "Ann Admin") and `agents` agents signed in: their
 * usernames and session tokens. Names carry a random suffix, so several can share one database.
 */
export async function benchWorkspace(
  url: string,
  agents: number,
  company = 'Bench',
): Promise<{ admin: string; suffix: string; agents: { username: string; token: string }[] }> {
  const suffix = randomBytes(3).toString('hex');
  const admin = (
    await ok(`${url}/api/setup`, 'POST', {
      company: `${company} ${suffix}`,
      name: 'Ann Admin',
      username: `ann-${suffix}`,
      email: `ann-${suffix}@example.com`,
      password: BENCH_PASSWORD,
    })
  ).token as string;
  const out: { username: string; token: string }[] = [];
  for (let i = 0; i < agents; i++) {
    const username = `agent${i}-${suffix}`;
    await ok(
      `${url}/api/users`,
      'POST',
      {
        username,
        name: `Agent ${i}`,
        email: `${username}@example.com`,
        type: 'agent',
        password: BENCH_PASSWORD,
        permission: [],
      },
      { token: admin },
    );
    const token = (await ok(`${url}/api/auth2`, 'POST', { client: username, password: BENCH_PASSWORD }))
      .token as string;
    out.push({ username, token });
  }
  return { admin, suffix, agents: out };
}

/** The workspace's live chat widget token, which a visitor presents. */
export async function liveChatToken(url: string, admin: string): Promise<string> {
  return ((await ok(`${url}/api/livechat/settings`, 'GET', undefined, { token: admin })).data as { token: string })
    .token;
}
