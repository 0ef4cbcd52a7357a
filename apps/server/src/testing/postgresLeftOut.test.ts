import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import PostgresLeftOut, { postgresLeftOutLine, type Reported, ranForSqliteOnly } from './postgresLeftOut.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const module: Reported = { type: 'module', name: 'x.test.ts' };
const suite = (name: string, each: boolean, parent: Reported = module): Reported => ({
  type: 'suite',
  name,
  options: { each },
  parent,
});
const test = (name: string, parent: Reported, each = false): Reported => ({
  type: 'test',
  name,
  options: { each },
  parent,
});

describe('a run without Postgres says how many Postgres cases it left out', () => {
  it('the reporter is one of the unit run', async () => {
    const config = (await import(pathToFileURL(path.join(root, 'vitest.config.ts')).href)).default;
    const reporters = config.test.reporters as unknown[];
    expect(reporters).toContain('default');
    const own = reporters.find((r) => typeof r === 'string' && r.endsWith('postgresLeftOut.ts')) as string;
    expect(fs.existsSync(path.join(root, own))).toBe(true);
    const loaded = (await import(pathToFileURL(path.join(root, own)).href)).default;
    expect(new loaded()).toBeInstanceOf(PostgresLeftOut);
  });

  it('counts the tests of describe.each(dialects) and it.each(dialects) on SQLite, and no other', () => {
    const tickets = suite('tickets (sqlite)', true);
    const spine = suite('SPINE outbox and relay on sqlite', true);
    const nested = suite('filters', false, tickets);
    expect(ranForSqliteOnly(test('opens', tickets))).toBe(true);
    expect(ranForSqliteOnly(test('deep', nested))).toBe(true);
    expect(ranForSqliteOnly(test('relays', spine))).toBe(true);
    expect(ranForSqliteOnly(test('probe sqlite', module, true))).toBe(true);
    // Not made from the dialects: a plain suite naming SQLite, an .each over something else.
    expect(ranForSqliteOnly(test('x', suite('the SQLite checkpointer', false)))).toBe(false);
    expect(ranForSqliteOnly(test('x', suite('channel EMAIL', true)))).toBe(false);
    expect(ranForSqliteOnly(test('plain', module))).toBe(false);
  });

  it('one line without TEST_DATABASE_URL, nothing with it (CI) or when no SQLite case ran', () => {
    const line = postgresLeftOutLine(412, {});
    expect(line).toContain('412 Postgres cases');
    expect(line).toContain('TEST_DATABASE_URL=');
    expect(line).not.toContain('\n');
    expect(postgresLeftOutLine(1, {})).toContain('1 Postgres case ');
    expect(postgresLeftOutLine(412, { TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' })).toBeNull();
    expect(postgresLeftOutLine(0, {})).toBeNull();
  });
});
