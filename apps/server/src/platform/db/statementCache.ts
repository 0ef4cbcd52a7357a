import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** The part of better-sqlite3's Database the cache needs. */
export interface PreparingDatabase {
  prepare(sql: string): SqliteStatement;
  close(): void;
}

export interface StatementCache extends SqliteDatabase {
  /** Statements compiled so far (misses), for tests and measurements. */
  readonly compiled: number;
  readonly size: number;
}

/**
 * Kysely's SQLite driver calls `prepare()` for every query; compiling the same text again costs as much as
 * running it. This keeps the last `max` statements by SQL text (least recently used goes first) and hands
 * the driver the compiled one.
 *
 * better-sqlite3 decides at compile time whether a statement returns rows (`reader`, which the driver uses
 * to choose `all()` or `run()`), so a cached statement answers the same as a fresh one; SQLite recompiles a
 * statement by itself when the schema changes. `all()` and `run()` finish synchronously, so one statement
 * object is never used twice at once; `iterate()` (a stream) keeps its statement busy across awaits, so a
 * stream gets its own fresh statement and the cached one stays free for other queries.
 */
export function cachedStatements(db: PreparingDatabase, max = 500): StatementCache {
  const cache = new Map<string, SqliteStatement>();
  let compiled = 0;
  return {
    get compiled() {
      return compiled;
    },
    get size() {
      return cache.size;
    },
    close: () => {
      cache.clear();
      db.close();
    },
    prepare(sql: string): SqliteStatement {
      const hit = cache.get(sql);
      if (hit) {
        // Map keeps insertion order: re-inserting makes this the most recently used.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = db.prepare(sql);
      compiled++;
      const entry: SqliteStatement = {
        reader: stmt.reader,
        all: (parameters) => stmt.all(parameters),
        run: (parameters) => stmt.run(parameters),
        iterate: (parameters) => db.prepare(sql).iterate(parameters),
      };
      cache.set(sql, entry);
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
      return entry;
    },
  };
}
