import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrateToLatest } from '../migrations/index.js';
import { openDatabase } from '../platform/db/db.js';

/**
 * Before any test file runs: one migrated database of each dialect for test servers to start from. A server
 * over a copy finds every migration applied, so it starts in milliseconds instead of running every migration
 * again (on Postgres that was seconds a server, hundreds of servers a run). The migration tests still start
 * from empty databases.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated SQLite file to copy into a test's DATA_DIR. */
    sqliteTemplate: string;
    /** A migrated Postgres database to create test databases from (empty without TEST_DATABASE_URL). */
    postgresTemplate: string;
  }
}

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

/** Changes whenever a migration file does, so a kept template never lags behind the code. */
function migrationsHash(): string {
  const h = createHash('sha256');
  for (const f of fs.readdirSync(migrationsDir).sort())
    h.update(f).update(fs.readFileSync(path.join(migrationsDir, f)));
  return h.digest('hex').slice(0, 12);
}

async function sqliteTemplate(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-template-'));
  const h = openDatabase({ dataDir: dir });
  await migrateToLatest(h.db, 'sqlite');
  await h.close();
  // Closing the last connection checkpoints the WAL into the main file; the copy needs only that file.
  return path.join(dir, 'parley.db');
}

/**
 * Kept between runs under a name that carries the migrations' hash; made under a temporary name and renamed,
 * so a run that dies halfway, or two runs at once, never leave a half-migrated template behind.
 */
async function postgresTemplate(base: string): Promise<string> {
  const name = `parley_tpl_${migrationsHash()}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount) return name;
    const building = `parley_tplb_${randomBytes(4).toString('hex')}`;
    await admin.query(`create database ${building}`);
    const u = new URL(base);
    u.pathname = `/${building}`;
    const h = openDatabase({ databaseUrl: u.toString(), dataDir: os.tmpdir() });
    try {
      await migrateToLatest(h.db, 'postgres');
    } finally {
      await h.close();
    }
    try {
      await admin.query(`alter database ${building} rename to ${name}`);
    } catch {
      // Another run finished the same template first.
      await admin.query(`drop database if exists ${building}`);
    }
    // Templates of other migrations: another checkout (a branch with a new migration) may be running its
    // tests from one right now, so only those beyond the five newest go (oids grow with creation).
    const old = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like 'parley\\_tpl\\_%' and datname <> $1 order by oid desc offset 5",
      [name],
    );
    for (const r of old.rows) await admin.query(`drop database if exists ${r.datname} with (force)`).catch(() => {});
    return name;
  } finally {
    await admin.end();
  }
}

export default async function setup(project: TestProject) {
  const sqlite = await sqliteTemplate();
  project.provide('sqliteTemplate', sqlite);
  const base = process.env.TEST_DATABASE_URL;
  project.provide('postgresTemplate', base ? await postgresTemplate(base) : '');
  return () => fs.rmSync(path.dirname(sqlite), { recursive: true, force: true });
}
