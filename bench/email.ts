/**
 * `npm run bench -- email [--mailboxes=10] [--mails=1000] [--big-mb=25] [--size=2000]`
 *
 * The inbound e-mail path end to end: a real Dovecot on loopback (apps/server/src/testing/dovecot.ts) with
 * one user per mailbox, one Parley server as its own process (SQLite in a temp dir, or a fresh database on
 * BENCH_DATABASE_URL) fetching them by IMAP IDLE. Each mailbox is connected and has done its first fetch,
 * then this process appends --mails mails to every mailbox at once (one IMAP connection per mailbox,
 * appends one after another on it); the middle mail of the first mailbox is a --big-mb MB mail (one
 * attachment). Every mail has its own subject, so each becomes a ticket.
 *
 * Figures:
 *   mails/s               all mails, from the first append to the last one stored as a ticket
 *   append -> ticket      from the start of a mail's APPEND to its message's created_at (the server's clock,
 *                         the same machine), p50 / p99 / max
 *   during the big mail   the other mailboxes' mails stored while the big one was fetched, parsed and stored
 *                         (from the store of the mail before it in its mailbox to its own), against the
 *                         same figure outside that window: the baseline of the same run
 *   event loop            the server's own `nodejs_eventloop_lag_max_seconds` (prom-client), read from
 *                         /metrics every 250 ms: the longest the server's loop was held in each interval
 * Checks that every mail is stored exactly once (one ticket each) before printing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PLANS } from '@parley/contracts';
import { openDatabase } from '../apps/server/src/platform/db/db.js';
import { hasDovecot, rawMail, startDovecot } from '../apps/server/src/testing/dovecot.js';
import { fmt, freshBenchDatabase, percentile } from './lib/common.js';
import { ok, sleep, startServer } from './lib/serverProcess.js';

interface Options {
  mailboxes: number;
  mails: number;
  bigMb: number;
  size: number;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { mailboxes: 10, mails: 1000, bigMb: 25, size: 2000 };
  for (const arg of argv) {
    const m = /^--(mailboxes|mails|big-mb|size)=(\d+)$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg} (use --mailboxes= --mails= --big-mb= --size=)`);
    const key = m[1] === 'big-mb' ? 'bigMb' : (m[1] as keyof Options);
    o[key] = Number(m[2]);
  }
  if (o.mailboxes < 1 || o.mailboxes > 15 || o.mails < 2) throw new Error('1 to 15 mailboxes, at least 2 mails each');
  return o;
}

const root = path.resolve(import.meta.dirname, '..');
const PASSWORD = 'bench password 1';

/** A process's user + system CPU time so far (ms, every thread), from /proc: what a shared machine barely moves. */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 (utime, stime) in clock ticks; f[0] is field 3.
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

const sorted = (a: number[]) => Float64Array.from(a).sort();
const row = (label: string, a: number[]) => {
  const s = sorted(a);
  return `| ${label} | ${s.length} | ${fmt(percentile(s, 50), 1)} | ${fmt(percentile(s, 99), 1)} | ${fmt(s[s.length - 1] ?? Number.NaN, 1)} |`;
};

/** A customer's mail of about `size` bytes of text. */
function mail(to: string, box: number, i: number, size: number): { id: string; raw: string } {
  const id = `bench-${box}-${i}-${randomBytes(4).toString('hex')}@customer.example`;
  const line = `Order ${box}-${i}: the parcel has not arrived yet, could you look into it please? `;
  return {
    id,
    raw: rawMail({
      from: `Customer ${box}-${i} <c${box}x${i}@customer.example>`,
      to,
      subject: `Bench mailbox ${box} mail ${i}`,
      messageId: id,
      text: line.repeat(Math.max(1, Math.ceil(size / line.length))),
    }),
  };
}

