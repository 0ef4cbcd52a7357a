import type { Reporter, TestModule } from 'vitest/node';

/** What the count needs of a test or a suite; vitest's reported tests and suites have this shape. */
export interface Reported {
  type: string;
  name?: string;
  options?: { readonly each?: boolean | undefined };
  parent?: Reported;
}

/**
 * Whether the test is the SQLite one of a `describe.each(dialects)` (or `it.each(dialects)`) pair: it or a
 * suite it is in was made by `.each` with "sqlite" in its name (every such title carries the dialect).
 */
export function ranForSqliteOnly(test: Reported): boolean {
  for (let e: Reported | undefined = test; e && e.type !== 'module'; e = e.parent)
    if (e.options?.each && /\bsqlite\b/i.test(e.name ?? '')) return true;
  return false;
}

/**
 * The line a run without TEST_DATABASE_URL ends with, given how many SQLite cases ran whose Postgres twins
 * were left out; nothing when Postgres was tested (CI sets TEST_DATABASE_URL) or no such case ran.
 */
export function postgresLeftOutLine(sqliteOnly: number, env: Record<string, string | undefined>): string | null {
  if (env.TEST_DATABASE_URL || sqliteOnly === 0) return null;
  const cases = sqliteOnly === 1 ? '1 Postgres case' : `${sqliteOnly} Postgres cases`;
  return `Postgres left out: ${cases} (the twins of the SQLite cases that ran) and the Postgres-only tests did not run; set TEST_DATABASE_URL=postgres://user@127.0.0.1:5432/db (and TEST_REDIS_URL=redis://127.0.0.1:6379) to include them.`;
}

/** A vitest reporter that prints `postgresLeftOutLine` after the summary. */
export default class PostgresLeftOut implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    let sqliteOnly = 0;
    for (const m of modules)
      for (const t of m.children.allTests()) {
        // A test that was skipped or filtered out here would have been skipped on Postgres too.
        const state = t.result().state;
        if ((state === 'passed' || state === 'failed') && ranForSqliteOnly(t)) sqliteOnly++;
      }
    const line = postgresLeftOutLine(sqliteOnly, process.env);
    if (line) process.stdout.write(`\n${line}\n`);
  }
}
