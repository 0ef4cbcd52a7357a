import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type Generated, Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../testing/support.js';
import { cachedStatements } from './statementCache.js';

interface T {
  items: { id: Generated<number>; name: string; qty: number };
}

describe('SPINE SQLite statement cache', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const open = (max?: number) => {
    const dir = tempDir('stmt-cache-');
    dirs.push(dir);
    const raw = new SQLite(path.join(dir, 'x.db'));
    let prepares = 0;
    const counting = {
      prepare: (text: string) => {
        prepares++;
        return raw.prepare(text);
      },
      close: () => raw.close(),
    };
    const cache = cachedStatements(counting, max);
    const db = new Kysely<T>({ dialect: new SqliteDialect({ database: cache }) });
    return { db, cache, prepares: () => prepares };
  };

  it('SPINE a query run again reuses its compiled statement, and readers and writers answer as uncached ones', async () => {
    const { db, cache, prepares } = open();
    await sql`create table items (id integer primary key, name text not null, qty integer not null)`.execute(db);
    const insert = (name: string, qty: number) =>
      db.insertInto('items').values({ name, qty }).executeTakeFirstOrThrow();
    const first = await insert('a', 1);
    const second = await insert('b', 2);
    // A writer without RETURNING runs with run(): the insert id and the change count come back each time.
    expect(Number(first.insertId)).toBe(1);
    expect(Number(second.insertId)).toBe(2);
    // A writer with RETURNING is a reader: its rows come back, from the cached statement too.
    const ret = () => db.insertInto('items').values({ name: 'r', qty: 9 }).returning(['id', 'name']).execute();
    expect(await ret()).toEqual([{ id: 3, name: 'r' }]);
    expect(await ret()).toEqual([{ id: 4, name: 'r' }]);
    const upd = await db.updateTable('items').set({ qty: 5 }).where('qty', '<', 3).executeTakeFirstOrThrow();
    expect(Number(upd.numUpdatedRows)).toBe(2);
    const sel = (qty: number) => db.selectFrom('items').select('name').where('qty', '=', qty).orderBy('id').execute();
    expect(await sel(5)).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(await sel(9)).toEqual([{ name: 'r' }, { name: 'r' }]);
    // create, insert, insert...returning, update, select: five texts compiled, however often they ran.
    expect(prepares()).toBe(5);
    expect(cache.compiled).toBe(5);
    expect(cache.size).toBe(5);
  });

  it('SPINE the cache keeps at most its bound, dropping the least recently used statement', async () => {
    const { db, cache, prepares } = open(2);
    await sql`create table items (id integer primary key, name text not null, qty integer not null)`.execute(db);
    const q1 = () => db.selectFrom('items').select('id').execute();
    const q2 = () => db.selectFrom('items').select('name').execute();
    const q3 = () => db.selectFrom('items').select('qty').execute();
    await q1();
    await q2();
    await q1(); // q1 is now the most recent: q2 goes when q3 arrives
    await q3();
    expect(cache.size).toBe(2);
    const before = prepares();
    await q1();
    await q3();
    expect(prepares()).toBe(before);
    await q2();
    expect(prepares()).toBe(before + 1);
    expect(cache.size).toBe(2);
  });

  it('SPINE a cached statement follows a schema change, and a stream does not block the same query', async () => {
    const { db, cache } = open();
    await sql`create table items (id integer primary key, name text not null, qty integer not null)`.execute(db);
    for (let i = 0; i < 5; i++)
      await db
        .insertInto('items')
        .values({ name: `n${i}`, qty: i })
        .execute();
    const all = () => db.selectFrom('items').selectAll().orderBy('id').limit(1).execute();
    expect(await all()).toEqual([{ id: 1, name: 'n0', qty: 0 }]);
    await sql`alter table items add column note text not null default 'x'`.execute(db);
    expect(await all()).toEqual([{ id: 1, name: 'n0', qty: 0, note: 'x' }]);

    // Kysely holds the connection through a stream; at the driver's level a stream of a text and an ordinary
    // run of the same text may be open at once (a shared statement would say it is busy).
    const q = db.selectFrom('items').select('id').orderBy('id');
    expect((await q.execute()).map((x) => x.id)).toEqual([1, 2, 3, 4, 5]);
    const seen: number[] = [];
    for await (const r of q.stream()) seen.push(Number(r.id));
    const text = q.compile().sql;
    const streaming = cache.prepare(text).iterate([]) as IterableIterator<{ id: number }>;
    seen.push(streaming.next().value!.id);
    expect(cache.prepare(text).all([])).toHaveLength(5);
    seen.push(streaming.next().value!.id);
    streaming.return?.();
    expect((await q.execute()).map((x) => x.id)).toEqual([1, 2, 3, 4, 5]);
    expect(seen).toEqual([1, 2, 3, 4, 5, 1, 2]);
  });
});
