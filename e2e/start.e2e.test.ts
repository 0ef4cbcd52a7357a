import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from './support.js';

const root = path.resolve(import.meta.dirname, '..');

/** Whether a process runs (a zombie, dead and not yet reaped, does not). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const answers = (url: string) =>
  fetch(url).then(
    () => true,
    () => false,
  );

/**
 * `npm start` as an operator runs it: `node scripts/start.mjs` over a fresh data directory and an empty
 * WEB_DIST (a fresh install: nothing built), on a free port.
 */
async function npmStart(webDist: string, started: ChildProcess[]) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  const proc: ChildProcess = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'parley-start-')),
      WEB_DIST: webDist,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(proc);
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const listening = () => out.split('\n').find((l) => l.includes('Parley is listening'));
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
      return Boolean(listening()) && (await fetch(`${url}/readyz`).catch(() => null))?.ok === true;
    },
    240_000,
    'the server to answer',
  );
  // The server's own process id, from its start-up line.
  const serverPid = Number(JSON.parse(listening() ?? '{}').pid);
  expect(serverPid).toBeGreaterThan(0);
  expect(serverPid).not.toBe(proc.pid);
  return { proc, url, serverPid, exited, logs: () => out };
}

describe('npm start', () => {
  const webDist = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-dist-')), 'dist');
  const started: ChildProcess[] = [];
  afterAll(() => {
    // A test that failed half-way leaves no process behind (the server follows start.mjs).
    for (const p of started) if (p.exitCode === null) p.kill('SIGTERM');
    fs.rmSync(path.dirname(webDist), { recursive: true, force: true });
  });

  it('a fresh install builds the web app and the widget page: /w/livechat/:token is served; SIGTERM stops the server too', async () => {
    const s = await npmStart(webDist, started);
    const widget = await fetch(`${s.url}/w/livechat/anytoken1234`);
    expect(widget.status, s.logs()).toBe(200);
    expect(await widget.text()).toBe(fs.readFileSync(path.join(webDist, 'w', 'widget.html'), 'utf8'));
    const app = await fetch(`${s.url}/`);
    expect(app.status).toBe(200);
    expect(await app.text()).toContain('<div id="root">');
    // The server runs compiled, not through tsx.
    const cmdline = fs.readFileSync(`/proc/${s.serverPid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain(path.join(root, 'apps/server/dist/main.js'));
    expect(cmdline.join(' ')).not.toContain('tsx');

    s.proc.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    await waitFor(() => !alive(s.serverPid), 15_000, 'the server process to end');
    expect(await answers(`${s.url}/healthz`)).toBe(false);
  }, 300_000);

  it('start.mjs killed outright (SIGKILL): the server stops by itself and frees the port', async () => {
    const s = await npmStart(webDist, started);
    s.proc.kill('SIGKILL');
    await waitFor(() => !alive(s.serverPid), 15_000, 'the server process to end');
    expect(await answers(`${s.url}/healthz`)).toBe(false);
  }, 120_000);

  it('the server ending ends start.mjs with its exit code; a server build older than its sources is built again', async () => {
    const main = path.join(root, 'apps/server/dist/main.js');
    fs.utimesSync(main, new Date(0), new Date(0));
    const s = await npmStart(webDist, started);
    expect(s.logs()).toContain('Building the server (first start or changed sources)...');
    expect(fs.statSync(main).mtimeMs).toBeGreaterThan(Date.now() - 300_000);
    process.kill(s.serverPid, 'SIGTERM');
    expect(await s.exited).toBe(0);
    expect(alive(s.serverPid)).toBe(false);
  }, 120_000);
});
