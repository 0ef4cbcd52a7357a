import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { inject } from 'vitest';
import { createParley, type Parley } from '../app.js';
import type { Clock } from '../platform/clock.js';
import { type Config, loadConfig } from '../platform/config.js';
import type { Dialect } from '../platform/db/db.js';

/** The dialects this run can test: SQLite always, Postgres when TEST_DATABASE_URL is set (CI sets it). */
export const dialects: Dialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
export const redisUrl = process.env.TEST_REDIS_URL;

export const tempDir = (prefix = 'parley-test-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/**
 * A new Postgres database on the TEST_DATABASE_URL server; `drop()` removes it. Empty, or with `migrated` a
 * copy of the run's migrated template (testing/globalSetup.ts), which is much faster than migrating.
 */
export async function freshPostgres(
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `parley_t_${randomBytes(6).toString('hex')}`;
  const template = opts.migrated ? inject('postgresTemplate') : undefined;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  // A test database outlives no crash of Postgres itself: commits need not wait for the WAL to reach the disk.
  u.searchParams.set('options', '-c synchronous_commit=off');
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * A fresh database of the given dialect: a temp SQLite dir or a new Postgres database; empty, or with
 * `migrated` already carrying every migration (copied from the run's template).
 */
export async function freshDatabase(
  dialect: Dialect,
  opts: { migrated?: boolean } = {},
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (dialect === 'postgres') {
    const p = await freshPostgres(opts);
    return { env: { DATABASE_URL: p.url, DATA_DIR: tempDir() }, drop: p.drop };
  }
  const dir = tempDir();
  const template = opts.migrated ? inject('sqliteTemplate') : undefined;
  if (template) fs.copyFileSync(template, path.join(dir, 'parley.db'));
  return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  // Tests change sessions and users straight in the database and expect the next call to see it: no session
  // cache unless a test asks for one (sessionCache.test.ts does).
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RELAY_POLL_MS: '20',
    SESSION_CACHE_MS: '0',
    // Tests sign up and ask for resets many times from 127.0.0.1; the tests of these limits set their own.
    SIGNUP_LIMIT_PER_IP: '100000',
    RESET_LIMIT_PER_IP: '100000',
    // A test's stop waits for requests still under way (a body not read to the end) no longer than this.
    SHUTDOWN_GRACE_MS: '3000',
    ...env,
  });
}

/** A running server on a random port over a fresh database; `stop()` closes it and drops the data. */
export async function startTestServer(
  dialect: Dialect,
  env: Record<string, string | undefined> = {},
  opts: { logger?: pino.Logger; clock?: Clock } = {},
): Promise<Parley & { url: string; stop(): Promise<void> }> {
  const fresh = await freshDatabase(dialect, { migrated: true });
  const parley = await createParley(testConfig({ ...fresh.env, ...env }), {
    logger: opts.logger ?? pino({ level: 'silent' }),
    clock: opts.clock,
  });
  const port = await parley.listen();
  return Object.assign(parley, {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await parley.close();
      await fresh.drop();
    },
  });
}

/** Creates the first workspace through the API and returns the admin's token. */
export async function createWorkspaceVia(url: string, suffix = randomBytes(3).toString('hex')) {
  const body = {
    company: `Acme ${suffix}`,
    name: 'Ann Admin',
    username: `ann-${suffix}`,
    email: `ann-${suffix}@example.com`,
    password: 'correct horse battery',
  };
  const res = await fetch(`${url}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { token: string; refresh_token: string };
  if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${JSON.stringify(json)}`);
  return { ...body, token: json.token, refreshToken: json.refresh_token };
}
