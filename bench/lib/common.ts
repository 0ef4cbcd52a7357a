import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { sql } from 'kysely';
import { openDatabase } from '../../apps/server/src/platform/db/db.js';

/** Shared by the benchmarks: a throw-away Postgres database, percentiles and number formatting. */

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

export const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

export const fmt = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : '-');
