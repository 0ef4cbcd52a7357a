import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The web app's layers: `app/` composes features; a feature imports `ui/`, `lib/`, the contracts and
 * itself, never another feature; `lib/` and `ui/` import no feature and nothing of `app/`. What two parts
 * share moves down.
 */
const src = import.meta.dirname;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|tsx)$/.test(e.name) ? [p] : [];
  });
}

/** Every relative import of a file, as a path under `src/` ('features/auth/api', 'lib/http', ...). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    found.push(
      path
        .relative(src, path.resolve(path.dirname(file), m[1] as string))
        .split(path.sep)
        .join('/'),
    );
  }
  return found;
}

const layerOf = (rel: string) => rel.split('/')[0] as string;
const all = sources(src).map((f) => ({ rel: path.relative(src, f).split(path.sep).join('/'), imports: importsOf(f) }));

describe('web app layers', () => {
  it('finds the sources it checks', () => {
    expect(all.length).toBeGreaterThan(50);
    expect(all.some((f) => f.imports.some((i) => i.startsWith('lib/')))).toBe(true);
  });

  it('nothing outside app/ imports app/ (but the entry point that mounts it)', () => {
    const bad = all
      .filter((f) => layerOf(f.rel) !== 'app' && f.rel !== 'main.tsx')
      .flatMap((f) => f.imports.filter((i) => layerOf(i) === 'app').map((i) => `${f.rel} -> ${i}`));
    expect(bad).toEqual([]);
  });

  it('lib/ and ui/ import no feature', () => {
    const bad = all
      .filter((f) => ['lib', 'ui'].includes(layerOf(f.rel)))
      .flatMap((f) => f.imports.filter((i) => layerOf(i) === 'features').map((i) => `${f.rel} -> ${i}`));
    expect(bad).toEqual([]);
  });

  it('a feature imports only ui/, lib/, the contracts and itself (app/ composes features)', () => {
    const featureOf = (rel: string) => (rel.startsWith('features/') ? rel.split('/')[1] : undefined);
    /** What a feature may not import: another feature, app/, or anything else outside ui/ and lib/. */
    const crossings = (files: { rel: string; imports: string[] }[]) =>
      files.flatMap((f) => {
        const own = featureOf(f.rel);
        if (!own) return [];
        return (
          f.imports
            // testing/ holds helpers for tests only (the next check keeps product code from importing them).
            .filter((i) => !['lib', 'ui', 'testing'].includes(layerOf(i)) && featureOf(i) !== own)
            .map((i) => `${f.rel} -> ${i}`)
        );
      });
    // The check itself: a feature reaching into another, through a file or its index, is caught.
    expect(
      crossings([
        { rel: 'features/chat/ChatScreen.tsx', imports: ['features/conversation/ConversationPane', 'lib/http'] },
        { rel: 'features/settings/SettingsPage.tsx', imports: ['features/replies', 'features/settings/strings'] },
      ]),
    ).toEqual([
      'features/chat/ChatScreen.tsx -> features/conversation/ConversationPane',
      'features/settings/SettingsPage.tsx -> features/replies',
    ]);
    const features = all.filter((f) => featureOf(f.rel));
    expect(new Set(features.map((f) => featureOf(f.rel))).size).toBeGreaterThan(10);
    expect(crossings(all)).toEqual([]);
  });

  it('test-only helpers are named *.test-support and only tests import them', () => {
    const isTest = (rel: string) => /\.test\.tsx?$/.test(rel) || /\.test-support\.tsx?$/.test(rel);
    expect(all.filter((f) => /(^|\/)test[A-Z][^/]*\.tsx?$/.test(f.rel)).map((f) => f.rel)).toEqual([]);
    const bad = all
      .filter((f) => !isTest(f.rel))
      .flatMap((f) => f.imports.filter((i) => i.endsWith('.test-support')).map((i) => `${f.rel} -> ${i}`));
    expect(bad).toEqual([]);
  });

  it('dates are shown only through lib/dates (one format per place, docs/decisions.md 1)', () => {
    const formatsItself =
      /\.toLocale(Date|Time)?String\(|Intl\.DateTimeFormat\([^)]*\)\.format|\.getDate\(\)\s*\)\.padStart/;
    const offenders = sources(src)
      .map((f) => path.relative(src, f).split(path.sep).join('/'))
      .filter((rel) => rel !== 'lib/dates.ts' && !/\.test\.tsx?$/.test(rel))
      .filter((rel) => formatsItself.test(fs.readFileSync(path.join(src, rel), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
