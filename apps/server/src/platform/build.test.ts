import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module without types.
import { buildServer } from '../../../../scripts/build-server.mjs';

const exec = promisify(execFile);
const server = path.resolve(import.meta.dirname, '../..');
// Inside apps/server, so that the build finds the server's packages from there as apps/server/dist does.
const outdir = path.join(server, 'dist', `test-${process.pid}`);
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

/** The packages the server loads only when a feature needs them (idle memory stays low without them). */
const LAZY = [
  'exceljs',
  'sharp',
  'stripe',
  'mailparser',
  'imapflow',
  'qrcode',
  'redis',
  '@socket.io/redis-streams-adapter',
];

describe('FOUNDATION the compiled server (scripts/build-server.mjs)', () => {
  it('bundles our code and the contracts, imports packages from node_modules, keeps the lazy ones lazy; the CLI runs', async () => {
    const files: string[] = await buildServer({ outdir });
    expect(files.filter((f) => f.endsWith('.js')).map((f) => path.basename(f))).toEqual(['main.js', 'cli.js']);
    for (const name of ['main.js', 'cli.js']) {
      const code = fs.readFileSync(path.join(outdir, name), 'utf8');
      const statics = [...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)";?$/gm)].map((m) => m[1]!);
      expect(statics, name).toContain('kysely');
      expect(
        statics.filter((p) => p.startsWith('.') || p.startsWith('@parley/')),
        name,
      ).toEqual([]);
      for (const lazy of LAZY) expect(statics, `${name}: ${lazy}`).not.toContain(lazy);
    }
    const main = fs.readFileSync(path.join(outdir, 'main.js'), 'utf8');
    expect(main).toContain('await import("redis")');
    expect(main).toContain('await import("qrcode")');

    const help = await exec(process.execPath, [path.join(outdir, 'cli.js'), 'help']);
    expect(help.stdout).toContain('backup FILE [--force]');
  }, 120_000);
});
