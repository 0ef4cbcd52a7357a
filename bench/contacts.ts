/**
 * `npm run bench -- contacts [--contacts=N] [--requests=R] [--warmup=W]`
 *
 * One Parley server in this process (SQLite in a temp dir, or a fresh database on BENCH_DATABASE_URL, dropped
 * at the end), one workspace made through `POST /api/setup`, then N contacts with 3 addresses each (an
 * e-mail, a phone and one of WhatsApp / Messenger / Telegram) and a conversation for every fourth contact,
 * bulk-inserted with set-based `INSERT ... SELECT` over a generated series in transactions of BATCH rows,
 * with the indexes of the migrations kept while they go in. One contact in 100 is merged into the one before.
 *
 * Measured, each R times after W warm-up calls, one call at a time, along two paths in the same run:
 *   first      GET /api/contacts/list?pagination=20                      (last contact first)
 *   page 1000  the same, page 1,000 (offset 19,980)
 *   middle     the same, the page in the middle of the list
 *   last       the same, the last page
 *   name       keyword: the prefix of a surname (a word of the name that is not the first)
 *   email      keyword: the prefix of an e-mail address
 *   open       filter=open (contacts with an open conversation)
 *   lookup     the owner of an address: linkConversation for a known e-mail, in a transaction rolled back
 *   http  the route through a keep-alive fetch (auth, validation, the queries, JSON); for lookup,
 *         linkConversation itself
 *   raw   the statements the query function runs, captured from it and executed on the database handle
 *         (for lookup, the same statements in a transaction rolled back)
 * Prints p50/p99 of both and the ratio.
 *
 * Default size: 200,000 contacts (a few minutes on a 2-core machine); the size is --contacts=1000000.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Transaction } from 'kysely';
import { createParley, type Parley } from '../apps/server/src/app.js';
import { linkConversation } from '../apps/server/src/modules/contacts/commands/linkConversation.js';
import { listContacts } from '../apps/server/src/modules/contacts/contacts.queries.js';
import { resolveSession } from '../apps/server/src/platform/auth/sessions.js';
import { loadConfig } from '../apps/server/src/platform/config.js';
import type { DB, Dialect } from '../apps/server/src/platform/db/db.js';
import type { Database } from '../apps/server/src/platform/db/schema.js';
import { capture, fmt, freshBenchDatabase, nowMs, percentile, series } from './lib/common.js';

interface Options {
  contacts: number;
  requests: number;
  warmup: number;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { contacts: 200_000, requests: 300, warmup: 30 };
  for (const arg of argv) {
    const m = /^--(contacts|requests|warmup)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --contacts= --requests= --warmup=)`);
    o[m[1] as keyof Options] = Number(m[2]);
  }
  if (o.contacts < 1000 || o.requests < 1) throw new Error('contacts must be at least 1000 and requests at least 1');
  return o;
}

const BATCH = 50_000;
const DAY = 86_400_000;
const PAGE = 20;

/** Fixed-width word lists, picked with `substr`, the same in both dialects. */
const FIRST = ['Maria', 'John', 'Aisha', 'Wei', 'Priya', 'Ahmad', 'Siti', 'David', 'Mei', 'Raj'];
const SYLLABLES = ['ta', 'ko', 'ra', 'mi', 'su', 'ne', 'lo', 'ba', 'chi', 'de', 'wan', 'ng', 'ho', 'li', 'ka'];
const pick = (words: string[], index: string) => {
  const w = Math.max(...words.map((x) => x.length));
  return sql.raw(
    `trim(substr('${words.map((x) => x.padEnd(w)).join('')}', cast((${index}) as integer) * ${w} + 1, ${w}))`,
  );
};
/** Contact i: first name i % 10, a surname of three syllables (15^3 = 3,375 surnames). */
const firstName = pick(FIRST, 'i % 10');
const surname = sql`upper(${pick(SYLLABLES, '(i / 10) % 15')}) || ${pick(SYLLABLES, '(i / 150) % 15')} || ${pick(SYLLABLES, '(i / 2250) % 15')}`;

