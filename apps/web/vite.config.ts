import { readFileSync } from 'node:fs';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

const api = `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig(({ mode }) =>
  // Issue 7: the widget's light visitor page (`vite build --mode widget`) is a build of its own, no React,
  // served at /w/livechat/:token; it shares no chunk with the web app, so its budget is its own.
  mode === 'widget'
    ? {
        base: '/w/',
        publicDir: false,
        build: {
          outDir: 'dist/w',
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
        build: { outDir: 'dist', emptyOutDir: true, manifest: true, chunkSizeWarningLimit: 1500 },
      },
);
