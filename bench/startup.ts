/**
 * `npm run bench -- startup [--runs=5] [--idle=10]`
 *
 * How long the server takes to start and how much memory it holds when idle, run two ways:
 *   tsx       `node --import tsx apps/server/src/main.ts` (what `npm start` ran before the server was built)
 *   compiled  `node apps/server/dist/main.js` (what `npm start` runs now; built first when stale)
 * Each run starts a server process on a loopback port over a copy of one migrated SQLite database (so no
 * run pays for migrations), and measures:
 *   start     spawn -> the first 200 from GET /healthz (polled every 10 ms)
 *   cpu       the CPU time (user + system) the server process had used by then: unlike the start time,
 *             it barely moves when other work shares the machine
 *   rss       the server process's resident memory (VmRSS) after --idle seconds without requests
 *   +children the resident memory of the processes it started (tsx's esbuild service), if any
 * The two ways alternate run by run, so that a busy machine weighs on both alike.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrateToLatest } from '../apps/server/src/migrations/index.js';
import { openDatabase } from '../apps/server/src/platform/db/db.js';
// @ts-expect-error: a plain JavaScript module without types.
import { buildServer, serverOutputs, serverSources, stale } from '../scripts/build-server.mjs';
import { fmt, nowMs } from './lib/common.js';

const root = path.resolve(import.meta.dirname, '..');

function option(name: string, def: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const v = arg ? Number(arg.slice(name.length + 3)) : def;
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a number`);
  return v;
}

const modes = {
  tsx: ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')],
  compiled: [path.join(root, 'apps/server/dist/main.js')],
} as const;
type Mode = keyof typeof modes;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resident memory in kB of one process (0 when it is gone). */
function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The processes `pid` started, and theirs. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    let children = '';
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8');
    } catch {}
    for (const c of children.split(' ').filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

async function once(mode: Mode, template: string, idleSeconds: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-startup-'));
  fs.copyFileSync(template, path.join(dataDir, 'parley.db'));
  const port = await freePort();
  let out = '';
  const started = nowMs();
  const child: ChildProcess = spawn(process.execPath, [...modes[mode]], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  try {
    let startMs = 0;
    let cpu = 0;
    while (!startMs) {
      if (child.exitCode !== null) throw new Error(`the ${mode} server exited:\n${out}`);
      if (nowMs() - started > 120_000) throw new Error(`the ${mode} server did not answer in 120 s:\n${out}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) {
        startMs = nowMs() - started;
        cpu = cpuMs(child.pid!);
      } else await sleep(10);
    }
    await sleep(idleSeconds * 1000);
    const rss = rssKb(child.pid!);
    const children = descendants(child.pid!).reduce((sum, p) => sum + rssKb(p), 0);
    return { startMs, cpuMs: cpu, rssMb: rss / 1024, childrenMb: children / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function main() {
  const runs = Math.max(1, Math.round(option('runs', 5)));
  const idle = option('idle', 10);
  if (stale(serverOutputs, serverSources)) {
    process.stdout.write('Building the server...\n');
    await buildServer();
  }
  const templateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-template-'));
  const handle = openDatabase({ dataDir: templateDir });
  await migrateToLatest(handle.db, handle.dialect);
  await handle.close();
  const template = path.join(templateDir, 'parley.db');

  const results: Record<Mode, { startMs: number; cpuMs: number; rssMb: number; childrenMb: number }[]> = {
    tsx: [],
    compiled: [],
  };
  process.stdout.write(`startup: ${runs} runs of each, idle ${idle} s, Node ${process.version}\n`);
  process.stdout.write(
    '| run | way | start ms | cpu ms | idle RSS MB | + children MB |\n|---|---|---:|---:|---:|---:|\n',
  );
  try {
    for (let i = 1; i <= runs; i++) {
      for (const mode of (i % 2 ? ['tsx', 'compiled'] : ['compiled', 'tsx']) as Mode[]) {
        const r = await once(mode, template, idle);
        results[mode].push(r);
        process.stdout.write(
          `| ${i} | ${mode} | ${fmt(r.startMs, 0)} | ${fmt(r.cpuMs, 0)} | ${fmt(r.rssMb, 1)} | ${fmt(r.childrenMb, 1)} |\n`,
        );
      }
    }
  } finally {
    fs.rmSync(templateDir, { recursive: true, force: true });
  }
  process.stdout.write(
    '\nmedians:\n| way | start ms | cpu ms | idle RSS MB | + children MB |\n|---|---:|---:|---:|---:|\n',
  );
  for (const mode of ['tsx', 'compiled'] as Mode[]) {
    const r = results[mode];
    process.stdout.write(
      `| ${mode} | ${fmt(median(r.map((x) => x.startMs)), 0)} | ${fmt(median(r.map((x) => x.cpuMs)), 0)} | ${fmt(median(r.map((x) => x.rssMb)), 1)} | ${fmt(median(r.map((x) => x.childrenMb)), 1)} |\n`,
    );
  }
  const t = median(results.tsx.map((x) => x.startMs));
  const c = median(results.compiled.map((x) => x.startMs));
  const tm = median(results.tsx.map((x) => x.rssMb + x.childrenMb));
  const cm = median(results.compiled.map((x) => x.rssMb + x.childrenMb));
  const tc = median(results.tsx.map((x) => x.cpuMs));
  const cc = median(results.compiled.map((x) => x.cpuMs));
  process.stdout.write(
    `\ncompiled/tsx: start ${fmt(c / t)}x, cpu ${fmt(cc / tc)}x, memory with children ${fmt(cm / tm)}x\n`,
  );
}

await main();
