import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/server/src/**/*.test.ts', 'apps/web/src/**/*.test.ts', 'packages/contracts/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on CI's 2 cores. The tests mostly wait (on
    // Postgres, sockets, the relay's polling), so three files at a time keep both cores busy.
    maxWorkers: 3,
    // One migrated database of each dialect, made once; test servers start from copies of it.
    globalSetup: ['apps/server/src/testing/globalSetup.ts'],
    // Files share their worker's module cache: each file would otherwise import the whole server again
    // (70 s of imports over the suite on CI's 2 cores). Tests build their own servers, databases and
    // accounts, so nothing a file needs lives in module state.
    isolate: false,
    // After the summary, a run without TEST_DATABASE_URL says how many Postgres cases it left out.
    reporters: ['default', './apps/server/src/testing/postgresLeftOut.ts'],
  },
});
