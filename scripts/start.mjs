#!/usr/bin/env node
// `npm start`: builds the web app (and the live chat widget's page) and the server (apps/server/dist) when
// either is missing or older than its sources, then runs the compiled server. Signals go both ways:
// SIGINT/SIGTERM to this process stop the server (and a build under way), the server's exit ends this process
// with its code, and the server stops by itself when this process dies without a word (killed outright: its
// IPC channel closes).
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildServer, serverOutputs, serverSources, stale } from './build-server.mjs';

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

if (stale(outputs, sources)) {
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

if (stale(serverOutputs, serverSources)) {
  process.stdout.write('Building the server (first start or changed sources)...\n');
  try {
    await buildServer();
  } catch (err) {
    process.stderr.write(`The server's build failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  if (stopping) process.exit(130);
}

const code = await run(
  process.execPath,
  [
    '--import',
    pathToFileURL(path.join(root, 'scripts/exit-with-parent.mjs')).href,
    serverOutputs[0],
    ...process.argv.slice(2),
  ],
  {
    cwd: root,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: process.env.WEB_DIST ? { ...process.env, WEB_DIST: dist } : process.env,
  },
);
process.exit(code);
