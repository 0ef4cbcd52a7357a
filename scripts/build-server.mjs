#!/usr/bin/env node
// `npm run build:server`: compiles the server (apps/server/src/main.ts and cli.ts) into apps/server/dist, so
// that `npm start` runs plain JavaScript instead of compiling TypeScript at every start.
//
// esbuild bundles our own code (the server and @parley/contracts, whose package exports TypeScript) and
// leaves every other package external: node_modules is loaded by Node as usual, and the packages the server
// imports lazily (`await import('redis')`, `createRequire(...)('exceljs')`) stay lazy. Each entry point is
// one file (no shared chunks), so a rebuild never removes a file that a running server may still load.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const server = path.join(root, 'apps/server');
export const serverDist = path.join(server, 'dist');
const entries = ['main', 'cli'];
/** What the build makes: `node apps/server/dist/main.js` runs the server, `.../cli.js` the command line. */
export const serverOutputs = entries.map((e) => path.join(serverDist, `${e}.js`));
/** What the build reads: a change to any of these makes the build stale. */
export const serverSources = [
  path.join(server, 'src'),
  path.join(server, 'package.json'),
  path.join(root, 'packages/contracts/src'),
  path.join(root, 'package-lock.json'),
  path.join(root, 'scripts/build-server.mjs'),
];

/** The newest modification time under `p` (0 when it does not exist). */
export function newest(p) {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs;
  for (const e of fs.readdirSync(p)) m = Math.max(m, newest(path.join(p, e)));
  return m;
}

/** Whether `outputs` are missing or older than any of `sources`. */
export function stale(outputs, sources) {
  const built = Math.min(...outputs.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
  return built < Math.max(...sources.map(newest));
}

/** Bare imports are left to Node, except our own workspace packages (they export TypeScript sources). */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@parley/') || path.isAbsolute(args.path) ? undefined : { external: true },
    );
  },
};

/**
 * Builds into `outdir` (default apps/server/dist). Files are written under a temporary name and renamed,
 * so that a server starting meanwhile reads either the old build or the new one, never half a file.
 */
export async function buildServer({ outdir = serverDist } = {}) {
  // Loaded here: an install without the build tools (npm ci --omit=dev) runs a build made elsewhere.
  const { build, stop } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(entries.map((e) => [e, path.join(server, 'src', `${e}.ts`)])),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [externalPackages],
    tsconfig: path.join(server, 'tsconfig.json'),
    logLevel: 'warning',
    write: false,
  });
  // esbuild's helper process would otherwise live as long as this one (start.mjs: as long as the server).
  await stop();
  fs.mkdirSync(outdir, { recursive: true });
  for (const f of result.outputFiles) {
    const tmp = `${f.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, f.contents);
    fs.renameSync(tmp, f.path);
  }
  return result.outputFiles.map((f) => f.path);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const started = performance.now();
  const files = await buildServer();
  process.stdout.write(
    `Server built in ${Math.round(performance.now() - started)} ms: ${files
      .filter((f) => f.endsWith('.js'))
      .map((f) => path.relative(root, f))
      .join(', ')}\n`,
  );
}
