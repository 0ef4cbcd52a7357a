import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { type CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { type DB, type Dialect, openDatabase } from '../../apps/server/src/platform/db/db.js';

/** Shared by the benchmarks: a throw-away Postgres database, seeding and capturing SQL, percentiles, formatting. */

/** A fresh database on BENCH_DATABASE_URL's server; `drop()` removes it. */
export async function freshBenchDatabase(base: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `parley_bench_${randomBytes(6).toString('hex')}`;
  const admin = openDatabase({ databaseUrl: base, dataDir: os.tmpdir(), poolSize: 1 });
  try {
    await sql`create database ${sql.raw(name)}`.execute(admin.db);
  } finally {
    await admin.close();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const a = openDatabase({ databaseUrl: base, dataDir: os.tmpdir(), poolSize: 1 });
      try {
        await sql`drop database if exists ${sql.raw(name)} with (force)`.execute(a.db);
      } finally {
        await a.close();
      }
    },
  };
}

/**
 * A named database on BENCH_DATABASE_URL's server that outlives the run (`BENCH_KEEP_DB=name`), so a slow
 * seed is paid once: created when missing, never dropped. `reset()` empties it for a new seed.
 */
export async function keptBenchDatabase(
  base: string,
  name: string,
): Promise<{ url: string; drop(): Promise<void>; reset(): Promise<void> }> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error('BENCH_KEEP_DB must be a plain lower-case name');
  const admin = async (run: (db: ReturnType<typeof openDatabase>['db']) => Promise<void>) => {
    const a = openDatabase({ databaseUrl: base, dataDir: os.tmpdir(), poolSize: 1 });
    try {
      await run(a.db);
    } finally {
      await a.close();
    }
  };
  await admin(async (db) => {
    const found = await sql<{ n: number }>`select count(*)::int as n from pg_database where datname = ${name}`.execute(
      db,
    );
    if (!found.rows[0]?.n) await sql`create database ${sql.raw(name)}`.execute(db);
  });
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {},
    async reset() {
      await admin(async (db) => {
        await sql`drop database if exists ${sql.raw(name)} with (force)`.execute(db);
        await sql`create database ${sql.raw(name)}`.execute(db);
      });
    },
  };
}

export const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

export const fmt = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : '-');

export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** The integers lo..hi in either dialect, as a FROM item `alias(col)`, for set-based `INSERT ... SELECT` seeds. */
export const series = (dialect: Dialect, lo: number, hi: number, alias = 's', col = 'i') =>
  dialect === 'postgres'
    ? sql`generate_series(${sql.lit(lo)}::bigint, ${sql.lit(hi)}::bigint) as ${sql.raw(`${alias}(${col})`)}`
    : sql`(with recursive r(${sql.raw(col)}) as (select ${sql.lit(lo)} union all select ${sql.raw(col)} + 1 from r where ${sql.raw(col)} < ${sql.lit(hi)}) select ${sql.raw(col)} from r) as ${sql.raw(alias)}`;

/** Runs `fn` with a handle whose queries are compiled and recorded (and still executed). */
export async function capture(db: DB, fn: (db: DB) => Promise<unknown>): Promise<CompiledQuery[]> {
  const out: CompiledQuery[] = [];
  const executor = db.getExecutor();
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      out.push(executor.compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await fn(db.withPlugin(plugin));
  return out;
}
