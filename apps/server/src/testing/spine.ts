import fs from 'node:fs';
import pino from 'pino';
import { migrateToLatest } from '../migrations/index.js';
import { type DB, type DbHandle, type Dialect, openDatabase } from '../platform/db/db.js';
import { freshDatabase } from './support.js';

/** Helpers for the event-spine and database tests: fresh databases, extra "nodes" on them, accounts. */

export const silentLog = pino({ level: 'silent' });

export interface SpineDb extends DbHandle {
  /** DATABASE_URL (Postgres) and DATA_DIR of the database, for a child process. */
  env: Record<string, string>;
  /** Opens another connection (pool) to the same database, as a second node would. `drop()` closes it. */
  open(): DbHandle;
  /** Closes every handle opened here and removes the database. */
  drop(): Promise<void>;
}

/** A new, empty database of the dialect, migrated unless `migrate: false`. */
export async function spineDatabase(dialect: Dialect, opts: { migrate?: boolean } = {}): Promise<SpineDb> {
  const fresh = await freshDatabase(dialect, { migrated: opts.migrate ?? true });
  const handles: DbHandle[] = [];
  const open = (): DbHandle => {
    const h = openDatabase({ databaseUrl: fresh.env.DATABASE_URL, dataDir: fresh.env.DATA_DIR! });
    let closed: Promise<void> | null = null;
    const close = () => {
      closed ??= h.close();
      return closed;
    };
    const once = { ...h, close };
    handles.push(once);
    return once;
  };
  const main = open();
  if (opts.migrate ?? true) await migrateToLatest(main.db, dialect);
  return {
    ...main,
    env: fresh.env,
    open,
    async drop() {
      await Promise.allSettled(handles.map((h) => h.close()));
      await fresh.drop();
      // freshDatabase leaves the Postgres variant's (empty) DATA_DIR behind.
      fs.rmSync(fresh.env.DATA_DIR!, { recursive: true, force: true });
    },
  };
}

/** Inserts an account and returns its id. */
export async function createAccount(db: DB, name = 'Acme'): Promise<number> {
  const at = Date.now();
  const r = await db
    .insertInto('accounts')
    .values({ name, account_type: 0, plan: 0, features: '[]', created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(r.id);
}
