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
    // A browser test on a loaded 2-core machine can lose a race the product does not have (a press before a
    // menu is ready). One more try for a test that failed: a real fault fails both, and the report names
    // every test that needed the second try, so each one is looked at and its race fixed.
    retry: 1,
    reporters: ['default', './e2e/retriedReporter.ts'],
  },
});
