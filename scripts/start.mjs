#!/usr/bin/env node
// `npm start`: builds the web app (and the live chat widget's page) when it is missing or older than its
// sources, then runs the server. Signals go both ways: SIGINT/SIGTERM to this process stop the server
// (and a build under way), the server's exit ends this process with its code, and the server stops by
// itself when this process dies without a word (killed outright: its IPC channel closes).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const web = path.join(root, 'apps/web');
// The server serves WEB_DIST and the build writes there: resolved here once, and passed to both as is.
const dist = process.env.WEB_DIST ? path.resolve(process.env.WEB_DIST) : path.join(web, 'dist');
// What `npm run build` makes: the app's index.html and the widget's page (vite.config.ts, mode widget).
const outputs = [path.join(dist, 'index.html'), path.join(dist, 'w', 'widget.html')];
const sources = [
  path.join(web, 'src'),
  path.join(web, 'public'),
  path.join(web, 'index.html'),
  path.join(web, 'widget.html'),
  path.join(web, 'vite.config.ts'),
  path.join(web, 'package.json'),
  path.join(root, 'packages/contracts/src'),
];

function newest(p) {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs;
  for (const e of fs.readdirSync(p)) m = Math.max(m, newest(path.join(p, e)));
  return m;
}

const built = Math.min(...outputs.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));

let child = null;
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    if (!child) process.exit(130);
    stopping = true;
    child.kill(sig);
    // The server gives itself 10 s to close; past that it is stopped for good.
    setTimeout(() => child?.kill('SIGKILL'), 15_000).unref();
  });

/** Runs a child to its end; resolves to its exit code (a signal: 128 + its number, as shells say). */
function run(command, args, options) {
  return new Promise((resolve) => {
    child = spawn(command, args, options);
    child.on('error', (err) => {
      process.stderr.write(`${command}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      child = null;
      resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0));
    });
  });
}

if (built < Math.max(...sources.map(newest))) {
  process.stdout.write('Building the web app (first start or changed sources)...\n');
  // The web package's own build script: the same build as `npm run build`, into WEB_DIST when it is set.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const code = await run(npm[0], [...npm.slice(1), 'run', 'build', '--silent', '-w', '@parley/web'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, WEB_DIST: dist },
  });
  if (code !== 0 || stopping) process.exit(code || 130);
}

const code = await run(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    pathToFileURL(path.join(root, 'scripts/exit-with-parent.mjs')).href,
    path.join(root, 'apps/server/src/main.ts'),
    ...process.argv.slice(2),
  ],
  {
    cwd: root,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: process.env.WEB_DIST ? { ...process.env, WEB_DIST: dist } : process.env,
  },
);
process.exit(code);
