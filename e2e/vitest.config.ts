import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Files share their worker's module cache (playwright-core and the helpers load once per worker).
    isolate: false,
    // Each file starts its own server and browser; two at a time suits a 2-core machine.
    maxWorkers: 2,
  },
});
