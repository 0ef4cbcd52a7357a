/**
 * `npm run bench -- search [--messages=N] [--requests=R] [--warmup=W]`
 *
 * One Parley server in this process (SQLite in a temp dir, or a fresh database on BENCH_DATABASE_URL), one
 * workspace made through `POST /api/setup`, then N/10 tickets and N messages (10 a ticket) bulk-inserted with
 * set-based `INSERT ... SELECT`, in transactions of BATCH rows: the full-text index of migration 0032 is
 * kept by its triggers (SQLite) or its GIN index (Postgres) while they go in, as in production.
 *
 * Every message carries two vocabulary words: `kw1000`..`kw1996` (i % 997, so each about N/997 messages)
 * and `zq100`..`zq106` (i % 7, so each about N/7: a common word). Four searches are measured, each R times after W warm-up calls:
 *   word     entity=kw1234            one word, about N/997 hits
 *   prefix   entity=kw150             a prefix of ten words, about 10 N/997 hits
 *   two      entity=kw1234 zq103      two words, all required, one of them common: about N/7000 hits
 *   short    entity=zq                a short prefix every message has: N hits
 * along two paths in the same run:
 *   http  GET /api/search/data (auth, validation, every group: messages, tickets, live chats, labels,
 *         contacts, agents; the snippets; JSON)
 *   raw   the bare full-text statements of the message group: the newest SEARCH_RANKED_MAX + 1 matches, and
 *         when there are no more than that, the page of 6 ranked by relevance with its snippets
 * Prints p50/p95/p99 of both and the ratio http/raw. Then, for `prefix` and `short`, the statements of an
 * unbounded ranking (every match ranked, and counted) as a reference, `--unbounded` times (default 5).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SEARCH_RANKED_MAX } from '@parley/contracts';
import { type CompiledQuery, sql } from 'kysely';
import { createParley, type Parley } from '../apps/server/src/app.js';
import { resolveSession } from '../apps/server/src/platform/auth/sessions.js';
import { loadConfig } from '../apps/server/src/platform/config.js';
import type { DB, Dialect } from '../apps/server/src/platform/db/db.js';
import { fmt, freshBenchDatabase, nowMs, percentile, series } from './lib/common.js';

interface Options {
  messages: number;
  requests: number;
  warmup: number;
  unbounded: number;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { messages: 1_000_000, requests: 300, warmup: 30, unbounded: 5 };
  for (const arg of argv) {
    const m = /^--(messages|requests|warmup|unbounded)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --messages= --requests= --warmup= --unbounded=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.messages < 10 || o.requests < 1) throw new Error('messages must be at least 10 and requests at least 1');
  return o;
}

const BATCH = 50_000;
const PER_TICKET = 10;

async function seed(db: DB, dialect: Dialect, accountId: number, o: Options): Promise<void> {
  const tickets = Math.ceil(o.messages / PER_TICKET);
  const now = Date.now();
  let t = nowMs();
  for (let lo = 1; lo <= tickets; lo += BATCH) {
    const hi = Math.min(tickets, lo + BATCH - 1);
    await db.transaction().execute((trx) =>
      sql`insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
          assignee, name, email, phone, created_at, updated_at)
        select ${sql.lit(accountId)}, i, 'Ticket number ' || i || ' about an order',
          case when i % 10 = 0 then 'LIVECHAT' else 'EMAIL' end, i % 4, '', '[]', null, '',
          'Customer ' || (i % 5000), 'customer' || (i % 5000) || '@example.com', '+6591' || (100000 + i % 900000),
          ${sql.lit(now - 365 * 86_400_000)} + i * 1000, ${sql.lit(now - 365 * 86_400_000)} + i * 1000
        from ${series(dialect, lo, hi)}`.execute(trx),
    );
  }
  process.stdout.write(`  ${tickets} tickets in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  t = nowMs();
  const ids = await db
    .selectFrom('tickets')
    .select((eb) => [eb.fn.min('id').as('lo')])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const first = Number(ids.lo);
  // Message i (1..N) goes to ticket first + (i - 1) / 10.
  for (let lo = 1; lo <= o.messages; lo += BATCH) {
    const hi = Math.min(o.messages, lo + BATCH - 1);
    await db.transaction().execute((trx) =>
      sql`insert into messages (account_id, ticket_id, type, message, sender, client_id, created_at)
        select ${sql.lit(accountId)}, ${sql.lit(first)} + (i - 1) / ${sql.lit(PER_TICKET)}, 'text',
          'Message ' || i || ' about kw' || (1000 + i % 997) || ' and zq' || (100 + i % 7) ||
            ': thank you for your patience, we are looking into the order.',
          case when i % 2 = 1 then 'customer' else 'agent' || (i % 8) end, null,
          ${sql.lit(now - 365 * 86_400_000)} + i * 100
        from ${series(dialect, lo, hi)}`.execute(trx),
    );
    if (lo % (BATCH * 4) === 1) process.stdout.write(`  ${hi} messages ...\n`);
  }
  process.stdout.write(`  ${o.messages} messages in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  t = nowMs();
  if (dialect === 'postgres') await sql`vacuum analyze`.execute(db);
  else await sql`analyze`.execute(db);
  process.stdout.write(`  vacuum/analyze in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
}

/**
 * The bare full-text statements of the message group for one search, as the route runs them: the newest
 * SEARCH_RANKED_MAX + 1 matches, then (when there are no more) the ranked page of 6 with its snippets.
 */
