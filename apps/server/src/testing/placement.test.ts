import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Test helpers live in `src/testing/`, never beside product code, and product code never imports them: a
 * helper in a module folder reads as part of the product and may be shipped or imported by mistake.
 */
const src = path.resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const rel = (f: string) => path.relative(src, f).split(path.sep).join('/');
const all = sources(src).map(rel);
const isTest = (r: string) => r.endsWith('.test.ts');
const inTesting = (r: string) => r.startsWith('testing/');

describe('test helper placement', () => {
  it('finds the sources it checks', () => {
    expect(all.filter(inTesting).length).toBeGreaterThan(5);
    expect(all.filter((r) => r.startsWith('modules/')).length).toBeGreaterThan(50);
  });

  it('no test helper (testing.ts, a testing/ folder) outside src/testing/', () => {
    expect(all.filter((r) => !inTesting(r) && /(^|\/)testing(\.ts$|\/)/.test(r))).toEqual([]);
  });

  it('product code never imports src/testing/', () => {
    const bad = all
      .filter((r) => !isTest(r) && !inTesting(r))
      .flatMap((r) => {
        const text = fs.readFileSync(path.join(src, r), 'utf8');
        return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)]
          .map((m) => rel(path.resolve(path.dirname(path.join(src, r)), m[1] as string)))
          .filter(inTesting)
          .map((i) => `${r} -> ${i}`);
      });
    expect(bad).toEqual([]);
  });
});
