import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type TableMetadata } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../migrations/index.js';
import { createAccount, type SpineDb, spineDatabase } from '../../testing/spine.js';
import { dialects } from '../../testing/support.js';
import type { DB, Dialect } from './db.js';

/**
 * Tables that hold no account data, so have no account_id, each with the reason. Anything else without an
 * account_id column fails the TENANCY test: a new table must either carry account_id or be listed here.
 */
const GLOBAL_TABLES: Record<string, string> = {
  accounts: 'the tenant itself: its id is the account id',
  task_leases: 'scheduler leases of timed tasks, which run for every account at once',
  nodes: 'heartbeats of the server processes of the cluster, shared by all accounts',
  server_state: 'settings of the installation itself (the Web Push VAPID key pair), the same for every account',
  rate_limit_hits: 'hits of public calls (sign-up, reset requests) per IP or address, before any account is known',
  pricing:
    "the installation's price list by country and plan, the same for every account in a country (docs/billing.md)",
};

/** Tables whose account_id may be null, each with the reason. */
const NULLABLE_ACCOUNT_ID: Record<string, string> = {
  login_attempts: 'sign-in attempts with an unknown username belong to no account (throttling still counts them)',
};

/** Columns holding a point in time: integer milliseconds since the epoch in both dialects. */
const isTimestamp = (column: string) => /(_at|_until|_since)$/.test(column);

interface ColumnShape {
  name: string;
  /** 'integer' for whole numbers (SQLite INTEGER, Postgres int4/int8), 'text' for text. */
  kind: string;
  nullable: boolean;
}

const kindOf = (dataType: string) => {
  const t = dataType.toLowerCase();
  if (['integer', 'int4', 'int8', 'bigint'].includes(t)) return 'integer';
  return t;
};

/**
 * SQLite's full-text indexes (the search's of migration 0032, the contact names' of 0036, the knowledge base's
 * of 0035): FTS5 virtual tables and their shadow tables. They hold no rows of their own, only an index over
 * messages, tickets, contacts and articles (whose rows carry account_id); on Postgres the same index is a GIN
 * index, not a table.
 */
const isSearchIndex = (name: string) =>
  /^(messages|tickets|contacts|kb_articles)_fts(_(data|idx|docsize|config|content))?$/.test(name);

async function tables(db: DB): Promise<TableMetadata[]> {
  const all = await db.introspection.getTables();
  return all.filter((t) => !t.isView && !isSearchIndex(t.name)).sort((a, b) => a.name.localeCompare(b.name));
}

/** The primary-key columns of a table. */
async function primaryKey(db: DB, dialect: Dialect, table: string): Promise<string[]> {
  const q =
    dialect === 'sqlite'
      ? sql<{ name: string }>`select name from pragma_table_info(${table}) where pk > 0`
      : sql<{ name: string }>`
          select a.attname as name from pg_index i
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = ${table}::regclass and i.indisprimary`;
  return (await q.execute(db)).rows.map((r) => r.name);
}

/**
 * Tables and their columns, comparable across dialects. Primary-key columns count as not null: Postgres
 * makes them NOT NULL, SQLite reports them nullable (an INTEGER PRIMARY KEY is the rowid and never null;
 * a TEXT PRIMARY KEY without NOT NULL does accept NULL on SQLite, a legacy quirk, which no code relies on).
 */
