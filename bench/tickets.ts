/**
 * `npm run bench -- tickets [--tickets=N] [--messages=M] [--requests=R] [--warmup=W]`
 *
 * One Parley server in this process (SQLite in a temp dir, or a fresh database on BENCH_DATABASE_URL),
 * one workspace made through `POST /api/setup`, then N tickets (and M messages per ticket) bulk-inserted
 * with set-based `INSERT ... SELECT` over a generated series, in transactions of BATCH rows.
 *
 * Three pages are measured, each R times after W warm-up calls, one call at a time:
 *   default     GET /ticket/load/{token}/0/ticket/0                      (open tickets, 30 a page)
 *   filtered    the same with labelFilter + channelFilter + start/end (received=created)
 *   department  GET /ticket/load2/department/0/ticket/0/{id}              (10 a step)
 * along two paths in the same run:
 *   http  a keep-alive fetch from this process (auth, validation, query, mapping, serialisation)
 *   raw   the same SQL statements the handler runs for that page (filter-id checks, ownership check,
 *         the count and the page), captured from the query functions and executed on the database handle
 * Prints p50/p99 of both and the ratio http/raw.
 *
 * With BENCH_KEEP_DB=name (Postgres), the seeded database is kept under that name and reused by the next
 * run with the same --tickets and --messages (a 1M x 10 seed takes minutes; the measurement seconds).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TICKET_LOAD2_STEP, TICKET_PAGE_SIZE, TicketLoadQuery } from '@parley/contracts';
import { type CompiledQuery, sql } from 'kysely';
import { createParley, type Parley } from '../apps/server/src/app.js';
import {
  assertOwned,
  loadTickets,
  OpenCodesSeen,
  type TicketPage,
} from '../apps/server/src/modules/tickets/tickets.queries.js';
import { createSession, resolveSession } from '../apps/server/src/platform/auth/sessions.js';
import { loadConfig } from '../apps/server/src/platform/config.js';
import { type DB, type Dialect, openDatabase } from '../apps/server/src/platform/db/db.js';
import { capture, fmt, freshBenchDatabase, keptBenchDatabase, nowMs, percentile, series } from './lib/common.js';

interface Options {
  tickets: number;
  messages: number;
  requests: number;
  warmup: number;
}

function parseOptions(argv: string[], pg: boolean): Options {
  const o: Options = { tickets: pg ? 200_000 : 100_000, messages: pg ? 10 : 0, requests: 500, warmup: 50 };
  for (const arg of argv) {
    const m = /^--(tickets|messages|requests|warmup)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --tickets= --messages= --requests= --warmup=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.tickets < 1 || o.requests < 1) throw new Error('tickets and requests must be at least 1');
  return o;
}

const DAY = 86_400_000;
const LABELS = 20;
const DEPARTMENTS = 10;
const USERS = 8;
/** Rows per INSERT ... SELECT statement (one transaction each). */
const BATCH = 50_000;

interface Seeded {
  labels: number[];
  departments: number[];
  now: number;
}

/**
 * Inserts the workspace's labels, departments, N tickets with a spread of status, channel, labels,
 * department, priority, assignees and dates, some read marks of the admin, and M messages per ticket.
 * Every value is a function of the row number, so runs are repeatable.
 */