async function main() {
  if (!hasDovecot) throw new Error('Dovecot is missing: apt-get install -y dovecot-imapd');
  const o = parseOptions(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-email-'));
  const pg = process.env.BENCH_DATABASE_URL ? await freshBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  const watchdog = setTimeout(() => {
    process.stderr.write('email bench: gave up after 15 minutes\n');
    process.exit(1);
  }, 15 * 60_000);
  watchdog.unref();
  const users = Array.from({ length: o.mailboxes }, (_, i) => `bench${i}@example.test`);
  const imap = await startDovecot(users);
  let server: { url: string; proc: ChildProcess } | null = null;
  const handle = openDatabase({ dataDir, ...(pg ? { databaseUrl: pg.url } : {}), poolSize: 2 });
  let scraping = true;
  try {
    server = await startServer({
      DATA_DIR: dataDir,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      EMAIL_POLL_MS: '60000',
      ...(pg ? { DATABASE_URL: pg.url } : {}),
    });
    const { url } = server;
    const suffix = randomBytes(3).toString('hex');
    const setup = await ok(`${url}/api/setup`, 'POST', {
      company: `Bench ${suffix}`,
      name: 'Ann Admin',
      username: `ann-${suffix}`,
      email: `ann-${suffix}@example.com`,
      password: PASSWORD,
    });
    const admin = setup.token as string;
    const accountId = (await ok(`${url}/api/auth/check`, 'POST', {}, { token: admin })).accountId as number;
    // Ten mailboxes and room for the big mail's attachment: the Enterprise plan (no limits).
    await handle.db.updateTable('accounts').set({ plan: PLANS.enterprise }).where('id', '=', accountId).execute();
    for (const user of users)
      await ok(
        `${url}/api/mailboxes`,
        'POST',
        {
          address: user,
          name: user.split('@')[0],
          departmentId: null,
          active: true,
          imap: { host: '127.0.0.1', port: imap.port, tls: false, user, password: imap.password },
          smtp: { host: '127.0.0.1', port: 25, tls: false, user, password: '' },
        },
        { token: admin },
      );
    const fetched = async () =>
      (
        await handle.db.selectFrom('mailboxes').select('last_fetch_at').where('account_id', '=', accountId).execute()
      ).filter((r) => r.last_fetch_at).length;
    for (const deadline = Date.now() + 60_000; (await fetched()) < o.mailboxes; await sleep(100))
      if (Date.now() > deadline) throw new Error('the mailboxes did not connect');

    // The mails, made before the clock starts; the big one in the middle of the first mailbox.
    const bigAt = Math.floor(o.mails / 2);
    const plan = users.map((user, b) => Array.from({ length: o.mails }, (_, i) => mail(user, b, i, o.size)));
    if (o.bigMb > 0) {
      const bytes = Math.floor((o.bigMb * 1_000_000 * 57) / 78);
      const id = `bench-big-${randomBytes(4).toString('hex')}@customer.example`;
      plan[0]![bigAt] = {
        id,
        raw: rawMail({
          from: 'Big Sender <big@customer.example>',
          to: users[0]!,
          subject: 'Bench the big one',
          messageId: id,
          text: 'Everything attached.',
          attachment: { name: 'archive.bin', type: 'application/octet-stream', content: randomBytes(bytes) },
        }),
      };
    }
    const firstMails = plan[0] as { id: string; raw: string }[];
    const bigId = o.bigMb > 0 ? String(firstMails[bigAt]?.id) : null;
    const beforeBigId = o.bigMb > 0 ? String(firstMails[bigAt - 1]?.id) : null;
    const total = o.mails * o.mailboxes;
    // Warm the append connections (a login each) before the clock starts.
    await Promise.all(
      users.map((u) =>
        imap.append(u, rawMail({ from: 'w@customer.example', to: u, subject: 'warm', messageId: `warm-${u}` })),
      ),
    );
    const warm = users.length;

    // The server's event loop, read from its metrics while the mails come in.
    const lags: { at: number; ms: number }[] = [];
    const scraper = (async () => {
      while (scraping) {
        const at = Date.now();
        try {
          const text = await (await fetch(`${url}/metrics`)).text();
          const m = /^nodejs_eventloop_lag_max_seconds\s+([0-9.e+-]+)/m.exec(text);
          if (m) lags.push({ at, ms: Number(m[1]) * 1000 });
        } catch {}
        await sleep(250);
      }
    })();

    const appendedAt = new Map<string, number>();
    const pid = server.proc.pid;
    const cpuAtStart = cpuMs(pid);
    const started = Date.now();
    process.stdout.write(
      `appending ${o.mailboxes} x ${o.mails} mails${o.bigMb ? ` (one of ${o.bigMb} MB)` : ''} at once...\n`,
    );
    const appending = Promise.all(
      plan.map(async (mails, b) => {
        for (const m of mails) {
          appendedAt.set(m.id, Date.now());
          await imap.append(users[b]!, m.raw);
        }
      }),
    );
    const stored = async () =>
      Number(
        (
          await handle.db
            .selectFrom('email_message_ids')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    let n = 0;
    let lastReport = Date.now();
    for (;;) {
      n = (await stored()) - warm;
      if (n >= total) break;
      if (Date.now() - lastReport > 5000) {
        process.stdout.write(`  ${n} / ${total} stored after ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
        lastReport = Date.now();
      }
      await sleep(200);
    }
    const cpuStored = cpuMs(pid) - cpuAtStart;
    // The work after commit (the relay's listeners: delivery, emotion, counters...) goes on: until the
    // server's CPU is idle for a second, so the whole cost of a mail is counted too.
    let cpuAll = cpuMs(pid);
    for (let idle = 0, until = Date.now() + 120_000; idle < 4 && Date.now() < until; ) {
      await sleep(250);
      const now = cpuMs(pid);
      idle = now - cpuAll < 25 ? idle + 1 : 0;
      cpuAll = now;
    }
    cpuAll -= cpuAtStart;
    await appending;
    const appendsDone = Math.max(...appendedAt.values());
    scraping = false;
    await scraper;

    // Exactly once: one row, one message and one ticket per mail.
    const rows = await handle.db
      .selectFrom('email_message_ids as e')
      .innerJoin('messages as m', (j) => j.onRef('m.id', '=', 'e.message_row_id'))
      .select(['e.message_id', 'e.ticket_id', 'e.mailbox_id', 'm.created_at'])
      .where('e.account_id', '=', accountId)
      .where('e.message_id', 'like', 'bench-%')
      .execute();
    const tickets = new Set(rows.map((r) => Number(r.ticket_id)));
    if (rows.length !== total || tickets.size !== total)
      throw new Error(`stored ${rows.length} mails in ${tickets.size} tickets, expected ${total} of each`);
    const messages = Number(
      (
        await handle.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .where('sender', '=', 'visitor')
          .executeTakeFirstOrThrow()
      ).n,
    );
    if (messages !== total + warm) throw new Error(`${messages} customer messages, expected ${total + warm}`);

    const storedAt = new Map(rows.map((r) => [r.message_id, Number(r.created_at)]));
    const finished = Math.max(...storedAt.values());
    const latency = (id: string) => storedAt.get(id)! - appendedAt.get(id)!;
    const firstBox = Number(rows.find((r) => r.message_id === firstMails[0]?.id)?.mailbox_id);
    const all = rows.filter((r) => r.message_id !== bigId).map((r) => latency(r.message_id));
    const windowStart = beforeBigId ? storedAt.get(beforeBigId)! : 0;
    const windowEnd = bigId ? storedAt.get(bigId)! : 0;
    const others = rows.filter((r) => Number(r.mailbox_id) !== firstBox);
    const during = others
      .filter((r) => bigId && storedAt.get(r.message_id)! >= windowStart && storedAt.get(r.message_id)! <= windowEnd)
      .map((r) => latency(r.message_id));
    const outside = others
      .filter((r) => !bigId || storedAt.get(r.message_id)! < windowStart || storedAt.get(r.message_id)! > windowEnd)
      .map((r) => latency(r.message_id));
    const seconds = (finished - started) / 1000;

    const database = pg ? 'Postgres' : 'SQLite';
    process.stdout.write(
      `\n${database}: ${total} mails in ${o.mailboxes} mailboxes, all tickets in ${fmt(seconds, 1)} s: ` +
        `**${fmt(total / seconds, 0)} mails/s** (appends done after ${fmt((appendsDone - started) / 1000, 1)} s)\n\n`,
    );
    process.stdout.write('| append -> ticket (ms) | n | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n');
    process.stdout.write(`${row('every mail but the big one', all)}\n`);
    if (bigId) {
      process.stdout.write(`${row('other mailboxes, while the big one was fetched and stored', during)}\n`);
      process.stdout.write(`${row('other mailboxes, the rest of the run (baseline)', outside)}\n`);
      process.stdout.write(`${row(`the ${o.bigMb} MB mail itself`, [latency(bigId)])}\n`);
      const sd = sorted(during);
      const so = sorted(outside);
      process.stdout.write(
        `\nbig mail window ${fmt((windowEnd - windowStart) / 1000, 2)} s; p99 during / baseline: ${fmt(percentile(sd, 99) / percentile(so, 99))}x\n`,
      );
    }
    const lagAll = lags.map((l) => l.ms);
    const lagWindow = lags.filter((l) => l.at >= windowStart && l.at <= windowEnd + 250).map((l) => l.ms);
    process.stdout.write(
      `server event loop, longest hold per 250 ms: max ${fmt(Math.max(...lagAll, 0), 1)} ms over the run, ` +
        `p99 ${fmt(percentile(sorted(lagAll), 99), 1)} ms` +
        (bigId ? `; max ${fmt(Math.max(...lagWindow, 0), 1)} ms while the big mail was handled` : '') +
        '\n',
    );
    process.stdout.write(
      `server CPU (user + system, every thread): ${fmt(cpuStored / total, 2)} ms a mail until the last was stored, ` +
        `${fmt(cpuAll / total, 2)} ms a mail with the work after commit; one free core takes ` +
        `**${fmt((1000 * total) / cpuAll, 0)} mails/s** at that cost\n`,
    );
    const p99 = percentile(sorted(all), 99);
    process.stdout.write(
      `\ntarget >= 200 mails/s into SQLite and p99 < 2 s: ${total / seconds >= 200 ? 'met' : 'NOT met'} / ${p99 < 2000 ? 'met' : 'NOT met'}\n`,
    );
  } finally {
    scraping = false;
    if (server?.proc && server.proc.exitCode === null) {
      server.proc.kill('SIGTERM');
      await new Promise((r) => server?.proc.once('exit', r));
    }
    await handle.close().catch(() => {});
    await imap.stop();
    await pg?.drop().catch((err) => process.stderr.write(`could not drop the bench database: ${err}\n`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

main().catch((err) => {
  process.stderr.write(`email bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
