import type { Reporter, TestCase } from 'vitest/node';

/**
 * Names, after the run, every test that passed only on its second try, so a race is seen and fixed instead of
 * hidden by the retry.
 */
export default class RetriedReporter implements Reporter {
  private readonly retried: string[] = [];

  onTestCaseResult(test: TestCase): void {
    if (test.diagnostic()?.flaky) this.retried.push(`${test.module.relativeModuleId} > ${test.fullName}`);
  }

  onTestRunEnd(): void {
    if (this.retried.length === 0) return;
    console.log(`\nPassed only on the second try (${this.retried.length}):`);
    for (const name of this.retried) console.log(`  - ${name}`);
  }
}
