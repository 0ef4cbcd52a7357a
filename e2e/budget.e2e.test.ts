import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * Read from the build output (`npm run test:e2e` builds first): the JavaScript the sign-in
 * page loads is at most 200 kB gzip, the signed-in shell's initial JavaScript at most 450 kB gzip, and
 * every other screen is a lazy chunk.
 */
const dist = path.resolve(import.meta.dirname, '../apps/web/dist');
interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

function load() {
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8')) as Record<string, Chunk>;
  const gz = (file: string) => zlib.gzipSync(fs.readFileSync(path.join(dist, file))).length;
  /** The chunk and everything it imports statically, as the browser loads it. */
  const closure = (key: string, seen = new Set<string>()) => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const i of manifest[key]?.imports ?? []) closure(i, seen);
    return seen;
  };
  const size = (keys: Set<string>) => [...keys].reduce((n, k) => n + gz(manifest[k]?.file ?? ''), 0);
  const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry);
  if (!entry) throw new Error('no entry in the build manifest');
  const keyOf = (needle: string) => {
    const k = Object.keys(manifest).find((x) => x.includes(needle));
    if (!k) throw new Error(`${needle} is not a chunk of its own`);
    return k;
  };
  return { manifest, closure, size, entry, keyOf };
}

describe('SHELL bundle budget', () => {
  it('budget: sign-in page JavaScript <= 200 kB gzip, signed-in shell <= 450 kB gzip', () => {
    const { closure, size, entry, keyOf } = load();
    const signIn = closure(entry);
    const signInKb = size(signIn) / 1024;
    const shell = closure(keyOf('SignedInApp.tsx'), new Set(signIn));
    const shellKb = size(shell) / 1024;
    console.log(`budget: sign-in ${signInKb.toFixed(1)} kB gzip, signed-in shell ${shellKb.toFixed(1)} kB gzip`);
    expect(signInKb).toBeLessThanOrEqual(200);
    expect(shellKb).toBeLessThanOrEqual(450);
  });

  it('SHELL-13 the signed-in app, settings and the other screens are lazy chunks', () => {
    const { manifest, closure, entry, keyOf } = load();
    const initial = closure(entry);
    for (const lazy of ['SignedInApp.tsx', 'SettingsPage.tsx', 'Screens.tsx']) {
      const key = keyOf(lazy);
      expect(initial.has(key), `${lazy} must not load with the sign-in page`).toBe(false);
    }
    const shell = closure(keyOf('SignedInApp.tsx'));
    expect(shell.has(keyOf('SettingsPage.tsx'))).toBe(false);
    expect(shell.has(keyOf('Screens.tsx'))).toBe(false);
    expect(manifest[keyOf('SignedInApp.tsx')]?.dynamicImports?.length).toBeGreaterThan(0);
  });
});