async function shape(db: DB, dialect: Dialect): Promise<Record<string, ColumnShape[]>> {
  const out: Record<string, ColumnShape[]> = {};
  for (const t of await tables(db)) {
    const pk = await primaryKey(db, dialect, t.name);
    out[t.name] = t.columns
      .map((c) => ({ name: c.name, kind: kindOf(c.dataType), nullable: c.isNullable && !pk.includes(c.name) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
  return out;
}

/** Everything the migrations built, including indexes, for a before/after comparison. */
async function snapshot(db: DB, dialect: Dialect): Promise<unknown> {
  const indexes =
    dialect === 'sqlite'
      ? (
          await sql<{ name: string; sql: string | null }>`
            select name, sql from sqlite_master where type = 'index' order by name`.execute(db)
        ).rows
      : (
          await sql<{ name: string; sql: string }>`
            select indexname as name, indexdef as sql from pg_indexes where schemaname = 'public' order by indexname`.execute(
            db,
          )
        ).rows;
  return { tables: await shape(db, dialect), indexes };
}

const migrationNames = async (db: DB) =>
  (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)).rows.map((r) => r.name);

const shapes: Partial<Record<Dialect, Record<string, ColumnShape[]>>> = {};
const rows: Partial<Record<Dialect, Record<string, unknown>>> = {};

describe.each(dialects)('FOUNDATION database on %s', (dialect) => {
  const opened: SpineDb[] = [];
  const fresh = async (migrate = true) => {
    const s = await spineDatabase(dialect, { migrate });
    opened.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.drop()));
  });

  it('FOUNDATION migrations run on an empty database and are idempotent', async () => {
    const s = await fresh(false);
    expect(await tables(s.db)).toEqual([]);

    const applied = await migrateToLatest(s.db, dialect);
    expect(applied[0]).toBe('0001_init');
    expect(applied).toEqual([...applied].sort());
    expect(await migrationNames(s.db)).toEqual(applied);
    const after = await snapshot(s.db, dialect);
    expect(Object.keys((after as { tables: object }).tables)).toContain('events');

    // A second run, and a run from a new connection (a restart), apply nothing and change nothing.
    expect(await migrateToLatest(s.db, dialect)).toEqual([]);
    const restarted = s.open();
    expect(await migrateToLatest(restarted.db, dialect)).toEqual([]);
    expect(await snapshot(restarted.db, dialect)).toEqual(after);
    expect(await migrationNames(s.db)).toEqual(applied);

    shapes[dialect] = await shape(s.db, dialect);
  });

  it.runIf(dialect === 'postgres')(
    'FOUNDATION migrations from several nodes at once apply each migration once',
    async () => {
      const s = await fresh(false);
      const nodes = [s, s.open(), s.open()];
      const results = await Promise.all(nodes.map((n) => migrateToLatest(n.db, dialect)));
      const all = results.flat();
      expect(all.length).toBeGreaterThan(0);
      expect(new Set(all).size).toBe(all.length);
      expect(await migrationNames(s.db)).toEqual([...all].sort());
    },
  );

  // Kysely's SQLite adapter takes no migration lock; migrateToLatest wraps the run in BEGIN IMMEDIATE, so
  // a `db:migrate` and a starting server (two processes) on one empty file both succeed.
  it.runIf(dialect === 'sqlite')(
    'FOUNDATION sqlite: two processes migrating one empty file at once',
    async () => {
      const root = path.resolve(import.meta.dirname, '../../../../..');
      const migrate = (dir: string) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const p = spawn(
            process.execPath,
            ['--import', 'tsx', path.join(root, 'apps/server/src/cli.ts'), 'db:migrate'],
            {
              cwd: root,
              env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
            },
          );
          let out = '';
          p.stdout.on('data', (d) => {
            out += d;
          });
          p.stderr.on('data', (d) => {
            out += d;
          });
          p.on('exit', (code) => resolve({ code, out }));
        });
      // Each process loads the CLI through tsx (seconds on 2 busy cores); three rounds of the race suffice.
      for (let round = 0; round < 3; round++) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-mig-'));
        const [a, b] = await Promise.all([migrate(dir), migrate(dir)]);
        expect([a.code, b.code], `${a.out}\n${b.out}`).toEqual([0, 0]);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it('TENANCY every table that holds account data has an account_id column', async () => {
    const s = await fresh();
    const all = await tables(s.db);
    const names = all.map((t) => t.name);
    for (const g of Object.keys(GLOBAL_TABLES)) expect(names, `listed global table ${g} exists`).toContain(g);
    expect(names).not.toContain('kysely_migration');

    const missing: string[] = [];
    const nullable: string[] = [];
    for (const t of all) {
      if (t.name in GLOBAL_TABLES) {
        expect(t.columns.map((c) => c.name)).not.toContain('account_id');
        continue;
      }
      const col = t.columns.find((c) => c.name === 'account_id');
      if (!col) missing.push(t.name);
      else if (col.isNullable && !(await primaryKey(s.db, dialect, t.name)).includes('account_id'))
        nullable.push(t.name);
      if (col) expect(kindOf(col.dataType), `${t.name}.account_id`).toBe('integer');
    }
    expect(missing, 'tables without account_id (add it, or list the table in GLOBAL_TABLES with a reason)').toEqual([]);
    expect(nullable.sort()).toEqual(Object.keys(NULLABLE_ACCOUNT_ID).sort());
  });

  it('FOUNDATION timestamps are stored as integer milliseconds (check a written row)', async () => {
    const s = await fresh();
    // Every point-in-time column is a 64-bit integer: bigint on Postgres, INTEGER on SQLite.
    const wrong: string[] = [];
    for (const t of await tables(s.db)) {
      for (const c of t.columns) {
        if (!isTimestamp(c.name)) continue;
        const want = dialect === 'postgres' ? 'int8' : 'integer';
        if (c.dataType.toLowerCase() !== want) wrong.push(`${t.name}.${c.name}: ${c.dataType}`);
      }
    }
    expect(wrong).toEqual([]);

    // A value past 2^32 with a millisecond part, written and read back through Kysely.
    const at = 1_767_225_600_123; // 2026-01-01T00:00:00.123Z
    const accountId = await createAccount(s.db, 'Timestamps');
    await s.db
      .updateTable('accounts')
      .set({ created_at: at, updated_at: at + 1, trial_ends_at: at + 86_400_000, subscription_ends_at: null })
      .where('id', '=', accountId)
      .execute();
    const row = await s.db
      .selectFrom('accounts')
      .select(['created_at', 'updated_at', 'trial_ends_at', 'subscription_ends_at'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      created_at: at,
      updated_at: at + 1,
      trial_ends_at: at + 86_400_000,
      subscription_ends_at: null,
    });
    expect(typeof row.created_at).toBe('number');

    // How the database itself holds the value: an integer, not text or a float.
    const stored =
      dialect === 'sqlite'
        ? await sql<{ t: string; v: number }>`
            select typeof(created_at) as t, created_at as v from accounts where id = ${accountId}`.execute(s.db)
        : await sql<{ t: string; v: number }>`
            select pg_typeof(created_at)::text as t, created_at as v from accounts where id = ${accountId}`.execute(
            s.db,
          );
    expect(stored.rows[0]).toEqual({ t: dialect === 'sqlite' ? 'integer' : 'bigint', v: at });

    // Range comparisons in SQL see numbers in both dialects (a text column would compare as strings).
    const later = await s.db
      .selectFrom('accounts')
      .select('id')
      .where('created_at', '>', 999_999_999_999)
      .where('id', '=', accountId)
      .execute();
    expect(later).toHaveLength(1);

    rows[dialect] = row;
  });
});

describe.runIf(dialects.includes('postgres'))('FOUNDATION both dialects', () => {
  it('FOUNDATION the same migrations build the same tables and columns on SQLite and Postgres', () => {
    expect(shapes.sqlite).toBeDefined();
    expect(shapes.postgres).toEqual(shapes.sqlite);
  });

  it('FOUNDATION a timestamp written on SQLite and on Postgres reads back identically', () => {
    expect(rows.sqlite).toBeDefined();
    expect(rows.postgres).toEqual(rows.sqlite);
  });
});
