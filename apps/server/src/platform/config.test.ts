import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigSchema, loadConfig } from './config.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../../..');

describe('FOUNDATION configuration', () => {
  it('defaults every setting when the environment is empty', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.HOST).toBe('0.0.0.0');
    expect(c.DATA_DIR).toBe(path.resolve('./data'));
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.BODY_LIMIT_BYTES).toBe(1_048_576);
    expect(c.HOST_VARIANTS).toEqual({});
  });

  it('treats empty values (as in .env.example) as unset', () => {
    const c = loadConfig({ DATABASE_URL: '', REDIS_URL: '', WEB_DIST: '', NODE_ID: '', HOST_VARIANTS: '' });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.WEB_DIST.endsWith(path.join('apps', 'web', 'dist'))).toBe(true);
  });

  it('HOST-04 parses the host-to-variant map', () => {
    const c = loadConfig({ HOST_VARIANTS: 'help.example.com=support, Trade.example.com=trading' });
    expect(c.HOST_VARIANTS).toEqual({ 'help.example.com': 'support', 'trade.example.com': 'trading' });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x@y/z'],
    ['REDIS_URL', 'not a url'],
    ['LOG_LEVEL', 'loud'],
    ['HOST_VARIANTS', 'example.com=shop'],
    ['RELAY_BATCH', '0'],
  ])('a bad %s (%s) is one error naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
  });

  it('a bad value stops start-up with one line on stderr and exit code 1', async () => {
    const err = await run(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: 'eighty' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    const lines = (err as { stderr: string }).stderr.trim().split('\n');
    expect(lines).toEqual(['Invalid configuration: PORT must be a whole number from 0 to 65535']);
  });
});

describe('FOUNDATION the documented settings are the settings', () => {
  const keys = Object.keys(ConfigSchema.shape).sort();
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Operations'));

  it("the README's configuration table lists every setting of the schema, and nothing else", () => {
    expect(keys.length).toBeGreaterThan(20);
    const documented = [...table.matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(keys);
  });

  it('.env.example lists every setting of the schema, and nothing else', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    const listed = [...example.matchAll(/^#?\s*([A-Z0-9_]+)=/gm)].map((m) => m[1]).sort();
    expect([...new Set(listed)]).toEqual(keys);
  });
});
