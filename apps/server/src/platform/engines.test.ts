import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
/** The part of semver used here (a package of the server's dependencies, without types of its own). */
const semver = require('semver') as {
  minVersion(range: string): { version: string } | null;
  validRange(range: string): string | null;
  satisfies(version: string, range: string): boolean;
};
const root = path.resolve(import.meta.dirname, '../../../..');

/** Every installed package's name, version and `engines.node`, in every node_modules of the workspace. */
function installed(): { at: string; node: string }[] {
  const out: { at: string; node: string }[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const p = path.join(dir, entry);
      if (entry.startsWith('@')) {
        walk(p);
        continue;
      }
      const manifest = path.join(p, 'package.json');
      if (!fs.existsSync(manifest)) continue;
      const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      if (typeof pkg.engines?.node === 'string') out.push({ at: path.relative(root, p), node: pkg.engines.node });
      walk(path.join(p, 'node_modules'));
    }
  };
  for (const base of ['', 'apps/server', 'apps/web', 'packages/contracts', 'e2e', 'bench'])
    walk(path.join(root, base, 'node_modules'));
  return out;
}

describe('FOUNDATION the Node version the README names', () => {
  it('every installed package supports the oldest Node that package.json engines admits', () => {
    const ours = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node as string;
    const oldest = semver.minVersion(ours)!.version;
    expect(oldest).toBe('20.19.0');
    expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toContain('Node 20.19 or newer');
    const packages = installed();
    expect(packages.length).toBeGreaterThan(50);
    const refusing = packages
      .filter((p) => semver.validRange(p.node) && !semver.satisfies(oldest, p.node))
      .map((p) => `${p.at} (node ${p.node})`);
    expect(refusing).toEqual([]);
  });
});
