/**
 * `npm run bench -- reports [--tickets=N] [--export=E] [--requests=R] [--warmup=W]`
 *
 * One Parley server in this process (SQLite in a temp dir, or a fresh database on BENCH_DATABASE_URL, dropped
 * at the end), one workspace made through `POST /api/setup`, 10 agents and 5 departments, then N conversations
 * spread evenly over the report's 30 days (today, UTC, and the 29 days before), each a `tickets` row and its
 * `report_ticket_facts` row, bulk-inserted with set-based `INSERT ... SELECT` over a generated series in
 * transactions of BATCH rows, with the indexes of the migrations kept while they go in. Also the agents'
 * status periods (15-minute periods over 8 hours a day) for the aux report.
 *
 * Measured over the 30 days, each R times after W warm-up calls, one call at a time, along two paths in the
 * same run:
 *   interval 60    GET /api/report/interval?interval=60 (720 buckets)
 *   interval 1440  the same by day
 *   performance    GET /api/report/performance
 *   aux            GET /api/report/aux
 *   csat           GET /api/report/csat
 *   screen         the four the page asks for at once (interval 60, performance, aux, csat with Promise.all)
 *   app   the route through a keep-alive fetch with the admin's Bearer token (session, permission check,
 *         validation, the queries, JSON)
 *   raw   the statements the query function runs (intervalReport, performanceReport, auxReport, csatReport),
 *         captured from it and executed on the database handle (for screen: the four statement lists at once)
 * Prints p50/p95/p99 of both and the ratio app/raw, then each report's slowest statements on their own
 * (`BENCH_EXPLAIN=1` adds their plans).
 *
 * Then the exports of about E conversations (default min(N, 100,000): the last days of the range that hold
 * about that many): a link from `POST /api/report/export`, then `report.xlsx` and `conversations.csv` of that
 * range downloaded and counted (not kept), with the process's RSS sampled every 20 ms while each runs.
 *
 * Default size: 200,000 conversations; the issue's is --tickets=1000000 (targets: the report over 1M
 * conversations for 30 days at p95 under 500 ms, the XLSX export of 100,000 rows under 256 MB of peak RSS).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { reportDayStart } from '@parley/contracts';
import { type CompiledQuery, sql } from 'kysely';
import { createParley, type Parley } from '../apps/server/src/app.js';
import {
  auxReport,
  csatReport,
  intervalReport,
  performanceReport,
} from '../apps/server/src/modules/reports/omnichannel.queries.js';
import { rebuildRollups } from '../apps/server/src/modules/reports/rollups.js';
import { resolveSession } from '../apps/server/src/platform/auth/sessions.js';
import { loadConfig } from '../apps/server/src/platform/config.js';
import type { DB, Dialect } from '../apps/server/src/platform/db/db.js';
import { capture, fmt, freshBenchDatabase, nowMs, percentile, series } from './lib/common.js';

interface Options {
  tickets: number;
  export: number;
  /** Seed and export only: no report timings. */
  exportOnly: boolean;
  requests: number;
  warmup: number;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { tickets: 200_000, export: -1, requests: 10, warmup: 1, exportOnly: false };
  for (const arg of argv) {
    if (arg === '--export-only') {
      o.exportOnly = true;
      continue;
    }
    const m = /^--(tickets|export|requests|warmup)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --tickets= --export= --requests= --warmup=)`);
    o[m[1] as 'tickets' | 'export' | 'requests' | 'warmup'] = Number(m[2]);
  }
  if (o.tickets < 1000 || o.requests < 1) throw new Error('tickets must be at least 1000 and requests at least 1');
  if (o.export < 0) o.export = Math.min(o.tickets, 100_000);
  return o;
}

const BATCH = 50_000;
const DAY = 86_400_000;
const DAYS = 30;
const AGENTS = 10;
const DEPARTMENTS = ['Sales', 'Support', 'Billing', 'Technical', 'VIP'];
/** Channel codes weighted by repetition: e-mail and WhatsApp most, one each of the rarer ones. */
const CHANNELS = [
  'EMAIL',
  'EMAIL',
  'EMAIL',
  'EMAIL',
  'EMAIL',
  'WHATSAPP',
  'WHATSAPP',
  'WHATSAPP',
  'WHATSAPP',
  'LIVECHAT',
  'LIVECHAT',
  'LIVECHAT',
  'GRAPH_EMAIL',
  'GRAPH_EMAIL',
  'FB_PM',
  'FB_PAGE_POST',
  'WAUCHAT',
  'CALL',
  'MANUAL',
  'TELEGRAM',
];
const STATUSES = ['Online', 'Online', 'Online', 'Break', 'Meeting', 'Lunch', 'Online', 'Training'];

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The agents, departments, N conversations (tickets + facts) created between `from` and `now`, and the
 * agents' status periods. Every field is its own pseudo-random function of the row number i,
 * h(P) = ((i * 7919) % P) % 100 with a different prime P per field, so runs are repeatable.
 */
async function seed(db: DB, dialect: Dialect, accountId: number, o: Options, from: number, now: number) {
  let t = nowMs();
  await db
    .insertInto('users')
    .values(
      Array.from({ length: AGENTS }, (_, k) => ({
        account_id: accountId,
        username: `agent${k}`,
        name: `Agent ${k}`,
        email: `agent${k}@example.com`,
        password_hash: '',
        type: 'agent',
        rank: 0,
        permission: '[]',
        active: 1,
        status: 'OFFLINE',
        status_reason: '',
        status_since: now,
        last_seen_at: null,
        totp_secret: null,
        photo: null,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  await db
    .insertInto('departments')
    .values(DEPARTMENTS.map((name) => ({ account_id: accountId, name, created_at: now })))
    .execute();
  const deps = (
    await db.selectFrom('departments').select('id').where('account_id', '=', accountId).orderBy('id').execute()
  ).map((r) => Number(r.id));
  const d0 = deps[0]!;
  if (deps.length !== DEPARTMENTS.length || deps[deps.length - 1] !== d0 + DEPARTMENTS.length - 1)
    throw new Error('the departments were not given consecutive ids');
  const agents = (
    await db
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', accountId)
      .where('username', 'like', 'agent%')
      .orderBy('id')
      .execute()
  ).map((r) => Number(r.id));
  const a0 = agents[0]!;
  if (agents.length !== AGENTS || agents[AGENTS - 1] !== a0 + AGENTS - 1)
    throw new Error('the agents were not given consecutive ids');

  const before = await db
    .selectFrom('tickets')
    .select((eb) => [eb.fn.max('id').as('id'), eb.fn.max('ticket_number').as('num')])
    .executeTakeFirst();
  const baseId = Number(before?.id ?? 0);
  const baseNum = Number(before?.num ?? 0);
  const h = (p: number) => `(((i * 7919) % ${p}) % 100)`;
  // Created evenly from `from` to now, jittered within each row's step (so never after now).
  const step = Math.floor((now - from) / o.tickets);
  const created = `(${from} + (i - 1) * ${step} + (i * 7919) % ${step})`;
  const chan = `(case ((i * 7919) % 10009) % ${CHANNELS.length} ${CHANNELS.map((c, k) => `when ${k} then '${c}'`).join(' ')} end)`;
  const dep = `(case when ${h(10067)} < 15 then null else ${d0} + ((i * 7919) % 10069) % ${DEPARTMENTS.length} end)`;
  const assignee = `(case when ${h(10091)} < 10 then '' else 'agent' || (((i * 7919) % 10093) % ${AGENTS}) end)`;
  // 85% answered (h(10007) < 85), 82% of those resolved (~70% of all); the rest 30% pending, 70% open.
  const answered = `${h(10007)} < 85`;
  const resolved = `(${answered} and ${h(10009)} < 82)`;
  const closed = `(case when ${resolved} then (case when ${h(10037)} < 40 then 2 else 3 end) when ${h(10039)} < 30 then 1 else 0 end)`;
  const ticketSql = (lo: number, hi: number) => sql`
    insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
      assignee, name, email, phone, created_at, updated_at, has_responded, last_message_at)
    select ${sql.lit(accountId)}, ${sql.lit(baseNum)} + i, 'Conversation ' || i || ' about an order', ${sql.raw(chan)},
      ${sql.raw(closed)}, '', '[]', ${sql.raw(dep)}, ${sql.raw(assignee)}, 'Customer ' || (i % 5000),
      'customer' || (i % 5000) || '@example.com', '+6591' || (100000 + i % 900000),
      ${sql.raw(created)}, ${sql.raw(created)}, case when ${sql.raw(answered)} then 1 else 0 end, ${sql.raw(created)}
    from ${series(dialect, lo, hi)}`;
  for (let lo = 1; lo <= o.tickets; lo += BATCH) {
    const hi = Math.min(o.tickets, lo + BATCH - 1);
    await db.transaction().execute((trx) => ticketSql(lo, hi).execute(trx));
  }
  const ids = await db
    .selectFrom('tickets')
    .select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi'), eb.fn.countAll().as('n')])
    .where('account_id', '=', accountId)
    .where('id', '>', baseId)
    .executeTakeFirstOrThrow();
  const first = Number(ids.lo);
  if (Number(ids.hi) - first + 1 !== o.tickets || Number(ids.n) !== o.tickets)
    throw new Error('the tickets did not get consecutive ids');
  process.stdout.write(`  ${o.tickets} tickets in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);

  t = nowMs();
  // Facts of ticket i: first response 1 min to ~5.8 h after it was made, resolution 10 min to ~70 h after
  // that; a time still in the future is left null (not happened yet). Of the resolved, 8% reopened once and
  // 2% twice; 10% breached an SLA; 20% rated, mostly 4-5.
  const fr = `(case when ${answered} then 60000 + ((i * 104729) % 1000003) * 21 end)`;
  const res = `(case when ${resolved} then 600000 + ((i * 15485863) % 1000033) * 250 end)`;
  const reopen = `(case when not ${resolved} then 0 when ${h(10061)} < 2 then 2 when ${h(10061)} < 10 then 1 else 0 end)`;
  const csat = `(case when ${h(10079)} >= 20 then null else (case ((i * 7919) % 10099) % 10 when 0 then 1 when 1 then 2 when 2 then 3 when 3 then 4 when 4 then 4 when 5 then 4 else 5 end) end)`;
  const factsSql = (lo: number, hi: number) => sql`
    insert into report_ticket_facts (ticket_id, account_id, channel, department_id, assignee, created_at, closed,
      first_customer_at, first_response_at, first_response_ms, resolved_at, resolution_ms, reopen_count,
      sla_breached, csat, updated_at)
    select id, ${sql.lit(accountId)}, channel, department_id, assignee, created_at, closed, created_at,
      case when fr_at <= ${sql.lit(now)} then fr_at end, case when fr_at <= ${sql.lit(now)} then fr end,
      case when res_at <= ${sql.lit(now)} then res_at end, case when res_at <= ${sql.lit(now)} then res_at - created_at end,
      reopen, breached, csat, ${sql.lit(now)}
    from (select id, channel, department_id, assignee, created_at, closed, fr, created_at + fr as fr_at,
            created_at + fr + res as res_at, reopen, breached, csat
          from (select t.id, t.channel, t.department_id, t.assignee, t.created_at, t.closed,
                  ${sql.raw(fr)} as fr, ${sql.raw(res)} as res, ${sql.raw(reopen)} as reopen,
                  case when ${sql.raw(h(10103))} < 10 then 1 else 0 end as breached, ${sql.raw(csat)} as csat
                from (select t0.*, t0.id - ${sql.lit(first - 1)} as i from tickets t0
                      where t0.account_id = ${sql.lit(accountId)}
                        and t0.id between ${sql.lit(first + lo - 1)} and ${sql.lit(first + hi - 1)}) t) x) y`;
  for (let lo = 1; lo <= o.tickets; lo += BATCH) {
    const hi = Math.min(o.tickets, lo + BATCH - 1);
    await db.transaction().execute((trx) => factsSql(lo, hi).execute(trx));
  }
  process.stdout.write(`  ${o.tickets} facts rows in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  t = nowMs();
  // What the facts listener keeps beside the facts row by row, worked out from them at once.
  await rebuildRollups(db, accountId);
  process.stdout.write(`  rollups rebuilt from the facts in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);

  t = nowMs();
  // Each agent, each day of the range: 32 periods of 15 minutes from 08:00 UTC, the status of each picked
  // from STATUSES; the periods not started yet are left out and the one going on now has no end.
  const SLOTS = 32;
  const periods = AGENTS * DAYS * SLOTS;
  const start = `(${from} + ((i / ${AGENTS}) / ${SLOTS}) * ${DAY} + 8 * 3600000 + ((i / ${AGENTS}) % ${SLOTS}) * 900000)`;
  const status = `(case ((i * 7919) % 10007) % ${STATUSES.length} ${STATUSES.map((s, k) => `when ${k} then '${s}'`).join(' ')} end)`;
  await sql`insert into status_periods (account_id, user_id, status, reason, started_at, ended_at)
    select ${sql.lit(accountId)}, ${sql.lit(a0)} + i % ${sql.lit(AGENTS)}, ${sql.raw(status)}, '', st,
      case when st + 900000 > ${sql.lit(now)} then null else st + 900000 end
    from (select i, ${sql.raw(start)} as st from ${series(dialect, 0, periods - 1)}) p
    where st <= ${sql.lit(now)}`.execute(db);
  if (dialect === 'postgres') await sql`vacuum analyze`.execute(db);
  else await sql`analyze`.execute(db);
  process.stdout.write(`  status periods and vacuum/analyze in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
}

/**
 * A GET that is tried again once when the keep-alive connection it reused was closed by the server while the
 * raw path ran (undici then fails the request with "fetch failed").
 */
async function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  try {
    return await fetch(url, { headers, method });
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return fetch(url, { headers, method });
  }
}

interface Stats {
  p50: number;
  p95: number;
  p99: number;
}

async function measure(n: number, warmup: number, call: () => Promise<void>): Promise<Stats> {
  for (let k = 0; k < warmup; k++) await call();
  const times = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const t0 = nowMs();
    await call();
    times[k] = nowMs() - t0;
  }
  times.sort();
  return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99) };
}

const runAll = async (db: DB, statements: CompiledQuery[]) => {
  for (const s of statements) await db.executeQuery(s);
};

/** A process's resident memory now and at its peak so far (`VmRSS`, `VmHWM` of /proc), bytes. */
function rssOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * A Parley server of its own over the bench's database, so the export's memory is a server's alone, not the
 * seeding bench's. It runs as `npm start` runs it in production: the compiled `apps/server/dist/main.js`
 * (built first when missing or older than its sources), not through tsx, whose compiler and source maps
 * add ~60 MB that no installation carries.
 */
async function startExportServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
  const root = path.resolve(import.meta.dirname, '..');
  // @ts-expect-error: a plain ES module of the build scripts, without types
  const build = (await import('../scripts/build-server.mjs')) as {
    buildServer: () => Promise<void>;
    serverOutputs: string[];
    serverSources: string[];
    stale: (outputs: string[], sources: string[]) => boolean;
  };
  if (build.stale(build.serverOutputs, build.serverSources)) await build.buildServer();
  const child = spawn(process.execPath, [build.serverOutputs[0]!], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error('the export server exited early');
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child };
    if (Date.now() > deadline) throw new Error('the export server was not ready in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `run` while sampling a process's RSS every 20 ms: before, and the peak while it ran. */
async function withRss<T>(pid: number, run: () => Promise<T>): Promise<{ value: T; before: number; peak: number }> {
  const before = rssOf(pid).rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid).rss);
  }, 20);
  try {
    const value = await run();
    return { value, before, peak: Math.max(peak, rssOf(pid).rss) };
  } finally {
    clearInterval(timer);
  }
}

function table(rows: string[][]): void {
  const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)));
  for (const r of rows)
    process.stdout.write(
      `${r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join('  ')}\n`,
    );
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const pgBase = process.env.BENCH_DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const pg = pgBase ? await freshBenchDatabase(pgBase) : null;
  let parley: Parley | null = null;
  let exportServer: { url: string; child: ChildProcess } | null = null;
  const minutes = Number(process.env.BENCH_TIMEOUT_MIN) || 60;
  const watchdog = setTimeout(() => {
    process.stderr.write(`reports bench: gave up after ${minutes} minutes\n`);
    process.exit(1);
  }, minutes * 60_000);
  watchdog.unref();
  try {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: (process.env.BENCH_LOG_LEVEL as 'silent' | undefined) ?? 'silent',
      DATA_DIR: dataDir,
      DATABASE_URL: pg?.url,
    });
    // No relay or scheduler: nothing of the seed goes through events, and background scans would compete
    // with the measurement.
    parley = await createParley(config, { background: false });
    const port = await parley.listen();
    const url = `http://127.0.0.1:${port}`;
    const db = parley.handle.db;
    const dialect = parley.handle.dialect;
    const res = await fetch(`${url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        company: 'Bench reports',
        name: 'Ann Admin',
        username: 'ann-bench',
        email: 'ann-bench@example.com',
        password: 'correct horse battery',
      }),
    });
    if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${await res.text()}`);
    const { token } = (await res.json()) as { token: string };
    const auth = await resolveSession(db, token);
    if (!auth) throw new Error('the new session does not resolve');
    const who = { accountId: auth.accountId };

    // The report's range: today (UTC) and the 29 days before, as the page asks for it (tz 0).
    const now = Date.now();
    const endDate = day(now);
    const startDate = day(now - (DAYS - 1) * DAY);
    const from = reportDayStart(startDate, 0);
    process.stdout.write(`seeding ${dialect}: ${o.tickets} conversations from ${startDate} to now ...\n`);
    const t0 = nowMs();
    await seed(db, dialect, auth.accountId, o, from, now);
    const seedSeconds = (nowMs() - t0) / 1000;

    const headers = { authorization: `Bearer ${token}` };
    const range = { startDate, endDate, tz: 0 };
    const qs = (extra: Record<string, string> = {}) => new URLSearchParams({ startDate, endDate, ...extra });
    const reports = [
      {
        name: 'interval 60',
        path: `/api/report/interval?${qs({ interval: '60' })}`,
        fn: (d: DB) => intervalReport(d, who, { ...range, interval: 60 }, Date.now()),
      },
      {
        name: 'interval 1440',
        path: `/api/report/interval?${qs({ interval: '1440' })}`,
        fn: (d: DB) => intervalReport(d, who, { ...range, interval: 1440 }, Date.now()),
      },
      {
        name: 'performance',
        path: `/api/report/performance?${qs()}`,
        fn: (d: DB) => performanceReport(d, who, range, Date.now()),
      },
      { name: 'aux', path: `/api/report/aux?${qs()}`, fn: (d: DB) => auxReport(d, who, range, Date.now()) },
      { name: 'csat', path: `/api/report/csat?${qs()}`, fn: (d: DB) => csatReport(d, who, range, Date.now()) },
    ];
    if (!o.exportOnly) {
      const captured = new Map<string, CompiledQuery[]>();
      for (const r of reports) {
        let answer: unknown = null;
        const statements = await capture(db, async (rec) => {
          answer = await r.fn(rec);
        });
        captured.set(r.name, statements);
        const first = await get(`${url}${r.path}`, headers);
        if (first.status !== 200) throw new Error(`${r.name}: ${first.status} ${await first.text()}`);
        const body = await first.json();
        // The aux report runs up to now, so its figures move between the two calls; the rest must agree.
        if (r.name !== 'aux' && JSON.stringify(body) !== JSON.stringify(answer))
          throw new Error(`${r.name}: the route and the query function disagree`);
        if (r.name === 'performance') {
          const total = (body as { total: { conversations: number; answered: number; resolved: number } }).total;
          process.stdout.write(
            `  in the range: ${total.conversations} conversations, ${total.answered} answered, ${total.resolved} resolved\n`,
          );
          if (total.conversations !== o.tickets) throw new Error(`performance counted ${total.conversations}`);
        }
      }

      const results: { name: string; statements: number; app: Stats; raw: Stats }[] = [];
      for (const r of reports) {
        const statements = captured.get(r.name)!;
        process.stdout.write(`${r.name}: ${statements.length} statements, ${o.requests} requests per path ...\n`);
        const app = await measure(o.requests, o.warmup, async () => {
          const a = await get(`${url}${r.path}`, headers);
          if (a.status !== 200) throw new Error(`${r.name}: ${a.status}`);
          await a.arrayBuffer();
        });
        const raw = await measure(o.requests, o.warmup, () => runAll(db, statements));
        results.push({ name: r.name, statements: statements.length, app, raw });
      }
      // The screen: what the page asks for when it opens, all at once.
      const screen = reports.filter((r) => r.name !== 'interval 1440');
      process.stdout.write(`screen: ${screen.map((r) => r.name).join(' + ')} at once ...\n`);
      const screenApp = await measure(o.requests, o.warmup, async () => {
        await Promise.all(
          screen.map(async (r) => {
            const a = await get(`${url}${r.path}`, headers);
            if (a.status !== 200) throw new Error(`${r.name}: ${a.status}`);
            await a.arrayBuffer();
          }),
        );
      });
      const screenRaw = await measure(o.requests, o.warmup, async () => {
        await Promise.all(screen.map((r) => runAll(db, captured.get(r.name)!)));
      });
      results.push({
        name: 'screen (4 at once)',
        statements: screen.reduce((n, r) => n + captured.get(r.name)!.length, 0),
        app: screenApp,
        raw: screenRaw,
      });

      // Each statement on its own (median of 3), slowest first: where a report's time goes.
      const single: { report: string; ms: number; s: CompiledQuery }[] = [];
      for (const r of reports)
        for (const s of captured.get(r.name)!) {
          const times = new Float64Array(3);
          for (let k = 0; k < 3; k++) {
            const t = nowMs();
            await db.executeQuery(s);
            times[k] = nowMs() - t;
          }
          times.sort();
          single.push({ report: r.name, ms: times[1]!, s });
        }
      single.sort((a, b) => b.ms - a.ms);

      const cpu = os.cpus();
      process.stdout.write(
        `\nreports: ${dialect}, ${o.tickets} conversations from ${startDate} to ${endDate}, ${o.requests} requests ` +
          `per path after ${o.warmup} warm-up, seeded in ${seedSeconds.toFixed(0)} s, ${new Date().toISOString()}\n` +
          `machine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ` +
          `node ${process.version}, load ${os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}\n\n`,
      );
      table([
        [
          'report (30 days)',
          'stmts',
          'raw p50',
          'raw p95',
          'raw p99',
          'app p50',
          'app p95',
          'app p99',
          'p50 app/raw',
          'p95 app/raw',
        ],
        ...results.map(({ name, statements, app, raw }) => [
          name,
          String(statements),
          fmt(raw.p50, 1),
          fmt(raw.p95, 1),
          fmt(raw.p99, 1),
          fmt(app.p50, 1),
          fmt(app.p95, 1),
          fmt(app.p99, 1),
          `${fmt(app.p50 / raw.p50)}x`,
          `${fmt(app.p95 / raw.p95)}x`,
        ]),
      ]);
      process.stdout.write(
        '\nms per call, one call at a time. app: the route through fetch (screen: the four of the page at once). ' +
          'raw: the statements the query functions run, on the database handle.\n\nslowest statements on their own (ms, median of 3):\n',
      );
      for (const x of single.slice(0, 6))
        process.stdout.write(
          `  ${fmt(x.ms, 1).padStart(9)}  ${x.report}: ${x.s.sql.replace(/\s+/g, ' ').slice(0, 150)}\n`,
        );
      if (process.env.BENCH_EXPLAIN)
        for (const x of single.slice(0, 3)) {
          const explain = dialect === 'postgres' ? 'explain (analyze, buffers) ' : 'explain query plan ';
          const plan = await db.executeQuery<Record<string, unknown>>({
            ...x.s,
            sql: explain + x.s.sql,
          } as CompiledQuery<Record<string, unknown>>);
          process.stdout.write(`\n${x.report} (${fmt(x.ms, 1)} ms): ${x.s.sql.replace(/\s+/g, ' ')}\n`);
          for (const row of plan.rows) process.stdout.write(`  ${Object.values(row).join(' | ')}\n`);
        }
    }
    // The exports: the last days of the range holding about o.export conversations.
    const perDay = o.tickets / ((now - from) / DAY);
    const exportDays = Math.max(1, Math.min(DAYS, Math.round(o.export / perDay)));
    const exportStart = day(now - (exportDays - 1) * DAY);
    const exportFrom = reportDayStart(exportStart, 0);
    const held = await db
      .selectFrom('report_ticket_facts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', auth.accountId)
      .where('created_at', '>=', exportFrom)
      .executeTakeFirstOrThrow();
    const exports: { file: string; bytes: number; ms: number; before: number; peak: number; hwm: number }[] = [];
    exportServer = await startExportServer(pg ? { DATABASE_URL: pg.url, DATA_DIR: dataDir } : { DATA_DIR: dataDir });
    const { url: exportUrl, child } = exportServer;
    for (const file of ['report.xlsx', 'conversations.csv']) {
      const link = await get(`${exportUrl}/api/report/export`, headers, 'POST');
      if (link.status !== 200) throw new Error(`export link: ${link.status} ${await link.text()}`);
      const { token: secret } = (await link.json()) as { token: string };
      process.stdout.write(`export ${file}: ${exportStart} to ${endDate} (${held.n} conversations) ...\n`);
      const t = nowMs();
      const m = await withRss(child.pid!, async () => {
        const r = await get(`${exportUrl}/api/report/export/${secret}/${exportStart}/${endDate}/60/${file}`);
        if (r.status !== 200 || !r.body) throw new Error(`export ${file}: ${r.status} ${await r.text()}`);
        let bytes = 0;
        for await (const chunk of r.body) bytes += (chunk as Uint8Array).byteLength;
        return bytes;
      });
      const hwm = rssOf(child.pid!).peak;
      exports.push({ file, bytes: m.value, ms: nowMs() - t, before: m.before, peak: m.peak, hwm });
    }

    const mb = (b: number) => fmt(b / 2 ** 20, 1);
    process.stdout.write(`\nexports of ${exportStart} to ${endDate}: ${held.n} conversations\n`);
    table([
      ['file', 'bytes', 'seconds', 'RSS before MB', 'RSS peak MB', 'peak - before MB', 'process peak MB'],
      ...exports.map((e) => [
        e.file,
        String(e.bytes),
        fmt(e.ms / 1000, 1),
        mb(e.before),
        mb(e.peak),
        mb(e.peak - e.before),
        mb(e.hwm),
      ]),
    ]);
    process.stdout.write(
      '\nRSS of a server process of its own over the same database (relay and scheduler running), sampled every\n' +
        '20 ms while the download ran; process peak: its VmHWM since it started, after the download.\n',
    );
  } finally {
    const c = exportServer?.child;
    if (c && c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
    await parley?.close();
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`reports bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
