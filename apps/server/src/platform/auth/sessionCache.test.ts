import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../testing/clock.js';
import { createWorkspaceVia, dialects, startTestServer } from '../../testing/support.js';
import { hashToken } from './tokens.js';

/**
 * The session cache of the auth guard (`SESSION_CACHE_MS`): calls in a burst reuse a session resolved a moment
 * ago, every revocation and user change made through this node is seen by the next call, and a change this node
 * did not make (another node's, here a direct write) is seen once the entry's time is up. The server runs on
 * a clock the test moves, so "the time is up" is a step of that clock, not a wait.
 */
describe.each(dialects)('AUTH session cache (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let admin: Awaited<ReturnType<typeof createWorkspaceVia>>;
  const CACHE_MS = 1_500;
  const clock = manualClock();

  beforeAll(async () => {
    server = await startTestServer(dialect, { SESSION_CACHE_MS: String(CACHE_MS) }, { clock });
    admin = await createWorkspaceVia(server.url);
  });
  afterAll(() => server?.stop());

  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
  };
  const newAgent = async (username: string) => {
    const made = await call('POST', '/api/users', admin.token, {
      username,
      name: username,
      password: 'agent password 1',
      type: 'agent',
    });
    expect(made.status).toBe(200);
    const signed = await call('POST', '/api/auth2', undefined, { client: username, password: 'agent password 1' });
    return {
      id: Number(made.body!.id),
      token: String(signed.body!.token),
      refresh: String(signed.body!.refresh_token),
    };
  };
  const me = (token: string) => call('GET', '/api/status/me/get', token);

  it('AUTH-26 a change no call of this node made is seen within the cache time, not before', async () => {
    const a = await newAgent('cache-direct');
    expect((await me(a.token)).status).toBe(200);
    // Another node revokes it (a direct write here): this node keeps the resolved session a moment longer.
    await server.handle.db
      .updateTable('sessions')
      .set({ revoked_at: Date.now() })
      .where('token_hash', '=', hashToken(a.token))
      .execute();
    expect((await me(a.token)).status).toBe(200);
    clock.advance(CACHE_MS + 200);
    expect((await me(a.token)).status).toBe(401);
  });

  it('AUTH-29 signing out ends the token at once, though it was just resolved', async () => {
    const a = await newAgent('cache-signout');
    expect((await me(a.token)).status).toBe(200);
    expect((await call('DELETE', '/api/user/signout', a.token)).status).toBe(200);
    expect((await me(a.token)).status).toBe(401);
  });

  it('a deactivated user and a changed type are seen by the next call', async () => {
    const a = await newAgent('cache-deactivate');
    const b = await newAgent('cache-promote');
    expect((await me(a.token)).status).toBe(200);
    // An agent may not create users; promoted to admin, the next call may.
    expect((await call('GET', '/api/audit', b.token)).status).toBe(403);
    expect((await call('PATCH', `/api/users/${b.id}`, admin.token, { type: 'admin' })).status).toBe(200);
    expect((await call('GET', '/api/audit', b.token)).status).toBe(200);
    expect((await call('PATCH', `/api/users/${a.id}`, admin.token, { active: false })).status).toBe(200);
    expect((await me(a.token)).status).toBe(401);
  });

  it('AUTH-21 a refresh ends the old access token at once', async () => {
    const a = await newAgent('cache-refresh');
    expect((await me(a.token)).status).toBe(200);
    const renewed = await call('POST', '/api/auth/check', undefined, { refresh_token: a.refresh });
    expect(renewed.body?.token).toEqual(expect.any(String));
    expect((await me(a.token)).status).toBe(401);
    expect((await me(String(renewed.body!.token))).status).toBe(200);
  });
});
