import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

const api = `http://127.0.0.1:${process.env.PORT ?? 3000}`;
// Where the server serves the build from (WEB_DIST, as the server resolves it: from the directory it runs
// in, which for npm scripts is the repository's root); by default apps/web/dist.
const outDir = process.env.WEB_DIST ? resolve(process.env.INIT_CWD ?? process.cwd(), process.env.WEB_DIST) : 'dist';

export default defineConfig(({ mode }) =>
  // The widget's light visitor page (`vite build --mode widget`) is a build of its own, no React,
  // served at /w/livechat/:token; it shares no chunk with the web app, so its budget is its own.
  mode === 'widget'
    ? {
        base: '/w/',
        publicDir: false,
        build: {
          outDir: join(outDir, 'w'),
          emptyOutDir: true,
          manifest: true,
          rolldownOptions: { input: 'widget.html' },
        },
      }
    : {
        plugins: [react()],
        define: { __APP_VERSION__: JSON.stringify(version) },
        server: {
          port: 5173,
          proxy: {
            '/api': api,
            '/healthz': api,
            '/socket.io': { target: api, ws: true },
          },
        },
        build: { outDir, emptyOutDir: true, manifest: true, chunkSizeWarningLimit: 1500 },
      },
);
