import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from './support.js';

/** Parley nodes as real OS processes (`node --import tsx apps/server/src/main.ts`), for kill and multi-node tests. */
const root = path.resolve(import.meta.dirname, '../../../..');
const MAIN = path.join(root, 'apps/server/src/main.ts');

export interface Node {
  name: string;
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  logs(): string;
}

const children: ChildProcess[] = [];

/** Kills a child's whole process group (anything the server started dies with it). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

// If the test process dies without running afterAll, do not leave servers behind.
process.once('exit', () => {
  for (const c of children) killGroup(c, 'SIGKILL');
});

/** Stops a node politely, then by force after 5 s. */
export async function stopNode(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** SIGKILL: the process and its group die at once, mid-whatever. */
export async function crashNode(node: Node): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => node.child.once('exit', () => resolve()));
  killGroup(node.child, 'SIGKILL');
  await exited;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Every node started here; `stopAllNodes` ends them. */
export const allNodes = () => children;
export const stopAllNodes = () => Promise.all(children.map(stopNode));

/**
 * Starts a node and waits until `/readyz` answers. `port` and `dataDir` may be given to restart a node in
 * place (same address, same SQLite file); a data dir made here is removed when the node exits.
 */
export async function startNode(
  name: string,
  env: Record<string, string>,
  o: { port?: number; dataDir?: string } = {},
): Promise<Node> {
  const port = o.port ?? (await freePort());
  const dataDir = o.dataDir ?? tempDir(`parley-${name}-`);
  let out = '';
  // `node --import tsx` is one process; the tsx command would start a second node to run the server in.
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      NODE_ID: name,
      // Tests sign up many times from 127.0.0.1.
      SIGNUP_LIMIT_PER_IP: '100000',
      RESET_LIMIT_PER_IP: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  const collect = (d: Buffer) => {
    out += d.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  if (!o.dataDir) child.once('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`node ${name} exited early:\n${out}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`node ${name} was not ready in 60 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, url, port, dataDir, child, logs: () => out };
}
