import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { checkpointInBackground, FALLBACK_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import type { Database } from './schema.js';
import { cachedStatements } from './statementCache.js';

export type Dialect = 'sqlite' | 'postgres';
export type DB = Kysely<Database>;

export interface DbHandle {
  db: DB;
  dialect: Dialect;
  /** Where the data lives, for logs: a file path or the Postgres database name (never the password). */
  where: string;
  close(): Promise<void>;
}

// bigint (int8) columns hold millisecond timestamps and ids: both fit safely in a JS number.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** SQLite at `$DATA_DIR/parley.db` unless a Postgres URL is given. */
export function openDatabase(opts: { databaseUrl?: string; dataDir: string; poolSize?: number }): DbHandle {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle client that loses its server must not crash the process; the next query reports it.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', where: new URL(opts.databaseUrl).pathname.slice(1), close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.resolve(opts.dataDir, 'parley.db');
  const sqlite = new SQLite(file);
  // The busy timeout first: on a new file the switch to WAL takes a lock, and a second process opening the
  // file meanwhile (a `db:migrate` beside a starting server) must wait for it, not fail at once.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Checkpoints run on a worker thread (see checkpointer.ts); this connection only runs one if it falls behind.
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const stopCheckpoints = checkpointInBackground(file);
  // Compiled statements are reused by SQL text: Kysely would otherwise compile every query again.
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedStatements(sqlite) }) });
  const close = async () => {
    await stopCheckpoints();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', where: file, close };
}

/** True when the database answers a trivial query. */
export async function pingDatabase(db: DB): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** A unique index refused the row (Postgres 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export const now = () => Date.now();

/**
 * Text for a LIKE pattern taken as written: `%`, `_` and the escape character itself are escaped with `!`,
 * so the statement must say `escape '!'` (the same on SQLite and Postgres).
 */
export const likeEscape = (s: string) => s.replace(/[!%_]/g, (c) => `!${c}`);

/** Whether a handle (or a transaction of one) talks to Postgres; SQLite otherwise. */
export const onPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
