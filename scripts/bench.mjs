#!/usr/bin/env node
// `npm run bench -- <name> [args]`: runs bench/<name>.ts with tsx. Without a name, lists the benchmarks.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(root, 'bench');
const available = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('_'))
  .map((f) => f.slice(0, -'.ts'.length))
  .sort();

const [name, ...rest] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h' || !available.includes(name)) {
  if (name && !name.startsWith('-')) process.stderr.write(`Unknown benchmark: ${name}\n`);
  process.stderr.write(
    `Usage: npm run bench -- <name> [args]\nAvailable: ${available.join(', ') || '(none)'}\nSee bench/README.md.\n`,
  );
  process.exit(name === '--help' || name === '-h' ? 0 : 1);
}

const child = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(dir, `${name}.ts`), ...rest], {
  cwd: root,
  stdio: 'inherit',
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