function rawStatements(db: DB, dialect: Dialect, accountId: number, words: string[], capped: boolean): CompiledQuery[] {
  const limit = SEARCH_RANKED_MAX + 1;
  if (dialect === 'postgres') {
    const q = words.map((w) => `'${w}':*`).join(' & ');
    const newest = sql`select id, substr(message, 1, 4000) as text from messages
      where to_tsvector('simple', message) @@ to_tsquery('simple', ${q}) and account_id = ${accountId}
      order by id desc limit ${limit}`.compile(db);
    if (capped) return [newest];
    return [
      newest,
      sql`select s.id, ts_headline('simple', s.message, to_tsquery('simple', ${q}), 'StartSel=<, StopSel=>') as snip
        from (select id, message, created_at, ts_rank(to_tsvector('simple', message), to_tsquery('simple', ${q})) as r
          from messages where to_tsvector('simple', message) @@ to_tsquery('simple', ${q}) and account_id = ${accountId}
          order by r desc, created_at desc limit 6) s`.compile(db),
    ];
  }
  const match = words.map((w) => `"${w}"*`).join(' ');
  const newest = sql`select m.id, substr(m.message, 1, 4000) as text
    from messages_fts f join messages m on m.id = f.rowid
    where messages_fts match ${match} and m.account_id = ${accountId} order by f.rowid desc limit ${limit}`.compile(db);
  if (capped) return [newest];
  return [
    newest,
    sql`select m.id, snippet(messages_fts, 0, '<', '>', '…', 24) as snip
      from messages_fts f join messages m on m.id = f.rowid
      where messages_fts match ${match} and m.account_id = ${accountId}
      order by bm25(messages_fts), m.created_at desc limit 6`.compile(db),
  ];
}