async function seed(db: DB, dialect: Dialect, accountId: number, o: Options, now: number): Promise<void> {
  let t = nowMs();
  const before = await db
    .selectFrom('contacts')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  const base = Number(before?.id ?? 0);
  // Last contact spread over the last two years; i * 7919 mod a prime scatters it against the row order.
  for (let lo = 1; lo <= o.contacts; lo += BATCH) {
    const hi = Math.min(o.contacts, lo + BATCH - 1);
    await db.transaction().execute((trx) =>
      sql`insert into contacts (account_id, name, name_lower, salutation, id_type, id_number, notes, merged_into,
          last_seen_at, created_at, updated_at)
        select ${sql.lit(accountId)}, n, lower(n), '', 'None', '', '', null,
          ${sql.lit(now)} - ((i * 7919) % 730003) * 86400, ${sql.lit(now - 800 * DAY)} + i, ${sql.lit(now)}
        from (select i, ${firstName} || ' ' || ${surname} as n from ${series(dialect, lo, hi)}) named`.execute(trx),
    );
  }
  const ids = await db
    .selectFrom('contacts')
    .select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi'), eb.fn.countAll().as('n')])
    .where('account_id', '=', accountId)
    .where('id', '>', base)
    .executeTakeFirstOrThrow();
  const first = Number(ids.lo);
  if (Number(ids.hi) - first + 1 !== o.contacts || Number(ids.n) !== o.contacts)
    throw new Error('the contacts did not get consecutive ids');
  process.stdout.write(`  ${o.contacts} contacts in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  t = nowMs();
  // Contact i (id first + i - 1): e-mail <first>.<surname><i>@example.com, phone +6591<i>, and a WhatsApp
  // number, a Messenger id or a Telegram id.
  const third = sql.raw(`case i % 3 when 0 then 'whatsapp' when 1 then 'messenger' else 'telegram' end`);
  const thirdValue = sql.raw(
    `case i % 3 when 0 then '+6581' || (10000000 + i) when 1 then 'm' || (7000000000 + i) else 't' || (5000000000 + i) end`,
  );
  for (let lo = 1; lo <= o.contacts; lo += BATCH) {
    const hi = Math.min(o.contacts, lo + BATCH - 1);
    await db.transaction().execute(async (trx) => {
      const from = sql`from (select c.id, c.name_lower, c.id - ${sql.lit(first - 1)} as i from contacts c
          where c.account_id = ${sql.lit(accountId)} and c.id between ${sql.lit(first + lo - 1)} and ${sql.lit(first + hi - 1)}) x`;
      await sql`insert into contact_identifiers (account_id, contact_id, kind, value, verified, created_at)
        select ${sql.lit(accountId)}, id, 'email', replace(name_lower, ' ', '.') || i || '@example.com', 1, ${sql.lit(now)}
        ${from}`.execute(trx);
      await sql`insert into contact_identifiers (account_id, contact_id, kind, value, verified, created_at)
        select ${sql.lit(accountId)}, id, 'phone', '+6591' || (10000000 + i), i % 2, ${sql.lit(now)} ${from}`.execute(
        trx,
      );
      await sql`insert into contact_identifiers (account_id, contact_id, kind, value, verified, created_at)
        select ${sql.lit(accountId)}, id, ${third}, ${thirdValue}, 0, ${sql.lit(now)} ${from}`.execute(trx);
    });
  }
  process.stdout.write(`  ${o.contacts * 3} addresses in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  t = nowMs();
  // A conversation for every fourth contact: 30% of them open (closed 0), the rest closed (3).
  const tickets = Math.floor(o.contacts / 4);
  for (let lo = 1; lo <= tickets; lo += BATCH) {
    const hi = Math.min(tickets, lo + BATCH - 1);
    await db.transaction().execute((trx) =>
      sql`insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
          assignee, name, email, phone, created_at, updated_at, contact_id)
        select ${sql.lit(accountId)}, i, 'Conversation ' || i, 'EMAIL', case when i % 10 < 3 then 0 else 3 end, '',
          '[]', null, '', 'Customer', 'customer@example.com', '', ${sql.lit(now - DAY)}, ${sql.lit(now - DAY)},
          ${sql.lit(first)} + (i - 1) * 4
        from ${series(dialect, lo, hi)}`.execute(trx),
    );
  }
  // One contact in 100 merged into the one before it, its addresses and conversations moved there.
  await db.transaction().execute(async (trx) => {
    const merged = sql`(id - ${sql.lit(first)}) % 100 = 99`;
    await sql`update contacts set merged_into = id - 1 where account_id = ${accountId} and ${merged}`.execute(trx);
    await sql`update contact_identifiers set contact_id = contact_id - 1
      where account_id = ${accountId} and (contact_id - ${sql.lit(first)}) % 100 = 99`.execute(trx);
    await sql`update tickets set contact_id = contact_id - 1
      where account_id = ${accountId} and (contact_id - ${sql.lit(first)}) % 100 = 99`.execute(trx);
  });
  process.stdout.write(`  ${tickets} conversations and merges in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
  t = nowMs();
  if (dialect === 'postgres') await sql`vacuum analyze`.execute(db);
  else await sql`analyze`.execute(db);
  process.stdout.write(`  vacuum/analyze in ${((nowMs() - t) / 1000).toFixed(1)} s\n`);
}

class Rollback extends Error {}
/** Runs `fn` in a transaction and rolls it back. */
async function rolledBack(db: DB, fn: (trx: Transaction<Database>) => Promise<unknown>): Promise<void> {
  await db
    .transaction()
    .execute(async (trx) => {
      await fn(trx);
      throw new Rollback();
    })
    .catch((err) => {
      if (!(err instanceof Rollback)) throw err;
    });
}

/**
 * A GET that is tried again once when the keep-alive connection it reused was closed by the server while the
 * raw path ran (undici then fails the request with "fetch failed").
 */
async function get(url: string, headers: Record<string, string>): Promise<Response> {
  try {
    return await fetch(url, { headers });
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return fetch(url, { headers });
  }
}

interface Stats {
  p50: number;
  p99: number;
  /** This process's CPU time (user + system) per call: the handler and the client, and SQLite's work. */
  cpu: number;
}

async function measure(n: number, warmup: number, call: () => Promise<void>): Promise<Stats> {
  for (let k = 0; k < warmup; k++) await call();
  const times = new Float64Array(n);
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < n; k++) {
    const t0 = nowMs();
    await call();
    times[k] = nowMs() - t0;
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort();
  return { p50: percentile(times, 50), p99: percentile(times, 99), cpu: (cpu.user + cpu.system) / 1000 / n };
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const pgBase = process.env.BENCH_DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const pg = pgBase ? await freshBenchDatabase(pgBase) : null;
  let parley: Parley | null = null;
  const minutes = Number(process.env.BENCH_TIMEOUT_MIN) || 30;
  const watchdog = setTimeout(() => {
    process.stderr.write(`contacts bench: gave up after ${minutes} minutes\n`);
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
        company: 'Bench contacts',
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
    process.stdout.write(`seeding ${dialect}: ${o.contacts} contacts ...\n`);
    const now = Date.now();
    const t0 = nowMs();
    await seed(db, dialect, auth.accountId, o, now);
    const seedSeconds = (nowMs() - t0) / 1000;

    const visible = o.contacts - Math.floor(o.contacts / 100);
    // Contact 4321's surname and e-mail, cut to a prefix: surnames are 3 syllables, so `<1st><2nd>` is
    // shared by about N/225 contacts; the e-mail prefix `<first>.<surname>43` by a few hundred.
    const probe = await db
      .selectFrom('contact_identifiers')
      .innerJoin('contacts', 'contacts.id', 'contact_identifiers.contact_id')
      .select(['contacts.name_lower', 'contact_identifiers.value'])
      .where('contacts.account_id', '=', auth.accountId)
      .where('contact_identifiers.kind', '=', 'email')
      .where('contact_identifiers.value', 'like', '%.%4321@example.com')
      .executeTakeFirstOrThrow();
    const sur = probe.name_lower.split(' ')[1]!;
    const nameKey = sur.slice(0, sur.length - 2);
    const emailKey = probe.value.slice(0, probe.value.indexOf('4321') + 2);
    const deep = Math.min(1000, Math.floor(visible / PAGE));
    const lists: { name: string; qs: Record<string, string> }[] = [
      { name: 'first', qs: {} },
      { name: `page ${deep}`, qs: { page: String(deep) } },
      { name: 'middle', qs: { page: String(Math.floor(visible / PAGE / 2)) } },
      { name: 'last', qs: { page: String(Math.ceil(visible / PAGE)) } },
      { name: `name "${nameKey}"`, qs: { keyword: nameKey } },
      { name: `email "${emailKey}"`, qs: { keyword: emailKey } },
      { name: 'open', qs: { filter: 'open' } },
    ];
    const headers = { authorization: `Bearer ${token}` };
    const results: { name: string; total: number; rows: number; http: Stats; raw: Stats }[] = [];
    for (const c of lists) {
      const q = { keyword: '', filter: 'all', pagination: PAGE, page: 1, ...c.qs };
      const query = { ...q, pagination: Number(q.pagination), page: Number(q.page) };
      let answer: Awaited<ReturnType<typeof listContacts>> | null = null;
      const statements = await capture(db, async (rec) => {
        answer = await listContacts(rec, auth.accountId, query);
      });
      const a = answer as unknown as Awaited<ReturnType<typeof listContacts>>;
      const path_ = `/api/contacts/list?${new URLSearchParams({ ...q, pagination: String(PAGE), page: String(q.page) })}`;
      const first = await get(`${url}${path_}`, headers);
      if (first.status !== 200) throw new Error(`${c.name}: ${first.status} ${await first.text()}`);
      const body = (await first.json()) as typeof a;
      if (body.total !== a.total || body.contacts.length !== a.contacts.length || a.contacts.length === 0)
        throw new Error(`${c.name}: the route and the query disagree, or the page is empty`);
      if (!c.qs.keyword && !c.qs.filter) {
        // A page reached by day must be the page the plain OFFSET gives.
        const offset = await db
          .selectFrom('contacts')
          .select('id')
          .where('account_id', '=', auth.accountId)
          .where('merged_into', 'is', null)
          .orderBy('last_seen_at', 'desc')
          .orderBy('id', 'desc')
          .limit(PAGE)
          .offset((query.page - 1) * PAGE)
          .execute();
        if (JSON.stringify(offset.map((r) => Number(r.id))) !== JSON.stringify(a.contacts.map((r) => r.id)))
          throw new Error(`${c.name}: the page differs from the OFFSET page`);
      }
      process.stdout.write(
        `${c.name}: total ${a.total}, ${statements.length} statements, ${o.requests} requests per path ...\n`,
      );
      const http = await measure(o.requests, o.warmup, async () => {
        const r = await get(`${url}${path_}`, headers);
        if (r.status !== 200) throw new Error(`${c.name}: ${r.status}`);
        await r.arrayBuffer();
      });
      const raw = await measure(o.requests, o.warmup, async () => {
        for (const s of statements) await db.executeQuery(s);
      });
      results.push({ name: c.name, total: a.total, rows: a.contacts.length, http, raw });
    }

    // The owner of an address: what linkConversation runs for a conversation from a known e-mail.
    const middle = await db
      .selectFrom('contact_identifiers')
      .select('value')
      .where('account_id', '=', auth.accountId)
      .where('kind', '=', 'email')
      .where(
        'contact_id',
        '=',
        db
          .selectFrom('contacts')
          .select(sql<number>`min(id) + ${Math.floor(o.contacts / 2)}`.as('id'))
          .where('account_id', '=', auth.accountId),
      )
      .executeTakeFirstOrThrow();
    const email = middle.value;
    const convo = { channel: 'EMAIL', name: 'Someone', email, phone: '' };
    let owner: number | null = null;
    const lookupStatements = await capture(db, (rec) =>
      rolledBack(rec, async (trx) => {
        owner = await linkConversation(trx, auth.accountId, convo, now - DAY);
      }),
    );
    const own = lookupStatements.filter((s) => !/^(begin|commit|rollback)/i.test(s.sql));
    if (owner === null) throw new Error('lookup: no owner found');
    process.stdout.write(`lookup: owner ${owner}, ${own.length} statements ...\n`);
    const lookupApp = await measure(o.requests, o.warmup, () =>
      rolledBack(db, (trx) => linkConversation(trx, auth.accountId, convo, now - DAY)),
    );
    const lookupRaw = await measure(o.requests, o.warmup, () =>
      rolledBack(db, async (trx) => {
        for (const s of own) await trx.executeQuery(s);
      }),
    );
    results.push({ name: 'lookup', total: 1, rows: 1, http: lookupApp, raw: lookupRaw });

    const cpu = os.cpus();
    process.stdout.write(
      `\ncontacts: ${dialect}, ${o.contacts} contacts x 3 addresses, ${o.requests} requests per path after ` +
        `${o.warmup} warm-up, seeded in ${seedSeconds.toFixed(0)} s, ${new Date().toISOString()}\n` +
        `machine: ${cpu.length} x ${cpu[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, ` +
        `node ${process.version}, load ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}\n\n`,
    );
    const rows: string[][] = [
      ['case', 'total', 'raw p50', 'raw p99', 'app p50', 'app p99', 'p50 app/raw', 'p99 app/raw', 'raw cpu', 'app cpu'],
      ...results.map(({ name, total, http, raw }) => [
        name,
        String(total),
        fmt(raw.p50),
        fmt(raw.p99),
        fmt(http.p50),
        fmt(http.p99),
        `${fmt(http.p50 / raw.p50)}x`,
        `${fmt(http.p99 / raw.p99)}x`,
        fmt(raw.cpu),
        fmt(http.cpu),
      ]),
    ];
    const widths = rows[0]!.map((_, k) => Math.max(...rows.map((r) => r[k]!.length)));
    for (const r of rows)
      process.stdout.write(
        `${r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]!) : cell.padStart(widths[k]!))).join('  ')}\n`,
      );
    process.stdout.write(
      '\nms per call, one call at a time. app: GET /api/contacts/list (lookup: linkConversation in a transaction ' +
        'rolled back). raw: the statements they run, on the database handle. cpu: CPU ms of the bench process per call ' +
        '(on SQLite the queries too; on Postgres without the database server).\n',
    );
  } finally {
    await parley?.close();
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`contacts bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