async function seed(db: DB, dialect: Dialect, accountId: number, userId: number, o: Options): Promise<Seeded> {
  const now = Date.now();
  await db
    .insertInto('labels')
    .values(
      Array.from({ length: LABELS }, (_, k) => ({
        account_id: accountId,
        name: `Label ${k + 1}`,
        color: '#336699',
        color_dark: '#112233',
        level: 0,
        sla: 0,
        removed: 0,
        created_at: now,
      })),
    )
    .execute();
  await db
    .insertInto('departments')
    .values(
      Array.from({ length: DEPARTMENTS }, (_, k) => ({
        account_id: accountId,
        name: `Dept ${k + 1}`,
        created_at: now,
      })),
    )
    .execute();
  const labels = (
    await db.selectFrom('labels').select('id').where('account_id', '=', accountId).orderBy('id').execute()
  ).map((r) => Number(r.id));
  const departments = (
    await db.selectFrom('departments').select('id').where('account_id', '=', accountId).orderBy('id').execute()
  ).map((r) => Number(r.id));
  const l0 = labels[0]!;
  const d0 = departments[0]!;
  if (labels[LABELS - 1] !== l0 + LABELS - 1 || departments[DEPARTMENTS - 1] !== d0 + DEPARTMENTS - 1)
    throw new Error('labels or departments were not given consecutive ids');

  // Every field is its own pseudo-random function of the row number i, h(P) = ((i * 7919) % P) % 100 with
  // a different prime P per field, so the fields do not move together. Status: 30% open, 15% pending,
  // 10% resolved, 45% closed. Channels: 12 codes; chat and LIVECHAT (not in the ticket list) about 17%.
  // Labels: 40% none, 35% one, 25% two of 20. Department: 10% none, else one of 10. Priority: 15% H,
  // 30% M, 15% L, 40% none. Assignees: 25% none, 25% one, 50% two of 8 agents.
  // Created over the last 365 days (i = 1 oldest), updated 0-14 days after (never in the future).
  const h = (p: number) => `(((i * 7919) % ${p}) % 100)`;
  const status = `(case when ${h(10007)} < 30 then 0 when ${h(10007)} < 45 then 1 when ${h(10007)} < 55 then 2 else 3 end)`;
  const allChannels = [
    'EMAIL',
    'WHATSAPP',
    'FB_PM',
    'CALL',
    'MANUAL',
    'LIVECHAT',
    'chat',
    'WAUCHAT',
    'IG_PM',
    'GRAPH_EMAIL',
    'EMAIL',
    'WHATSAPP',
  ];
  const chan = `(case (((i * 7919) % 10009) % ${allChannels.length}) ${allChannels.map((c, k) => `when ${k} then '${c}'`).join(' ')} end)`;
  const la = `(${l0} + ((i * 7919) % 10037) % ${LABELS})`;
  const lb = `(${l0} + ((i * 7919) % 10039) % ${LABELS})`;
  const label = `(case when ${h(10061)} < 40 then '[]' when ${h(10061)} < 75 or ${la} = ${lb} then '[' || ${la} || ']' else '[' || ${la} || ',' || ${lb} || ']' end)`;
  const dep = `(case when ${h(10067)} < 10 then null else ${d0} + ((i * 7919) % 10069) % ${DEPARTMENTS} end)`;
  const prio = `(case when ${h(10079)} < 15 then 'H' when ${h(10079)} < 45 then 'M' when ${h(10079)} < 60 then 'L' else '' end)`;
  const agentA = `'agent' || (((i * 7919) % 10091) % ${USERS})`;
  const agentB = `'agent' || (((i * 7919) % 10093) % ${USERS})`;
  const assignee = `(case when ${h(10099)} < 25 then '' when ${h(10099)} < 50 then ${agentA} else ${agentA} || ',' || ${agentB} end)`;
  const span = 365 * DAY;
  const created = `(${now - span} + (i * ${Math.floor(span / o.tickets)}) + (i * 7919) % 60000)`;
  const updated = `(${created} + (((i * 104729) % 1000003) * ${Math.floor((14 * DAY) / 1000003)}))`;
  const cappedUpdated = `(case when ${updated} > ${now} then ${now} - (i % 1000) else ${updated} end)`;
  const ticketSql = (lo: number, hi: number) => sql`
    insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
      assignee, name, email, phone, created_at, updated_at, case_type, has_responded, last_message_at, other)
    select ${sql.lit(accountId)}, i, 'Ticket number ' || i || ' about an order', ${sql.raw(chan)}, ${sql.raw(status)},
      ${sql.raw(prio)}, ${sql.raw(label)}, ${sql.raw(dep)}, ${sql.raw(assignee)}, 'Customer ' || (i % 5000),
      'customer' || (i % 5000) || '@example.com', '+6591' || (100000 + i % 900000),
      ${sql.raw(created)}, ${sql.raw(cappedUpdated)}, case when i % 3 = 0 then 'enquiry' else '' end,
      case when i % 5 < 3 then 1 else 0 end, ${sql.raw(cappedUpdated)},
      case when i % 10 = 0 then '{"Preferred Appointment Date":"2026-12-01"}' else '{}' end
    from ${series(dialect, lo, hi)}`;

  let t = nowMs();
  for (let lo = 1; lo <= o.tickets; lo += BATCH) {
    const hi = Math.min(o.tickets, lo + BATCH - 1);
    await db.transaction().execute((trx) => ticketSql(lo, hi).execute(trx));
  }
  process.stdout.write(`  ${o.tickets} tickets in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);

  t = nowMs();
  // The admin has read every fifth ticket.
  await sql`insert into ticket_reads (account_id, ticket_id, user_id, read_at)
    select account_id, id, ${userId}, updated_at from tickets where account_id = ${accountId} and id % 5 = 0`.execute(
    db,
  );
  process.stdout.write(`  read marks in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);

  if (o.messages > 0) {
    t = nowMs();
    const ids = await db
      .selectFrom('tickets')
      .select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi')])
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    const step = Math.max(1, Math.floor((BATCH * 4) / o.messages));
    for (let lo = Number(ids.lo); lo <= Number(ids.hi); lo += step) {
      const hi = Math.min(Number(ids.hi), lo + step - 1);
      await db.transaction().execute((trx) =>
        sql`insert into messages (account_id, ticket_id, type, message, sender, client_id, created_at)
          select t.account_id, t.id, case when k % 2 = 1 then 'in' else 'out' end,
            'Message ' || k || ' of ticket ' || t.ticket_number || ': thank you for your patience, we are on it.',
            case when k % 2 = 1 then t.email else 'agent' || (k % ${sql.lit(USERS)}) end, null, t.created_at + k * 60000
          from tickets t cross join ${series(dialect, 1, o.messages, 'm', 'k')}
          where t.account_id = ${accountId} and t.id between ${lo} and ${hi}`.execute(trx),
      );
    }
    process.stdout.write(`  ${o.messages * o.tickets} messages in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  }

  t = nowMs();
  if (dialect === 'postgres') {
    // Autovacuum would do this on a live system; without it the count cannot use index-only scans.
    await sql`vacuum analyze tickets`.execute(db);
    await sql`vacuum analyze ticket_reads`.execute(db);
    // Filled by the triggers of migration 0016 while the tickets went in.
    await sql`vacuum analyze ticket_labels`.execute(db);
    await sql`vacuum analyze ticket_counts`.execute(db);
    if (o.messages > 0) await sql`analyze messages`.execute(db);
  } else {
    await sql`analyze`.execute(db);
  }
  process.stdout.write(`  vacuum/analyze in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  return { labels, departments, now };
}

interface Case {
  name: string;
  path: string;
  /** The statements the handler runs for this page (after auth), in order. */
  statements: CompiledQuery[];
  count: number;
  rows: number;
}

interface Stats {
  p50: number;
  p99: number;
  mean: number;
  max: number;
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
  let sum = 0;
  for (const v of times) sum += v;
  return { p50: percentile(times, 50), p99: percentile(times, 99), mean: sum / n, max: times[n - 1]! };
}

type SeedInfo = Seeded & { tickets: number; messages: number; accountId: number; userId: number };
interface Workspace {
  token: string;
  auth: { accountId: number; userId: number };
  s: Seeded;
  seedSeconds: number;
}

/** A kept database's seed when it has the sizes asked for; otherwise the database is emptied for a new one. */
async function keptSeed(kept: { url: string; reset(): Promise<void> }, o: Options): Promise<SeedInfo | null> {
  const h = openDatabase({ databaseUrl: kept.url, dataDir: os.tmpdir(), poolSize: 1 });
  let info: SeedInfo | null = null;
  let used = false;
  try {
    const marks = await sql<{ info: string }>`select info from bench_seed`.execute(h.db).catch(() => null);
    info = marks?.rows[0] ? (JSON.parse(marks.rows[0].info) as SeedInfo) : null;
    used = !!marks || !!(await sql`select 1 from kysely_migration limit 1`.execute(h.db).catch(() => null));
  } finally {
    await h.close();
  }
  if (info && info.tickets === o.tickets && info.messages === o.messages) return info;
  if (used) await kept.reset();
  return null;
}

async function reuseWorkspace(db: DB, info: SeedInfo): Promise<Workspace> {
  const { token } = await createSession(db, { accountId: info.accountId, userId: info.userId });
  process.stdout.write(`reusing the kept seed: ${info.tickets} tickets, ${info.messages} messages per ticket\n`);
  return { token, auth: info, s: info, seedSeconds: 0 };
}

async function newWorkspace(url: string, db: DB, dialect: Dialect, o: Options, keep: boolean): Promise<Workspace> {
  const suffix = randomBytes(3).toString('hex');
  const res = await fetch(`${url}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      company: `Bench ${suffix}`,
      name: 'Ann Admin',
      username: `ann-${suffix}`,
      email: `ann-${suffix}@example.com`,
      password: 'correct horse battery',
    }),
  });
  if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  const auth = await resolveSession(db, token);
  if (!auth) throw new Error('the new session does not resolve');
  process.stdout.write(
    `seeding ${dialect}: ${o.tickets} tickets, ${o.messages} messages per ticket (batches of ${BATCH}) ...\n`,
  );
  const t0 = nowMs();
  const s = await seed(db, dialect, auth.accountId, auth.userId, o);
  const seedSeconds = (nowMs() - t0) / 1000;
  if (keep) {
    const info: SeedInfo = {
      ...s,
      tickets: o.tickets,
      messages: o.messages,
      accountId: auth.accountId,
      userId: auth.userId,
    };
    await sql`create table bench_seed (info text not null)`.execute(db);
    await sql`insert into bench_seed (info) values (${JSON.stringify(info)})`.execute(db);
  }
  return { token, auth, s, seedSeconds };
}

async function main(): Promise<void> {
  const pgBase = process.env.BENCH_DATABASE_URL;
  const o = parseOptions(process.argv.slice(2), !!pgBase);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const keep = pgBase ? process.env.BENCH_KEEP_DB : undefined;
  const kept = pgBase && keep ? await keptBenchDatabase(pgBase, keep) : null;
  const pg = kept ?? (pgBase ? await freshBenchDatabase(pgBase) : null);
  const reused = kept ? await keptSeed(kept, o) : null;
  let parley: Parley | null = null;
  // A 1M-ticket run on a busy shared machine can need longer: BENCH_TIMEOUT_MIN raises the limit.
  const minutes = Number(process.env.BENCH_TIMEOUT_MIN) || 15;
  const watchdog = setTimeout(() => {
    process.stderr.write(`tickets bench: gave up after ${minutes} minutes\n`);
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
    // No relay and no scheduler: after a bulk seed the SLA check's first scan would sync a timer for every
    // ticket with a customer message (a million transactions), which is not what a list page costs.
    parley = await createParley(config, { background: false });
    const port = await parley.listen();
    const url = `http://127.0.0.1:${port}`;
    const db = parley.handle.db;
    const dialect = parley.handle.dialect;
    const { token, auth, s, seedSeconds } = reused
      ? await reuseWorkspace(db, reused)
      : await newWorkspace(url, db, dialect, o, !!kept);
    const viewer = { accountId: auth.accountId, userId: auth.userId };
    // The filtered page: two labels, two channels, tickets received in a 30-day window two months ago.
    const startS = Math.floor((s.now - 90 * DAY) / 1000);
    const endS = Math.floor((s.now - 60 * DAY) / 1000);
    const filterQs = `labelFilter=${s.labels[3]},${s.labels[7]}&channelFilter=EMAIL,WHATSAPP&start=${startS}&end=${endS}&received=created`;
    const dep = s.departments[2]!;
    const specs: { name: string; path: string; page: TicketPage; owned?: number }[] = [
      {
        name: 'default',
        path: `/ticket/load/${token}/0/ticket/0`,
        page: { status: 0, type: 'ticket', offset: 0, limit: TICKET_PAGE_SIZE, query: TicketLoadQuery.parse({}) },
      },
      {
        name: 'filtered',
        path: `/ticket/load/${token}/0/ticket/0?${filterQs}`,
        page: {
          status: 0,
          type: 'ticket',
          offset: 0,
          limit: TICKET_PAGE_SIZE,
          query: TicketLoadQuery.parse(Object.fromEntries(new URLSearchParams(filterQs))),
        },
      },
      {
        name: 'department',
        path: `/ticket/load2/department/0/ticket/0/${dep}`,
        page: {
          status: 0,
          type: 'ticket',
          offset: 0,
          limit: TICKET_LOAD2_STEP,
          query: { ...TicketLoadQuery.parse({}), depFilter: [dep] },
        },
        owned: dep,
      },
    ];
    const cases: Case[] = [];
    const seen = new OpenCodesSeen();
    for (const spec of specs) {
      let answer: Awaited<ReturnType<typeof loadTickets>> | null = null;
      const statements = await capture(db, async (rec) => {
        if (spec.owned !== undefined) await assertOwned(rec, auth.accountId, 'departments', spec.owned);
        answer = await loadTickets(
          rec,
          viewer,
          spec.page,
          seen,
          spec.owned === undefined ? {} : { departments: [spec.owned] },
        );
      });
      const a = answer as unknown as Awaited<ReturnType<typeof loadTickets>>;
      // The HTTP answer must be the same page as the direct call.
      const h = await fetch(`${url}${spec.path}`, { headers: { authorization: `Bearer ${token}` } });
      if (h.status !== 200) throw new Error(`${spec.name}: ${h.status} ${await h.text()}`);
      const body = (await h.json()) as typeof a;
      if (body.count !== a.count || body.data.map((r) => r.id).join() !== a.data.map((r) => r.id).join())
        throw new Error(`${spec.name}: the HTTP page differs from the direct query`);
      cases.push({ name: spec.name, path: spec.path, statements, count: a.count, rows: a.data.length });
    }

    const headers = { authorization: `Bearer ${token}` };
    const results: { c: Case; http: Stats; raw: Stats }[] = [];
    for (const c of cases) {
      process.stdout.write(`${c.name}: ${o.requests} requests per path (after ${o.warmup} warm-up) ...\n`);
      const raw = await measure(o.requests, o.warmup, async () => {
        for (const q of c.statements) await db.executeQuery(q);
      });
      const http = await measure(o.requests, o.warmup, async () => {
        const r = await fetch(`${url}${c.path}`, { headers });
        if (r.status !== 200) throw new Error(`${c.name}: ${r.status}`);
        await r.arrayBuffer();
      });
      results.push({ c, http, raw });
    }
    // The HTTP floor: the same client and server stack on a call that reads nothing (GET /healthz). What the
    // page calls add above it is the handler's own work; below it nothing a handler does can go.
    const floor = await measure(o.requests, o.warmup, async () => {
      const r = await fetch(`${url}/healthz`);
      if (r.status !== 200) throw new Error(`healthz: ${r.status}`);
      await r.arrayBuffer();
    });

    if (process.env.BENCH_EXPLAIN) {
      for (const c of cases)
        for (const q of c.statements) {
          const prefix = dialect === 'postgres' ? 'explain (analyze, buffers) ' : 'explain query plan ';
          const plan = await db.executeQuery({ ...q, sql: prefix + q.sql } as CompiledQuery);
          process.stdout.write(
            `\n-- ${c.name}: ${q.sql}\n${plan.rows.map((r) => Object.values(r as object).join(' ')).join('\n')}\n`,
          );
        }
    }

    const cpu = os.cpus();
    process.stdout.write(
      `\ntickets: ${dialect}, ${o.tickets} tickets, ${o.messages * o.tickets} messages, ` +
        `${o.requests} requests per path after ${o.warmup} warm-up, seeded in ${seedSeconds.toFixed(0)} s, ` +
        `${new Date().toISOString()}\n` +
        `machine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ` +
        `node ${process.version}, ${os.platform()} ${os.release()}\n\n`,
    );
    const rows: string[][] = [
      ['page', 'count', 'rows', 'stmts', 'raw p50', 'raw p99', 'http p50', 'http p99', 'p50 http/raw', 'p99 http/raw'],
      ...results.map(({ c, http, raw }) => [
        c.name,
        String(c.count),
        String(c.rows),
        String(c.statements.length),
        fmt(raw.p50),
        fmt(raw.p99),
        fmt(http.p50),
        fmt(http.p99),
        `${fmt(http.p50 / raw.p50)}x`,
        `${fmt(http.p99 / raw.p99)}x`,
      ]),
    ];
    const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)));
    for (const r of rows)
      process.stdout.write(
        `${r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join('  ')}\n`,
      );
    process.stdout.write(
      '\nms per call, one call at a time. raw: the statements the handler runs for the page (filter-id and ' +
        'ownership checks, count, page) on the database handle. http: keep-alive fetch of the same page ' +
        '(adds the session lookup, validation, row mapping and JSON).\n' +
        `http floor (GET /healthz, same client, reads nothing): p50 ${fmt(floor.p50)}, p99 ${fmt(floor.p99)}\n`,
    );
  } finally {
    await parley?.close();
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`tickets bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