/** Every match ranked and counted (what the search did before SEARCH_RANKED_MAX): a reference only. */
function unboundedStatements(db: DB, dialect: Dialect, accountId: number, words: string[]): CompiledQuery[] {
  if (dialect === 'postgres') {
    const q = words.map((w) => `'${w}':*`).join(' & ');
    return [
      sql`select s.id, ts_headline('simple', s.message, to_tsquery('simple', ${q}), 'StartSel=<, StopSel=>') as snip
        from (select id, message, created_at, ts_rank(to_tsvector('simple', message), to_tsquery('simple', ${q})) as r
          from messages where to_tsvector('simple', message) @@ to_tsquery('simple', ${q}) and account_id = ${accountId}
          order by r desc, created_at desc limit 6) s`.compile(db),
      sql`select count(*) from messages
        where to_tsvector('simple', message) @@ to_tsquery('simple', ${q}) and account_id = ${accountId}`.compile(db),
    ];
  }
  const match = words.map((w) => `"${w}"*`).join(' ');
  return [
    sql`select m.id, snippet(messages_fts, 0, '<', '>', '…', 24) as snip
      from messages_fts f join messages m on m.id = f.rowid
      where messages_fts match ${match} and m.account_id = ${accountId}
      order by bm25(messages_fts), m.created_at desc limit 6`.compile(db),
    sql`select count(*) from messages_fts f join messages m on m.id = f.rowid
      where messages_fts match ${match} and m.account_id = ${accountId}`.compile(db),
  ];
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

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const pgBase = process.env.BENCH_DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const pg = pgBase ? await freshBenchDatabase(pgBase) : null;
  let parley: Parley | null = null;
  const minutes = Number(process.env.BENCH_TIMEOUT_MIN) || 20;
  const watchdog = setTimeout(() => {
    process.stderr.write(`search bench: gave up after ${minutes} minutes\n`);
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
    parley = await createParley(config, { background: false });
    const port = await parley.listen();
    const url = `http://127.0.0.1:${port}`;
    const db = parley.handle.db;
    const dialect = parley.handle.dialect;
    const res = await fetch(`${url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        company: 'Bench search',
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
    process.stdout.write(`seeding ${dialect}: ${o.messages} messages ...\n`);
    const t0 = nowMs();
    await seed(db, dialect, auth.accountId, o);
    const seedSeconds = (nowMs() - t0) / 1000;

    const cases = [
      { name: 'word', words: ['kw1234'] },
      { name: 'prefix', words: ['kw150'] },
      { name: 'two', words: ['kw1234', 'zq103'] },
      { name: 'short', words: ['zq'] },
    ];
    const headers = { authorization: `Bearer ${token}` };
    const results: { name: string; count: string; http: Stats; raw: Stats }[] = [];
    const unbounded: { name: string; stats: Stats }[] = [];
    for (const c of cases) {
      const path_ = `/api/search/data?entity=${encodeURIComponent(c.words.join(' '))}`;
      const first = await fetch(`${url}${path_}`, { headers });
      if (first.status !== 200) throw new Error(`${c.name}: ${first.status} ${await first.text()}`);
      const answer = (await first.json()) as { messageCount: number; message: unknown[]; messageCountCapped?: boolean };
      if (answer.messageCount === 0 || answer.message.length === 0) throw new Error(`${c.name}: nothing found`);
      const capped = answer.messageCountCapped === true;
      const statements = rawStatements(db, dialect, auth.accountId, c.words, capped);
      const hits = `${answer.messageCount}${capped ? '+' : ''}`;
      process.stdout.write(`${c.name}: ${hits} hits, ${o.requests} requests per path ...\n`);
      // HTTP first, right after the answer above: a keep-alive connection left idle through the raw run
      // would be closed by the server and fail the next fetch.
      const http = await measure(o.requests, o.warmup, async () => {
        const r = await fetch(`${url}${path_}`, { headers });
        if (r.status !== 200) throw new Error(`${c.name}: ${r.status}`);
        await r.arrayBuffer();
      });
      const raw = await measure(o.requests, o.warmup, async () => {
        for (const q of statements) await db.executeQuery(q);
      });
      results.push({ name: `${c.name} (${c.words.join(' ')})`, count: hits, http, raw });
      if ((c.name === 'prefix' || c.name === 'short') && o.unbounded > 0) {
        const every = unboundedStatements(db, dialect, auth.accountId, c.words);
        const stats = await measure(o.unbounded, 1, async () => {
          for (const q of every) await db.executeQuery(q);
        });
        unbounded.push({ name: c.name, stats });
      }
    }

    const cpu = os.cpus();
    process.stdout.write(
      `\nsearch: ${dialect}, ${o.messages} messages, ${o.requests} requests per path after ${o.warmup} warm-up, ` +
        `seeded in ${seedSeconds.toFixed(0)} s, ${new Date().toISOString()}\n` +
        `machine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ` +
        `node ${process.version}\n\n`,
    );
    const rows: string[][] = [
      ['search', 'hits', 'raw p50', 'raw p95', 'http p50', 'http p95', 'http p99', 'p50 http/raw', 'p95 http/raw'],
      ...results.map(({ name, count, http, raw }) => [
        name,
        count,
        fmt(raw.p50),
        fmt(raw.p95),
        fmt(http.p50),
        fmt(http.p95),
        fmt(http.p99),
        `${fmt(http.p50 / raw.p50)}x`,
        `${fmt(http.p95 / raw.p95)}x`,
      ]),
    ];
    const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)));
    for (const r of rows)
      process.stdout.write(
        `${r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join('  ')}\n`,
      );
    process.stdout.write(
      "\nms per call, one call at a time. raw: the message group's bare full-text statements (the newest " +
        `${SEARCH_RANKED_MAX + 1} matches; when there are no more, the ranked page of 6 with snippets). ` +
        'http: GET /api/search/data with every group.\n',
    );
    for (const u of unbounded)
      process.stdout.write(
        `unbounded reference, ${u.name}: every match ranked and counted, p50 ${fmt(u.stats.p50)} ms, ` +
          `max ${fmt(u.stats.p99)} ms (${o.unbounded} calls)\n`,
      );
  } finally {
    await parley?.close();
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`search bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
