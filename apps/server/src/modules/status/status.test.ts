import { rooms, SHADOW_ADMIN } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('agent status over HTTP (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  const setStatus = (token: string, body: unknown) => call('POST', '/api/online_status/update', { token, body });
  const userRow = (id: number) =>
    db()
      .selectFrom('users')
      .select(['status', 'second_status', 'status_reason', 'status_since', 'last_seen_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const periods = (userId: number) =>
    db()
      .selectFrom('status_periods')
      .select(['account_id', 'status', 'reason', 'started_at', 'ended_at'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  const events = (accountId: number) =>
    db()
      .selectFrom('events')
      .select(['type', 'payload', 'socket_event', 'rooms'])
      .where('account_id', '=', accountId)
      .orderBy('seq')
      .execute();
  /** Everything a status change could touch, to prove a refused one touched nothing. */
  const snapshot = async (accountId: number, userId: number) => ({
    user: await userRow(userId),
    periods: await periods(userId),
    events: (await events(accountId)).length,
  });
  const account = async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent' });
    return { admin, agent };
  };

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('RT-37 STATUS-10 STATUS-11 STATUS-03 STATUS-06 AWAY with reason sets second_status and records a period', async () => {
    const { admin, agent } = await account();
    expect((await userRow(agent.id)).status).toBe('OFFLINE');

    const away = await setStatus(agent.token, { status: 'AWAY', reason: 'Dentist' });
    expect(away.status, away.text).toBe(200);
    expect(away.body).toEqual({
      result: 'success',
      data: {
        userId: agent.id,
        username: agent.username,
        status: 'ONLINE',
        second_status: 'AWAY',
        reason: 'Dentist',
        since: expect.any(Number),
      },
    });
    const u = await userRow(agent.id);
    expect(u).toMatchObject({ status: 'ONLINE', second_status: 'AWAY', status_reason: 'Dentist' });
    expect(Number(u.status_since)).toBe(away.body.data.since);
    const [p1] = await periods(agent.id);
    expect(p1).toMatchObject({ account_id: admin.accountId, status: 'AWAY', reason: 'Dentist', ended_at: null });

    // The event reaches the whole account under the spec's socket name.
    const ev = (await events(admin.accountId)).filter((e) => e.type === 'status.updated').at(-1)!;
    expect(ev.socket_event).toBe('statusUpdated');
    expect(JSON.parse(ev.rooms)).toEqual([rooms.account(admin.accountId)]);
    expect(JSON.parse(ev.payload)).toEqual(away.body.data);

    const busy = await setStatus(agent.token, { status: 'BUSY', reason: 'Call with a customer' });
    expect(busy.body.data).toMatchObject({ status: 'ONLINE', second_status: 'BUSY', reason: 'Call with a customer' });
    const meal = await setStatus(agent.token, { status: 'MEAL_BREAK' });
    expect(meal.body.data).toMatchObject({ second_status: 'MEAL_BREAK', reason: '' });
    // Online clears the choice and its reason.
    const online = await setStatus(agent.token, { status: 'ONLINE', reason: 'ignored' });
    expect(online.body.data).toMatchObject({ status: 'ONLINE', second_status: '', reason: '' });
    expect(await userRow(agent.id)).toMatchObject({ status: 'ONLINE', second_status: '', status_reason: '' });

    const all = await periods(agent.id);
    expect(all.map((p) => [p.status, p.reason])).toEqual([
      ['AWAY', 'Dentist'],
      ['BUSY', 'Call with a customer'],
      ['MEAL_BREAK', ''],
      ['ONLINE', ''],
    ]);
    // Each period ends when the next one starts; only the last is open.
    for (let i = 0; i < all.length - 1; i++) expect(Number(all[i]!.ended_at)).toBe(Number(all[i + 1]!.started_at));
    expect(all.at(-1)!.ended_at).toBeNull();
    expect(all.at(-1)!.started_at).toBe(online.body.data.since);
  });

  it('STATUS-08 choosing the same status and reason again succeeds and opens no new period', async () => {
    const { admin, agent } = await account();
    const first = await setStatus(agent.token, { status: 'WASHROOM', reason: '' });
    expect(first.status).toBe(200);
    const before = await snapshot(admin.accountId, agent.id);
    const again = await setStatus(agent.token, { status: 'WASHROOM' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(await snapshot(admin.accountId, agent.id)).toEqual(before);

    // A new reason for the same status is a change: a new period with it.
    const prayer = await setStatus(agent.token, { status: 'PRAYER', reason: 'Asr' });
    const reworded = await setStatus(agent.token, { status: 'PRAYER', reason: 'Maghrib' });
    expect(reworded.body.data.since).toBeGreaterThanOrEqual(prayer.body.data.since);
    expect((await periods(agent.id)).slice(-2).map((p) => [p.status, p.reason, p.ended_at === null])).toEqual([
      ['PRAYER', 'Asr', false],
      ['PRAYER', 'Maghrib', true],
    ]);
  });

  it('STATUS-09 STATUS-10 every refused status answers 400 in the standard shape and changes nothing', async () => {
    const { admin, agent } = await account();
    const other = await signUpVia(call);
    const made = await call('POST', '/api/customstatus', {
      token: admin.token,
      body: { name: 'Training', needs_reason: true },
    });
    expect(made.status).toBe(200);
    // Only in the other account: its name means nothing here.
    expect((await call('POST', '/api/customstatus', { token: other.token, body: { name: 'Elsewhere' } })).status).toBe(
      200,
    );
    await setStatus(agent.token, { status: 'AWAY', reason: 'Before' });
    const before = await snapshot(admin.accountId, agent.id);

    const refused: [string, unknown][] = [
      ['no body', undefined],
      ['no status', { reason: 'x' }],
      ['empty status', { status: '' }],
      ['blank status', { status: '   ' }],
      ['status not a string', { status: 5 }],
      ['status too long', { status: 'X'.repeat(41) }],
      ['reason too long', { status: 'WASHROOM', reason: 'r'.repeat(201) }],
      ['reason not a string', { status: 'WASHROOM', reason: 42 }],
      ['AWAY without reason', { status: 'AWAY' }],
      ['BUSY with a blank reason', { status: 'BUSY', reason: '   ' }],
      ['unknown status', { status: 'VACATION' }],
      ['OFFLINE is not a choice', { status: 'OFFLINE' }],
      ['lower-case built-in', { status: 'away', reason: 'x' }],
      ['custom status needing a reason, without one', { status: 'Training' }],
      ["another account's custom status", { status: 'Elsewhere' }],
    ];
    for (const [what, body] of refused) {
      const r = await call('POST', '/api/online_status/update', {
        token: agent.token,
        ...(body === undefined ? {} : { body }),
      });
      expect(r.status, `${what}: ${r.text}`).toBe(400);
      expect(r.body, what).toMatchObject({ result: 'failed', code: 'VALIDATION_FAILED' });
      expect(typeof r.body.description, what).toBe('string');
      expect(r.body.description.length, what).toBeGreaterThan(0);
    }
    expect(await snapshot(admin.accountId, agent.id)).toEqual(before);
    expect((await setStatus(agent.token, { status: 'AWAY' })).body.description).toBe(
      'A reason is required for Away and Busy.',
    );
    expect((await setStatus(agent.token, { status: 'Training' })).body.description).toBe(
      'A reason is required for Training.',
    );
    // Signed out: 401, nothing changes either.
    const anon = await call('POST', '/api/online_status/update', { body: { status: 'ONLINE' } });
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ result: 'failed', code: 'UNAUTHORIZED' });
    expect(await snapshot(admin.accountId, agent.id)).toEqual(before);
  });

  it('STATUS-17 STATUS-18 an admin manages custom statuses; agents list and choose them', async () => {
    const { admin, agent } = await account();
    const other = await signUpVia(call);
    const list = async (token: string) => {
      const r = await call('GET', '/api/customstatus/get', { token });
      expect(r.status).toBe(200);
      expect(r.body.result).toBe('success');
      return r.body.data as { id: number; name: string; needs_reason: boolean }[];
    };
    expect(await list(agent.token)).toEqual([]);

    const training = await call('POST', '/api/customstatus', {
      token: admin.token,
      body: { name: '  Training ', needs_reason: true },
    });
    expect(training.status, training.text).toBe(200);
    expect(training.body).toEqual({
      result: 'success',
      data: { id: expect.any(Number), name: 'Training', needs_reason: true },
    });
    const lunch = await call('POST', '/api/customstatus', { token: admin.token, body: { name: 'Lunch outside' } });
    expect(lunch.body.data).toMatchObject({ name: 'Lunch outside', needs_reason: false });
    expect(await list(agent.token)).toEqual([lunch.body.data, training.body.data]);
    // Another account sees none of them, and may use the same names.
    expect(await list(other.token)).toEqual([]);
    expect((await call('POST', '/api/customstatus', { token: other.token, body: { name: 'Training' } })).status).toBe(
      200,
    );

    // Duplicates (whatever the case) are a clear 409; built-in names and bad input 400; agents 403.
    const dup = await call('POST', '/api/customstatus', { token: admin.token, body: { name: 'TRAINING' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      result: 'failed',
      code: 'CONFLICT',
      description: 'A custom status with that name already exists.',
    });
    for (const body of [{ name: 'Meal break' }, { name: 'offline' }, { name: '' }, { name: 'x'.repeat(41) }, {}]) {
      const r = await call('POST', '/api/customstatus', { token: admin.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe('VALIDATION_FAILED');
    }
    const byAgent = await call('POST', '/api/customstatus', { token: agent.token, body: { name: 'Mine' } });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body).toMatchObject({ result: 'failed', code: 'FORBIDDEN' });
    expect((await list(admin.token)).map((c) => c.name)).toEqual(['Lunch outside', 'Training']);

    // Choosing one: by name, any case; the stored name is the account's spelling.
    const chosen = await setStatus(agent.token, { status: 'training', reason: 'Product course' });
    expect(chosen.status, chosen.text).toBe(200);
    expect(chosen.body.data).toMatchObject({ status: 'ONLINE', second_status: 'Training', reason: 'Product course' });
    expect((await setStatus(agent.token, { status: 'Lunch outside' })).body.data).toMatchObject({
      second_status: 'Lunch outside',
      reason: '',
    });
    expect((await periods(agent.id)).slice(-2).map((p) => [p.status, p.reason])).toEqual([
      ['Training', 'Product course'],
      ['Lunch outside', ''],
    ]);

    // Deleting: agents may not, another account's admin finds nothing, the owner's admin removes it.
    const id = lunch.body.data.id;
    expect((await call('DELETE', `/api/customstatus/${id}`, { token: agent.token })).status).toBe(403);
    const foreign = await call('DELETE', `/api/customstatus/${id}`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ result: 'failed', code: 'NOT_FOUND' });
    expect((await call('DELETE', '/api/customstatus/abc', { token: admin.token })).status).toBe(400);
    const del = await call('DELETE', `/api/customstatus/${id}`, { token: admin.token });
    expect(del.status, del.text).toBe(200);
    expect(del.body).toEqual({ result: 'success' });
    expect((await call('DELETE', `/api/customstatus/${id}`, { token: admin.token })).status).toBe(404);
    expect((await list(agent.token)).map((c) => c.name)).toEqual(['Training']);
    // The agent keeps it until choosing another; it can no longer be chosen anew.
    expect((await userRow(agent.id)).second_status).toBe('Lunch outside');
    expect((await setStatus(agent.token, { status: 'ONLINE' })).status).toBe(200);
    expect((await setStatus(agent.token, { status: 'Lunch outside' })).status).toBe(400);

    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'actor', 'detail'])
      .where('account_id', '=', admin.accountId)
      .where('action', 'like', 'status.%')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => [a.action, a.actor, JSON.parse(a.detail).name])).toEqual([
      ['status.custom_created', admin.username, 'Training'],
      ['status.custom_created', admin.username, 'Lunch outside'],
      ['status.custom_deleted', admin.username, 'Lunch outside'],
    ]);
  });

  it('STATUS-12 STATUS-13 STATUS-23 STATUS-21 STATUS-05 me/get and /status/get are scoped to the account', async () => {
    const { admin, agent } = await account();
    const shadow = await addUserVia(call, admin.token, { username: SHADOW_ADMIN, type: 'admin', name: 'Shadow' });
    const gone = await addUserVia(call, admin.token, { username: `gone-${uniq()}`, type: 'agent' });
    expect((await call('PATCH', `/api/users/${gone.id}`, { token: admin.token, body: { active: false } })).status).toBe(
      200,
    );
    const b = await account();
    await setStatus(agent.token, { status: 'BUSY', reason: 'Queue' });

    const online = await call('GET', '/status/get', { token: agent.token });
    expect(online.status, online.text).toBe(200);
    expect(online.body.result).toBe('success');
    const rows = online.body.data as { userId: number; username: string; client_id: number }[];
    expect(rows.map((r) => r.userId).sort((x, y) => x - y)).toEqual([admin.userId, agent.id].sort((x, y) => x - y));
    expect(rows.every((r) => r.client_id === admin.accountId)).toBe(true);
    expect(rows.find((r) => r.userId === agent.id)).toEqual({
      userId: agent.id,
      username: agent.username,
      name: agent.username,
      photo: null,
      status: 'ONLINE',
      second_status: 'BUSY',
      reason: 'Queue',
      ts: expect.any(Number),
      last_seen: null,
      client_id: admin.accountId,
    });
    expect(rows.find((r) => r.userId === admin.userId)).toMatchObject({ status: 'OFFLINE', second_status: '' });
    expect(online.text).not.toContain(b.admin.username);
    expect(online.text).not.toContain(b.agent.username);
    expect(online.text).not.toContain(SHADOW_ADMIN);

    // The other account sees only its own people.
    const bList = await call('GET', '/status/get', { token: b.agent.token });
    expect(bList.body.data.map((r: { userId: number }) => r.userId).sort((x: number, y: number) => x - y)).toEqual(
      [b.admin.userId, b.agent.id].sort((x, y) => x - y),
    );

    // me/get: my own row only, as a list of one (shadow_admin too sees itself).
    const me = await call('GET', '/api/status/me/get', { token: agent.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ result: 'success', data: [rows.find((r) => r.userId === agent.id)] });
    const shadowMe = await call('GET', '/api/status/me/get', { token: shadow.token });
    expect(shadowMe.body.data.map((r: { username: string }) => r.username)).toEqual([SHADOW_ADMIN]);

    // The token alone is enough: header, cookie-less query parameter.
    expect((await call('GET', `/status/get?token=${agent.token}`)).body.data).toHaveLength(2);
    // Signed out: the standard 401 JSON, not the web app.
    for (const path of ['/status/get', '/api/status/me/get', '/api/customstatus/get']) {
      const anon = await call('GET', path);
      expect(anon.status, path).toBe(401);
      expect(anon.body, path).toMatchObject({ result: 'failed', code: 'UNAUTHORIZED' });
    }
    const unknown = await call('GET', '/status/nope', { token: agent.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ result: 'failed', code: 'NOT_FOUND' });
    expect(s.app.routeTable).toContainEqual({ method: 'GET', url: '/status/get', auth: 'user' });
  });
});
