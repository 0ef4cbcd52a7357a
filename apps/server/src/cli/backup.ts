import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { migrationNames } from '../migrations/index.js';

/** A refusal with a message for the person at the command line. */
export class BackupError extends Error {}

const SQLITE_HEADER = 'SQLite format 3\0';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * What a file holds: a Parley database and the last migration it has, or a BackupError saying why not (not
 * there, not SQLite, not Parley's, made by a newer version, damaged).
 */
export function inspectDatabase(file: string): { migration: string; bytes: number } {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new BackupError(`There is no file ${file}`);
  }
  if (!st.isFile()) throw new BackupError(`${file} is not a file`);
  const head = Buffer.alloc(16);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.toString('latin1') !== SQLITE_HEADER) throw new BackupError(`${file} is not a SQLite database`);
  const db = new SQLite(file, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    const names = table
      ? (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name)
      : [];
    if (names.length === 0) throw new BackupError(`${file} is not a Parley database (it has no migrations)`);
    const unknown = names.filter((n) => !migrationNames.includes(n));
    if (unknown.length)
      throw new BackupError(
        `${file} was made by a newer version of Parley (migrations unknown here: ${unknown.join(', ')})`,
      );
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${file} is damaged: ${String(check)}`);
    return { migration: names[names.length - 1]!, bytes: st.size };
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} could not be read: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    db.close();
  }
}

/**
 * Copies the database at `dbFile` into `dest` with SQLite's online backup API: a consistent copy while the
 * server goes on reading and writing (WAL: the copy reads one snapshot and blocks no writer). The copy is
 * written beside `dest` under a temporary name, made a single self-contained file (journal mode DELETE),
 * checked, then renamed: `dest` is either the whole backup or untouched.
 */
export async function backupDatabase(
  dbFile: string,
  dest: string,
  opts: { force?: boolean } = {},
): Promise<{ file: string; migration: string; bytes: number }> {
  if (!fs.existsSync(dbFile)) throw new BackupError(`There is no database at ${dbFile} (check DATA_DIR)`);
  const target = path.resolve(dest);
  if (target === path.resolve(dbFile)) throw new BackupError('The backup must go to another file than the database');
  const dir = path.dirname(target);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new BackupError(`There is no folder ${dir}`);
  if (fs.existsSync(target)) {
    if (!fs.statSync(target).isFile()) throw new BackupError(`${target} is not a file`);
    if (!opts.force) throw new BackupError(`${target} exists; pass --force to replace it`);
  }
  const partial = `${target}.partial-${process.pid}`;
  const source = new SQLite(dbFile, { fileMustExist: true, timeout: 5000 });
  try {
    // All pages in one step: one snapshot, where steps of a few pages would start again after every write.
    await source.backup(partial, { progress: () => 0x7fffffff });
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw new BackupError(`The backup failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    source.close();
  }
  try {
    const copy = new SQLite(partial, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    const info = inspectDatabase(partial);
    fs.renameSync(partial, target);
    return { file: target, ...info };
  } catch (err) {
    for (const f of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) fs.rmSync(f, { force: true });
    throw err;
  }
}

/**
 * Replaces the database at `dbFile` with the backup `src`. Refused while another process has the database
 * open (a running server): SQLite's exclusive locking mode gets the file only when nobody else has it. The
 * database it replaces is kept beside it as `parley.db.before-restore-<time>`.
 */
export function restoreDatabase(
  dbFile: string,
  src: string,
  now: Date = new Date(),
): { migration: string; bytes: number; keptAs: string | null } {
  const backup = path.resolve(src);
  if (backup === path.resolve(dbFile)) throw new BackupError('That file is the database itself');
  const info = inspectDatabase(backup);
  const dir = path.dirname(dbFile);
  fs.mkdirSync(dir, { recursive: true });
  const incoming = `${dbFile}.restoring-${process.pid}`;
  fs.copyFileSync(backup, incoming);
  let keptAs: string | null = null;
  try {
    if (fs.existsSync(dbFile)) {
      const current = new SQLite(dbFile, { fileMustExist: true, timeout: 0 });
      try {
        current.pragma('locking_mode = EXCLUSIVE');
        try {
          current.prepare('select count(*) from sqlite_master').get();
          // Everything in the write-ahead log goes into the file that is kept.
          current.pragma('wal_checkpoint(TRUNCATE)');
        } catch (err) {
          if (isBusy(err))
            throw new BackupError(
              `The database ${dbFile} is in use (is the server running?). Stop the server, then restore.`,
            );
          throw err;
        }
      } finally {
        current.close();
      }
      keptAs = `${dbFile}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      fs.renameSync(dbFile, keptAs);
    }
    for (const f of [`${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`]) fs.rmSync(f, { force: true });
    fs.renameSync(incoming, dbFile);
  } catch (err) {
    fs.rmSync(incoming, { force: true });
    throw err;
  }
  return { ...info, keptAs };
}

export const describeBackup = (r: { migration: string; bytes: number }) => `${mb(r.bytes)}, migration ${r.migration}`;
