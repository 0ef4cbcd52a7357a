import { SIGNIN_MAX_FAILURES, TOO_MANY_ATTEMPTS } from '@parley/contracts';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createParley } from '../../app.js';
import type { DB } from '../../platform/db/db.js';
import { type Answer, apiClient, type Call, signInVia } from '../../testing/api.js';
import {
  createWorkspaceVia,
  dialects,
  freshPostgres,
  startTestServer,
  tempDir,
  testConfig,
} from '../../testing/support.js';

/**
 * `wrong` bad guesses at once, spread over the given clients (nodes), and the right password while they are
 * still in flight: it goes as soon as the first refusal of the burst is back (or, failing one, once every
 * guess has its answer). From that refusal on, the window is full of wrong guesses.
 */
async function burst(calls: Call[], username: string, password: string, wrong: number) {
  let full!: () => void;
  const refusedOnce = new Promise<void>((resolve) => {
    full = resolve;
  });
  const guesses = Array.from({ length: wrong }, (_, i) =>
    signInVia(calls[i % calls.length]!, username, `wrong guess ${i}`).then((a) => {
      if (a.status === 429) full();
      return a;
    }),
  );
  await Promise.race([refusedOnce, Promise.all(guesses)]);
  const right = await signInVia(calls[wrong % calls.length]!, username, password);
  const answers: Answer[] = await Promise.all(guesses);
  const statuses = answers.map((a) => a.status);
  return {
    right,
    checked: statuses.filter((s) => s === 401).length,
    refused: answers.filter((a) => a.status === 429 && a.body.description === TOO_MANY_ATTEMPTS).length,
  };
}

async function checkedRows(db: DB) {
  const attempts = await db.selectFrom('login_attempts').select(['success']).execute();
  const audit = await db.selectFrom('audit_log').select('action').where('action', 'like', 'signin.%').execute();
  return {
    attempts: attempts.length,
    failed: audit.filter((a) => a.action === 'signin.failed').length,
    succeeded: audit.filter((a) => a.action === 'signin.succeeded').length,
  };
}

describe.each(dialects)('sign-in throttle under parallel guesses (%s)', (dialect) => {
  it.each([
    40, 60,
  ])('AUTH-07 %i wrong passwords at once: no more than 10 are checked, and the right one in the burst is refused', async (wrong) => {
    const t = await startTestServer(dialect);
    try {
      const a = await createWorkspaceVia(t.url);
      const r = await burst([apiClient(t.url)], a.username, a.password, wrong);
      expect(r.checked).toBe(SIGNIN_MAX_FAILURES);
      expect(r.refused).toBe(wrong - SIGNIN_MAX_FAILURES);
      expect(r.right.status).toBe(429);
      expect(r.right.body).toEqual({ result: 'failed', description: TOO_MANY_ATTEMPTS });
      expect(r.right.cookies).toEqual({});
      // Counted via the rows as well: one attempt row and one failed audit entry per checked guess.
      expect(await checkedRows(t.handle.db)).toEqual({
        attempts: SIGNIN_MAX_FAILURES,
        failed: SIGNIN_MAX_FAILURES,
        succeeded: 0,
      });
    } finally {
      await t.stop();
    }
  }, 60_000);
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('sign-in throttle across two nodes over one Postgres', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('AUTH-07 60 wrong passwords spread over two nodes: no more than 10 are checked; the right one is refused', async () => {
    const pg = await freshPostgres();
    cleanup.push(pg.drop);
    const nodes = [];
    for (const name of ['throttle-a', 'throttle-b']) {
      const p = await createParley(testConfig({ DATABASE_URL: pg.url, DATA_DIR: tempDir(), NODE_ID: name }), {
        logger: pino({ level: 'silent' }),
      });
      cleanup.push(() => p.close());
      nodes.push({ p, url: `http://127.0.0.1:${await p.listen()}` });
    }
    const a = await createWorkspaceVia(nodes[0]!.url);
    const r = await burst(
      nodes.map((n) => apiClient(n.url)),
      a.username,
      a.password,
      60,
    );
    expect(r.checked).toBe(SIGNIN_MAX_FAILURES);
    expect(r.refused).toBe(60 - SIGNIN_MAX_FAILURES);
    expect(r.right.status).toBe(429);
    expect(r.right.body.description).toBe(TOO_MANY_ATTEMPTS);
    expect(await checkedRows(nodes[0]!.p.handle.db)).toEqual({
      attempts: SIGNIN_MAX_FAILURES,
      failed: SIGNIN_MAX_FAILURES,
      succeeded: 0,
    });
  }, 60_000);
});
