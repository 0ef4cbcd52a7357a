import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';

const root = path.resolve(import.meta.dirname, '..');
export const artifacts = path.join(root, 'test-results');

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

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

export interface RunningServer {
  url: string;
  dataDir: string;
  logs: () => string;
  /** Stops the process but keeps the data, for a restart on the same port. */
  kill(): Promise<void>;
  /** Starts the process again over the same data and port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `apps/server/src/main.ts` as its own process over a fresh data directory. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  let child: ChildProcess | null = null;

  async function boot(): Promise<void> {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        // Tests sign up many times from 127.0.0.1.
        SIGNUP_LIMIT_PER_IP: '100000',
        RESET_LIMIT_PER_IP: '100000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (d: Buffer) => {
      out += d.toString();
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    child = proc;
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited early:\n${out}`);
      try {
        if ((await fetch(`${url}/readyz`)).ok) return;
      } catch {}
      if (Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function kill(): Promise<void> {
    const proc = child;
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    child = null;
  }

  await boot();
  return {
    url,
    dataDir,
    logs: () => out,
    kill,
    restart: boot,
    async stop() {
      await kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium through playwright-core; never a downloaded browser. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}. Install it with: apt-get install -y chromium`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, ...extraArgs] });
}

export async function newContext(browser: Browser, colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** Waits until the signed-in shell's socket is connected. */
export async function waitConnected(page: Page): Promise<void> {
  await page.locator('[data-testid="user-menu"][data-connected="true"]').waitFor();
}

/** Log Out from the user menu, confirming the question (NAV-36). */
export async function logOut(page: Page): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Log Out' }).click();
  await page.getByText('Are you sure you want to log out?').waitFor();
  await page.getByTestId('confirm-logout').click();
}

/** Sets My Status through the user menu's status dialog. */
export async function setMyStatus(page: Page, label: string, reason = ''): Promise<void> {
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'My Status' }).click();
  await page.getByRole('dialog', { name: 'My Status' }).waitFor();
  await page.getByTestId('status-select').click();
  await page.getByRole('option', { name: label, exact: true }).click();
  if (reason) await page.getByLabel('Reason').fill(reason);
}

export const PASSWORD = 'correct horse battery';

/** A JSON call to the server; throws with the answer on a non-2xx. */
export async function apiJson(url: string, method: string, body?: unknown, token?: string) {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Signs in through the sign-in page and waits for the connected home screen. */
export async function signInUi(page: Page, base: string, username: string, password = PASSWORD): Promise<void> {
  await page.goto(base);
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('welcome').waitFor();
  await waitConnected(page);
}

/**
 * Signs in through the API and hands the session cookies to the browser, then waits for the connected home
 * screen: the same session as the form gives, without loading the sign-in page first (the form itself is
 * tested by auth.e2e and first-run.e2e). A browser test's main cost here is loading pages.
 */
export async function signInAs(
  page: Page,
  base: string,
  username: string,
  password = PASSWORD,
  /** Where this process reaches the server, when the browser's name for it (`base`) does not resolve here. */
  api = base,
): Promise<void> {
  const r = await apiJson(`${api}/api/auth2`, 'POST', { client: username, password });
  await page.context().addCookies([
    { name: 'parley_token', value: r.token, url: base },
    { name: 'parley_refresh', value: r.refresh_token, url: base },
  ]);
  await page.goto(base);
  await page.getByTestId('welcome').waitFor();
  await waitConnected(page);
}

/** The first-run workspace (admin `ann`) and optional agents, through the API. Returns the admin token. */
export async function seedWorkspace(
  url: string,
  agents: { username: string; name: string; permission?: string[] }[] = [],
): Promise<string> {
  const setup = await apiJson(`${url}/api/setup`, 'POST', {
    company: 'Acme Support',
    name: 'Ann Admin',
    username: 'ann',
    email: 'ann@example.com',
    password: PASSWORD,
  });
  for (const a of agents) {
    await apiJson(
      `${url}/api/users`,
      'POST',
      { ...a, email: `${a.username}@example.com`, type: 'agent', password: PASSWORD, permission: a.permission ?? [] },
      setup.token,
    );
  }
  return setup.token;
}

/** An admin adds an agent (password PASSWORD) through the API; returns the agent's token. */
export async function addAgent(url: string, adminToken: string, username: string, name: string): Promise<string> {
  const user = { username, name, email: `${username}@example.com`, type: 'agent', password: PASSWORD };
  await apiJson(`${url}/api/users`, 'POST', user, adminToken);
  return (await apiJson(`${url}/api/auth2`, 'POST', { client: username, password: PASSWORD })).token as string;
}

/** Runs the CLI against a running server's data (`npm run cli -- ...`). */
export async function cli(server: RunningServer, ...args: string[]): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/cli.ts'), ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d) => {
    out += d;
  });
  proc.stderr?.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((r) => proc.on('exit', r));
  if (code !== 0) throw new Error(`cli ${args.join(' ')} failed:\n${out}`);
  return out;
}

const axeSource: string = createRequire(import.meta.url)('axe-core').source;

/**
 * axe-core's serious and critical violations in the page, or inside `within` (a CSS selector), as
 * "rule: targets" lines. Evaluated over the DevTools protocol: the app's CSP rightly refuses inline scripts.
 */
export async function axe(page: Page, within?: string): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations: { id: string; impact: string; targets: string[] }[] = await page.evaluate(async (sel) => {
    const r = await (window as any).axe.run(sel ? { include: [sel] } : document, { resultTypes: ['violations'] });
    return r.violations.map((v: { id: string; impact: string; nodes: { target: string[] }[] }) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
    }));
  }, within ?? null);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.targets.join(', ')}`);
}

/** The names of the socket events a page sends, as they go (socket.io frames: `42["name",...]`). */
export function recordSocketSends(page: Page): string[] {
  const sent: string[] = [];
  page.on('websocket', (ws) =>
    ws.on('framesent', (f) => {
      const name = /^42\d*\["([^"]+)"/.exec(String(f.payload))?.[1];
      if (name) sent.push(name);
    }),
  );
  return sent;
}

/**
 * A website visitor on the real live chat socket, queued with a first message ("Hello, I am {name}"); the
 * agent whose token is given takes the chat. The socket goes into `sockets` for the caller to close.
 */
export async function visitorChatTaken(
  url: string,
  o: { liveToken: string; agentToken: string; name: string; sockets: Socket[] },
): Promise<{ ticketId: number; says(message: string): Promise<void> }> {
  const { csrf } = await apiJson(`${url}/api/livechat/info`, 'POST', { token: o.liveToken });
  const socket = io(`${url}/visitor`, {
    transports: ['websocket'],
    auth: { token: o.liveToken, csrf },
    reconnection: false,
    forceNew: true,
  });
  o.sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const queued = await socket.emitWithAck('registerQueue', {
    token: o.liveToken,
    csrf,
    name: o.name,
    phone: '0123',
    email: `${o.name.toLowerCase()}@example.com`,
    message: `Hello, I am ${o.name}`,
  });
  if (!queued.ok) throw new Error(`registerQueue: ${queued.error}`);
  const taken = await apiJson(`${url}/api/livechat/accept`, 'POST', { id: null }, o.agentToken);
  return {
    ticketId: taken.ticket_id as number,
    async says(message: string) {
      const r = await socket.emitWithAck('visitorMessage', { message });
      if (!r.ok) throw new Error(`visitorMessage: ${r.error}`);
    },
  };
}
