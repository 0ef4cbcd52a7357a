import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { openDatabase } from './db.js';

describe('SPINE SQLite checkpoints off the event loop', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('SPINE commits are copied into the database file by the worker, not by the committing connection', async () => {
    const dir = tempDir('checkpointer-');
    dirs.push(dir);
    const h = openDatabase({ dataDir: dir });
    const file = path.join(dir, 'parley.db');
    await sql`create table filler (id integer primary key, body text not null)`.execute(h.db);
    const before = fs.statSync(file).size;
    // About 1,500 pages in 300 small commits: above SQLite's default autocheckpoint (1,000 pages, which would
    // have had a commit copy them), below this connection's fallback.
    for (let i = 0; i < 300; i++) await sql`insert into filler (body) values (${'x'.repeat(20_000)})`.execute(h.db);
    const walPages = Math.ceil(fs.statSync(`${file}-wal`).size / 4096);
    expect(walPages).toBeGreaterThan(1_000);
    expect(walPages).toBeLessThan(FALLBACK_AUTOCHECKPOINT_PAGES);

    // Within a few of the worker's rounds the pages are in the database file.
    await waitFor(() => fs.statSync(file).size > before + 5_000_000, 'the pages copied into the database file');
    expect(fs.statSync(file).size).toBeGreaterThan(before + 5_000_000);

    // Another connection finds nothing left to copy.
    const other = new SQLite(file);
    const [result] = other.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    other.close();
    expect(result!.checkpointed).toBe(result!.log);
    await h.close();
    // Closed by its last connection, the log is gone: the worker let go of the file first.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('SPINE many files open and close at once through the one worker, each log removed, no warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const handles = Array.from({ length: 15 }, () => {
        const dir = tempDir('checkpointer-many-');
        dirs.push(dir);
        return { dir, h: openDatabase({ dataDir: dir }) };
      });
      await Promise.all(handles.map(({ h }) => sql`create table t (x integer)`.execute(h.db)));
      await Promise.all(handles.map(({ h }) => h.close()));
      const logs = handles.map(({ dir }) => path.join(dir, 'parley.db-wal'));
      await waitFor(() => logs.every((f) => !fs.existsSync(f)), 'every log removed');
      for (const { dir } of handles) expect(fs.existsSync(path.join(dir, 'parley.db-wal'))).toBe(false);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
