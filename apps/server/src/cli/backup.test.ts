import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrationNames } from '../migrations/index.js';
import { openDatabase } from '../platform/db/db.js';
import { tempDir } from '../testing/support.js';
import { BackupError, backupDatabase, describeBackup, restoreDatabase } from './backup.js';

const exec = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../../..');
const require = createRequire(import.meta.url);
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function newDir() {
  const d = tempDir('parley-backup-');
  dirs.push(d);
  return d;
}

async function cli(dataDir: string, env: Record<string, string>, ...args: string[]) {
  try {
    const r = await exec(process.execPath, ['--import', 'tsx', 'apps/server/src/cli.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

const count = (db: SQLite.Database) => (db.prepare('select count(*) as n from accounts').get() as { n: number }).n;

function countIn(file: string): number {
  const db = new SQLite(file, { readonly: true });
  try {
    return count(db);
  } finally {
    db.close();
  }
}

/** A new migrated SQLite database in its own folder; returns its file. */
async function migratedDatabase(name: string): Promise<string> {
  const data = newDir();
  const { db, dialect, close } = openDatabase({ dataDir: data });
  await migrateToLatest(db, dialect);
  const t = Date.now();
  await db
    .insertInto('accounts')
    .values({ name, account_type: 0, plan: 1, features: '[]', created_at: t, updated_at: t })
    .execute();
  await close();
  return path.join(data, 'parley.db');
}

/**
 * Another process with the database open, as a server has it (WAL), adding an account every millisecond
 * until it is killed.
 */
async function busyWriter(file: string): Promise<ChildProcess> {
  const script = `
    const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(${JSON.stringify(file)});
    db.pragma('journal_mode = WAL'); db.pragma('busy_timeout = 5000');
    const insert = db.prepare('insert into accounts (name, created_at, updated_at) values (?, ?, ?)');
    let i = 0;
    setInterval(() => { insert.run('Busy ' + i++, Date.now(), Date.now()); if (i === 1) process.stdout.write('writing\\n'); }, 1);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', () => reject(new Error('the writer stopped')));
  });
  return child;
}

describe('FOUNDATION backup and restore (SQLite)', () => {
  it('backup copies the database while another process writes; restore refuses while it is in use, then puts it back', async () => {
    const file = await migratedDatabase('Before');
    const out = path.join(newDir(), 'nightly.db');
    const writer = await busyWriter(file);
    const live = new SQLite(file, { readonly: true });
    const before = count(live);
    const r = await backupDatabase(file, out);
    const after = count(live);
    const last = migrationNames[migrationNames.length - 1]!;
    expect(r).toMatchObject({ file: out, migration: last });
    expect(describeBackup(r)).toMatch(/^\d+\.\d MB, migration /);
    // The writes went on during the backup, and the copy is one consistent snapshot of them.
    expect(after).toBeGreaterThan(before);
    const copy = new SQLite(out, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
    const copied = count(copy);
    const names = (copy.prepare('select name from accounts order by id').all() as { name: string }[]).map(
      (n) => n.name,
    );
    copy.close();
    expect(copied).toBeGreaterThanOrEqual(before);
    expect(copied).toBeLessThanOrEqual(after);
    expect(names).toEqual(['Before', ...Array.from({ length: copied - 1 }, (_, i) => `Busy ${i}`)]);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['nightly.db']);

    // A second backup to the same file needs force.
    await expect(backupDatabase(file, out)).rejects.toThrow(`${out} exists; pass --force to replace it`);
    await backupDatabase(file, out, { force: true });
    const inBackup = countIn(out);

    // The database is open in another process (the writer plays the server): restore refuses, changes nothing.
    expect(() => restoreDatabase(file, out)).toThrow(/is in use \(is the server running\?\)/);
    expect(count(live)).toBeGreaterThanOrEqual(after);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => !f.startsWith('parley.db'))).toEqual([]);
    live.close();
    writer.kill('SIGKILL');
    await new Promise((resolve) => writer.once('exit', resolve));

    // Stopped: the restore puts the backup in place and keeps the database it replaces, whole.
    const inLive = countIn(file);
    const restored = restoreDatabase(file, out, new Date('2026-01-02T03:04:05.678Z'));
    const kept = `${file}.before-restore-2026-01-02T03-04-05-678Z`;
    expect(restored).toMatchObject({ migration: last, keptAs: kept });
    const db = new SQLite(file, { readonly: true });
    expect(count(db)).toBe(inBackup);
    db.close();
    const old = new SQLite(kept, { readonly: true });
    expect(count(old)).toBe(inLive);
    old.close();
  }, 120_000);

  it('refuses bad paths and files that are not a Parley database, with a clear message, changing nothing', async () => {
    const file = await migratedDatabase('Keep');
    const data = path.dirname(file);
    const elsewhere = newDir();
    const size = () => fs.statSync(file).size;
    const start = size();

    const notSqlite = path.join(elsewhere, 'notes.txt');
    fs.writeFileSync(notSqlite, 'hello, this is not a database at all');
    const foreign = path.join(elsewhere, 'other.db');
    const f = new SQLite(foreign);
    f.exec('create table t (x)');
    f.close();
    const newer = path.join(elsewhere, 'newer.db');
    await backupDatabase(file, newer);
    const n = new SQLite(newer);
    n.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('9999_from_the_future', 'x');
    n.close();

    const missingFolder = path.join(elsewhere, 'missing-folder');
    await expect(backupDatabase(file, path.join(missingFolder, 'b.db'))).rejects.toThrow(
      `There is no folder ${missingFolder}`,
    );
    await expect(backupDatabase(file, file)).rejects.toThrow('another file than the database');
    await expect(backupDatabase(file, elsewhere, { force: true })).rejects.toThrow('is not a file');
    await expect(backupDatabase(path.join(elsewhere, 'none.db'), path.join(elsewhere, 'x.db'))).rejects.toThrow(
      'There is no database at',
    );
    const refusals: [string, string][] = [
      [path.join(elsewhere, 'nope.db'), `There is no file ${path.join(elsewhere, 'nope.db')}`],
      [elsewhere, 'is not a file'],
      [notSqlite, 'is not a SQLite database'],
      [foreign, 'is not a Parley database'],
      [newer, 'made by a newer version of Parley (migrations unknown here: 9999_from_the_future)'],
      [file, 'That file is the database itself'],
    ];
    for (const [src, message] of refusals) {
      expect(() => restoreDatabase(file, src), src).toThrow(BackupError);
      expect(() => restoreDatabase(file, src), src).toThrow(message);
    }
    expect(size()).toBe(start);
    expect(fs.readdirSync(data).filter((f) => f !== 'parley.db')).toEqual([]);
    expect(fs.readdirSync(elsewhere).sort()).toEqual(['newer.db', 'notes.txt', 'other.db']);
  }, 60_000);

  it('FOUNDATION command line: backup FILE and restore FILE, their usage, and PostgreSQL pointing to pg_dump', async () => {
    const data = path.dirname(await migratedDatabase('Cli'));
    const out = path.join(newDir(), 'cli.db');
    const [ok, usage, pgr] = await Promise.all([
      cli(data, {}, 'backup', out),
      cli(data, {}, 'restore'),
      cli(data, { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, 'backup', out),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`Backup written to ${out} (`);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('Usage: npm run cli -- restore FILE');
    expect(pgr.code).toBe(1);
    expect(pgr.stderr).toContain('use pg_dump / pg_restore (docs/deploy.md)');
    const restored = await cli(data, {}, 'restore', out);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('the database it replaced is kept as');
  }, 120_000);
});
