import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * Read from the build output (`npm run test:e2e` builds first): everything the widget
 * loads on a customer's page (the launcher `widget.js`, then the light visitor page's scripts and styles
 * in its frame) is at most 60 kB gzip.
 */
const dist = path.resolve(import.meta.dirname, '../apps/web/dist');
const gz = (file: string) => zlib.gzipSync(fs.readFileSync(path.join(dist, file))).length;

describe('widget bundle budget', () => {
  it('VISITOR-01 LIVECHAT-01 launcher + light visitor page (HTML, JS, CSS) <= 60 kB gzip, no React in it', () => {
    const html = fs.readFileSync(path.join(dist, 'w/widget.html'), 'utf8');
    // Every script, module preload and style sheet the page names (all under /w/, the light build).
    const files = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => (m[1] ?? '').replace(/^\//, ''));
    const assets = files.filter((f) => /\.(js|css)$/.test(f));
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const f of assets) expect(f.startsWith('w/'), `${f} is outside the light build`).toBe(true);
    const parts = {
      launcher: gz('widget.js'),
      page: gz('w/widget.html'),
      assets: assets.reduce((n, f) => n + gz(f), 0),
    };
    const kb = (parts.launcher + parts.page + parts.assets) / 1024;
    console.log(
      `widget budget: launcher ${(parts.launcher / 1024).toFixed(1)} kB + page ${(parts.page / 1024).toFixed(1)} kB + ${assets.length} scripts and styles ${(parts.assets / 1024).toFixed(1)} kB = ${kb.toFixed(1)} kB gzip (limit 60)`,
    );
    expect(kb).toBeLessThanOrEqual(60);
    for (const f of assets.filter((x) => x.endsWith('.js'))) {
      const js = fs.readFileSync(path.join(dist, f), 'utf8');
      expect(js).not.toMatch(/react\.element|__reactFiber|mantine/i);
    }
  });
});
