import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
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
        // `{url}` in a value is the server's own address (PUBLIC_URL for a callback that must reach it).
        ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replaceAll('{url}', url)])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (d: Buffer) => {
      out += d.toString();
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    child = proc;
    const ready = async () => {
      if (proc.exitCode !== null) throw new Error(`server exited early:\n${out}`);
      return fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    };
    try {
      await waitFor(ready, 90_000, () => `the server to start:\n${out}`);
    } catch (err) {
      // A server that did not come up is not left running behind a failed test.
      proc.kill('SIGKILL');
      throw err;
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

/** One row of the server's own SQLite database (read beside the running server; it waits out a write). */
export function dbRow<T>(server: RunningServer, sql: string, ...args: unknown[]): T | undefined {
  const d = new Database(path.join(server.dataDir, 'parley.db'));
  d.pragma('busy_timeout = 5000');
  try {
    return d.prepare(sql).get(...args) as T | undefined;
  } finally {
    d.close();
  }
}

/**
 * A page in a new context of `browser`, light or dark (the dark cookie set too, as the app keeps it), a phone
 * below 500 px; the context is pushed on `contexts` for the test's own clean-up.
 */
export async function schemePage(
  browser: Browser,
  server: RunningServer,
  contexts: BrowserContext[],
  scheme: 'light' | 'dark',
  width = 1440,
  height = 900,
): Promise<Page> {
  const ctx = await browser.newContext({
    viewport: { width, height },
    colorScheme: scheme,
    ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
  });
  contexts.push(ctx);
  if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error(e.message));
  return page;
}

/** Picks `option` in the Mantine select labelled `label` inside `within`. */
export async function pickOption(page: Page, within: Locator, label: string, option: string): Promise<void> {
  await within.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
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

/** Signs in through the sign-in page and waits for the connected landing screen (Home; a tab on a phone). */
export async function signInUi(page: Page, base: string, username: string, password = PASSWORD): Promise<void> {
  await page.goto(base);
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await signedInLanding(page);
  await waitConnected(page);
}

/**
 * The screen the app opens on at its start address: Home ("Welcome, ..."); on a narrow screen (the app's
 * NARROW_QUERY, a phone) the saved bottom tab instead, at once (SHELL-33), so Home is never the landing
 * there and its welcome shows for a frame at most.
 */
async function signedInLanding(page: Page): Promise<void> {
  const narrow = await page.evaluate(() => window.matchMedia('(max-width: 48em)').matches);
  if (!narrow) {
    await page.getByTestId('welcome').waitFor();
    return;
  }
  await page.waitForFunction(() => window.location.pathname !== '/' && window.location.pathname !== '/login');
  await page.getByRole('navigation', { name: 'Sections' }).locator('[aria-current="page"]').waitFor();
}

/**
 * Signs in through the API and hands the session cookies to the browser, then waits for the connected landing
 * screen (Home; the saved tab on a phone): the same session as the form gives, without loading the sign-in page first (the form itself is
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
  await signedInLanding(page);
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

/** A user's session token, signed in through the API with PASSWORD. */
export async function tokenOf(url: string, username: string): Promise<string> {
  return (await apiJson(`${url}/api/auth2`, 'POST', { client: username, password: PASSWORD })).token as string;
}

/** The account's live chat widget token, which a visitor's socket presents. */
export async function liveChatToken(url: string, adminToken: string): Promise<string> {
  return (await apiJson(`${url}/api/livechat/settings`, 'GET', undefined, adminToken)).data.token as string;
}

/**
 * A server and a browser over the first-run workspace with one agent, amy ("Amy Agent"): the tokens of the
 * admin and of amy, and the live chat's widget token for visitors.
 */
export async function startLiveChatWorkspace() {
  const [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  const adminToken = await seedWorkspace(server.url, [{ username: 'amy', name: 'Amy Agent' }]);
  const amyToken = await tokenOf(server.url, 'amy');
  const liveToken = await liveChatToken(server.url, adminToken);
  return { server, browser, adminToken, amyToken, liveToken };
}

/** An admin adds an agent (password PASSWORD) through the API; returns the agent's token. */
export async function addAgent(url: string, adminToken: string, username: string, name: string): Promise<string> {
  const user = { username, name, email: `${username}@example.com`, type: 'agent', password: PASSWORD };
  await apiJson(`${url}/api/users`, 'POST', user, adminToken);
  return tokenOf(url, username);
}

/**
 * A server with the demo workspace (`cli demo`, `tickets` tickets) and a browser. demo-admin, demo-agent1, ...
 * sign in with `password`: the one given, else the one the CLI printed.
 */
export async function startDemo(opts: {
  tickets: number;
  password?: string;
  env?: Record<string, string>;
}): Promise<{ server: RunningServer; browser: Browser; password: string }> {
  const [server, browser] = await Promise.all([startServer(opts.env), launchBrowser()]);
  try {
    const given = opts.password ? ['--password', opts.password] : [];
    const out = await cli(server, 'demo', '--tickets', String(opts.tickets), ...given);
    const password = opts.password ?? /demo-admin\s+(\S+)/.exec(out)?.[1] ?? '';
    if (!password) throw new Error(`cli demo printed no password:\n${out}`);
    return { server, browser, password };
  } catch (err) {
    await browser.close();
    await server.stop();
    throw err;
  }
}

/** Polls `cond` until it holds; fails with `what` (read at the time) after `timeoutMs`. */
export async function waitFor(
  cond: () => unknown,
  timeoutMs: number,
  what: string | (() => string) = 'a condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    // The polling interval.
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The toasts have closed. The pointer leaves them first: a toast under the pointer holds its timer (as it
 * does for a person reading it), and one that opened under the last click would cover what comes next.
 */
export async function toastsGone(page: Page): Promise<void> {
  await page.mouse.move(0, 0);
  await page.locator('.mantine-Notification-root').first().waitFor({ state: 'detached', timeout: 15_000 });
}

/** The modal as painted: its opening transition (the dialog's and the overlay's) has ended. */
export const modalSettled = (page: Page) =>
  page.waitForFunction(() => {
    const dialog = document.querySelector('[role="dialog"]');
    const parts = [dialog, document.querySelector('.mantine-Modal-overlay')].filter((e) => e !== null);
    return (
      dialog !== null &&
      getComputedStyle(dialog).opacity === '1' &&
      parts.every((e) => e.getAnimations().every((x) => x.playState !== 'running'))
    );
  });

/**
 * Every finite animation and transition on the page (or inside the element `within` selects) has ended:
 * colours are checked as painted. Endless ones (a loader) are left out.
 */
export const animationsSettled = (page: Page, within?: string) =>
  page.waitForFunction((sel) => {
    const root = sel ? document.querySelector(sel) : null;
    if (sel && !root) return false;
    const running = root ? root.getAnimations({ subtree: true }) : document.getAnimations();
    return running.every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity);
  }, within);

/**
 * A "nothing was requested" check's sentinel: the page fetches `/healthz` and the answer comes back. A request
 * the page started before (a timer that `page.clock` ran, a listener) has been sent, and seen by Playwright's
 * `request` event, by then: Chromium reports a page's requests in the order they start.
 */
export async function requestsFlushed(page: Page): Promise<void> {
  const seen = page.waitForRequest((r) => r.url().endsWith('/healthz?sentinel'));
  const status = await page.evaluate(() => fetch('/healthz?sentinel', { cache: 'no-store' }).then((r) => r.status));
  await seen;
  if (status !== 200) throw new Error(`/healthz answered ${status}`);
}

/**
 * The page has drawn two frames: a state it set before this call (a React render and the effects after it) is
 * on screen. The end of a "nothing happened" check's sentinel, once what would have set that state has come.
 */
export async function painted(page: Page): Promise<void> {
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

/** A socket.io event a page received: its name and its first argument. */
export interface ReceivedEvent {
  /** The event's name; `ack:<name>` for the server's answer to the page's own `name` request. */
  name: string;
  data: unknown;
}

/**
 * Records the socket.io events the page's sockets receive, in order: a "nothing happened" check waits until
 * the event that would have done it has arrived, then for `painted`. The page handles a frame as it arrives,
 * before Playwright's next call reaches it. Start it before the page opens its socket (its own requests are
 * matched to their answers by acknowledgement id).
 */
export function receivedEvents(page: Page): ReceivedEvent[] {
  const received: ReceivedEvent[] = [];
  // A packet: `4` (message), then `2` (event) or `3` (acknowledgement), a namespace, an ack id, the arguments.
  const packet = /^4([23])(\/[^,[]*,)?(\d*)(\[[\s\S]*\])$/;
  page.on('websocket', (ws) => {
    const asked = new Map<string, string>();
    ws.on('framesent', (f) => {
      const m = packet.exec(String(f.payload));
      if (m?.[1] === '2' && m[3]) asked.set(`${m[2] ?? ''}${m[3]}`, (JSON.parse(m[4]!) as [string])[0]);
    });
    ws.on('framereceived', (f) => {
      const m = packet.exec(String(f.payload));
      if (!m) return;
      const args = JSON.parse(m[4]!) as unknown[];
      if (m[1] === '3') {
        received.push({ name: `ack:${asked.get(`${m[2] ?? ''}${m[3]}`) ?? '?'}`, data: args[0] });
        return;
      }
      // The app's events come in an envelope, `{ seq, data }`; a catch-up carries several at once.
      const [name, payload] = args as [string, { seq?: unknown; data?: unknown; events?: ReceivedEvent[] }];
      if (name === 'catchUp') for (const e of payload?.events ?? []) received.push({ name: e.name, data: e.data });
      else received.push({ name, data: typeof payload?.seq === 'number' ? payload.data : payload });
    });
  });
  return received;
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
 * A website visitor on the real live chat socket, queued with a first message ("Hello, I am {name}") and
 * left waiting. The socket goes into `sockets` for the caller to close.
 */
export async function visitorQueued(
  url: string,
  o: { liveToken: string; name: string; sockets: Socket[] },
): Promise<{ socket: Socket }> {
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
  return { socket };
}

/**
 * A website visitor queued as by `visitorQueued`; the agent whose token is given takes the chat.
 */
export async function visitorChatTaken(
  url: string,
  o: { liveToken: string; agentToken: string; name: string; sockets: Socket[] },
): Promise<{ ticketId: number; says(message: string): Promise<void> }> {
  const { socket } = await visitorQueued(url, o);
  const taken = await apiJson(`${url}/api/livechat/accept`, 'POST', { id: null }, o.agentToken);
  return {
    ticketId: taken.ticket_id as number,
    async says(message: string) {
      const r = await socket.emitWithAck('visitorMessage', { message });
      if (!r.ok) throw new Error(`visitorMessage: ${r.error}`);
    },
  };
}
