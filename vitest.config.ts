import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/server/src/**/*.test.ts', 'apps/web/src/**/*.test.ts', 'packages/contracts/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Files share their worker's module cache: each file would otherwise import the whole server again
    // (70 s of imports over the suite on CI's 2 cores). Tests build their own servers, databases and
    // accounts, so nothing a file needs lives in module state.
    isolate: false,
    // After the summary, a run without TEST_DATABASE_URL says how many Postgres cases it left out.
    reporters: ['default', './apps/server/src/testing/postgresLeftOut.ts'],
  },
});
