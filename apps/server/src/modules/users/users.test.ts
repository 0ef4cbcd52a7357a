import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { BAD_CREDENTIALS } from '../auth/commands/signIn.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('users admin (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  const check = (token: string) => call('POST', '/api/auth/check', { token });
  const addDepartment = async (accountId: number) =>
    Number(
      (
        await db()
          .insertInto('departments')
          .values({ account_id: accountId, name: `Dept ${uniq()}`, created_at: Date.now() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('an admin creates admins, supervisors and agents; a supervisor reads reports by default', async () => {
    const a = await signUpVia(call);
    const made: Record<string, { id: number; username: string }> = {};
    for (const type of ['admin', 'supervisor', 'agent'] as const) {
      const username = `${type}-${uniq()}`;
      const r = await call('POST', '/api/users', {
        token: a.token,
        body: { username, name: `The ${type}`, email: `${username}@example.com`, password: 'user password 1', type },
      });
      expect(r.status, type).toBe(200);
      expect(r.body).toMatchObject({
        username,
        name: `The ${type}`,
        email: `${username}@example.com`,
        type,
        rank: 0,
        permission: type === 'supervisor' ? ['view_report'] : [],
        departments: [],
        active: true,
        tfa_enabled: false,
      });
      made[type] = r.body;
      const signedIn = await signInVia(call, username, 'user password 1');
      expect(signedIn.status).toBe(200);
      expect((await check(signedIn.body.token)).body).toMatchObject({ type, accountId: a.accountId });
    }
    // An explicit empty list is kept: the default applies only when none is given.
    const plain = await call('POST', '/api/users', {
      token: a.token,
      body: {
        username: `sup-${uniq()}`,
        name: 'Plain',
        password: 'user password 1',
        type: 'supervisor',
        permission: [],
      },
    });
    expect(plain.body.permission).toEqual([]);

    const list = await call('GET', '/api/users', { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: { username: string }) => u.username).sort()).toEqual(
      [a.username, made.admin!.username, made.supervisor!.username, made.agent!.username, plain.body.username].sort(),
    );
    expect(list.text).not.toMatch(/argon2|password_hash|totp_secret|backup_codes/);
    const one = await call('GET', `/api/users/${made.agent!.id}`, { token: a.token });
    expect(one.body).toEqual(made.agent);
    expect((await call('GET', '/api/users/999999', { token: a.token })).status).toBe(404);
  });

  it('a username is taken in any case, in any account', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const mine = await addUserVia(call, a.token, { username: `Sam.Smith-${uniq()}`, type: 'agent' });
    const count = async () => (await db().selectFrom('users').select('id').execute()).length;
    const before = await count();
    for (const username of [mine.username.toLowerCase(), mine.username.toUpperCase(), b.username]) {
      const r = await call('POST', '/api/users', {
        token: a.token,
        body: { username, name: 'Dup', password: 'user password 1', type: 'agent' },
      });
      expect(r.status, username).toBe(409);
      expect(r.body.code).toBe('CONFLICT');
    }
    expect(await count()).toBe(before);
  });

  it('the same username sent twice at the same moment makes one user and one 409', async () => {
    const a = await signUpVia(call);
    const name = `Twin-${uniq()}`;
    const answers = await Promise.all(
      [name, name.toLowerCase(), name.toUpperCase()].map((username) =>
        call('POST', '/api/users', {
          token: a.token,
          body: { username, name: 'Twin', password: 'user password 1', type: 'agent' },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const rows = await db()
      .selectFrom('users')
      .select('username')
      .where(sql`lower(username)`, '=', name.toLowerCase())
      .execute();
    expect(rows).toHaveLength(1);
  });

  it("a user's departments must be the account's own", async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const mine = await addDepartment(a.accountId);
    const theirs = await addDepartment(b.accountId);
    const create = (departments: number[]) =>
      call('POST', '/api/users', {
        token: a.token,
        body: { username: `dep-${uniq()}`, name: 'Dee', password: 'user password 1', type: 'agent', departments },
      });
    const before = (await db().selectFrom('users').select('id').execute()).length;
    for (const bad of [[theirs], [999_999], [mine, theirs]]) {
      const r = await create(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.description).toBe('Unknown department.');
    }
    expect((await db().selectFrom('users').select('id').execute()).length).toBe(before);
    const ok = await create([mine]);
    expect(ok.status).toBe(200);
    expect(ok.body.departments).toEqual([mine]);
    const edit = await call('PATCH', `/api/users/${ok.body.id}`, { token: a.token, body: { departments: [theirs] } });
    expect(edit.status).toBe(400);
    expect((await call('GET', `/api/users/${ok.body.id}`, { token: a.token })).body.departments).toEqual([mine]);
  });

  it('an admin edits type, rank, permissions and departments; the user sees them at once', async () => {
    const a = await signUpVia(call);
    const u = await addUserVia(call, a.token, { username: `ed-${uniq()}`, type: 'agent' });
    const dept = await addDepartment(a.accountId);
    const r = await call('PATCH', `/api/users/${u.id}`, {
      token: a.token,
      body: { type: 'supervisor', rank: 5, permission: ['view_report', 'hide_call'], departments: [dept], name: 'Ed' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: u.id,
      type: 'supervisor',
      rank: 5,
      permission: ['view_report', 'hide_call'],
      departments: [dept],
      name: 'Ed',
      active: true,
    });
    expect((await check(u.token)).body).toMatchObject({
      type: 'supervisor',
      rank: 5,
      permission: ['view_report', 'hide_call'],
      adminName: 'Ed',
    });

    const refused: [unknown, number][] = [
      [{}, 400],
      [{ rank: -1 }, 400],
      [{ type: 'root' }, 400],
      [{ permission: ['everything'] }, 400],
      [[], 400],
    ];
    for (const [body, status] of refused) {
      const x = await call('PATCH', `/api/users/${u.id}`, { token: a.token, body });
      expect(x.status, JSON.stringify(body)).toBe(status);
    }
    expect((await call('PATCH', '/api/users/999999', { token: a.token, body: { rank: 1 } })).status).toBe(404);
    const actions = (
      await db().selectFrom('audit_log').select('action').where('account_id', '=', a.accountId).execute()
    ).map((x) => x.action);
    expect(actions).toEqual(expect.arrayContaining(['user.created', 'user.updated']));
  });

  it("deactivating a user ends the user's sessions at once and refuses sign-in", async () => {
    const a = await signUpVia(call);
    const u = await addUserVia(call, a.token, { username: `off-${uniq()}`, type: 'agent' });
    const second = await signInVia(call, u.username, u.password);
    expect((await check(second.body.token)).body.result).toBe('success');

    const off = await call('PATCH', `/api/users/${u.id}`, { token: a.token, body: { active: false } });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    for (const token of [u.token, second.body.token]) {
      expect((await check(token)).body.result).toBe('failed');
      expect((await call('GET', '/api/user/sessions', { token })).status).toBe(401);
    }
    const live = await db()
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', u.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).toEqual([]);

    const refused = await signInVia(call, u.username, u.password);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ result: 'failed', description: 'This user has been deactivated.' });
    // Without the right password nothing tells the user is deactivated.
    expect((await signInVia(call, u.username, 'not it')).body.description).toBe(BAD_CREDENTIALS);

    expect((await call('PATCH', `/api/users/${u.id}`, { token: a.token, body: { active: true } })).status).toBe(200);
    expect((await signInVia(call, u.username, u.password)).status).toBe(200);
    expect((await check(u.token)).body.result).toBe('failed');
  });

  it('the last active admin can be neither deactivated nor demoted', async () => {
    const a = await signUpVia(call);
    for (const body of [{ active: false }, { type: 'agent' }, { type: 'supervisor', active: false }]) {
      const r = await call('PATCH', `/api/users/${a.userId}`, { token: a.token, body });
      expect(r.status, JSON.stringify(body)).toBe(409);
      expect(r.body.code).toBe('LAST_ADMIN');
    }
    expect((await call('GET', `/api/users/${a.userId}`, { token: a.token })).body).toMatchObject({
      type: 'admin',
      active: true,
    });
    expect((await check(a.token)).body.result).toBe('success');

    const second = await addUserVia(call, a.token, { username: `adm-${uniq()}`, type: 'admin' });
    // With two admins one may go; the demotion takes effect on the next request.
    const demoted = await call('PATCH', `/api/users/${second.id}`, { token: a.token, body: { type: 'agent' } });
    expect(demoted.status).toBe(200);
    expect((await call('GET', '/api/users', { token: second.token })).status).toBe(403);
    expect((await call('PATCH', `/api/users/${a.userId}`, { token: a.token, body: { type: 'agent' } })).status).toBe(
      409,
    );

    // An inactive admin does not count as the other admin.
    await call('PATCH', `/api/users/${second.id}`, { token: a.token, body: { type: 'admin' } });
    expect((await call('PATCH', `/api/users/${second.id}`, { token: a.token, body: { active: false } })).status).toBe(
      200,
    );
    expect((await call('PATCH', `/api/users/${a.userId}`, { token: a.token, body: { active: false } })).status).toBe(
      409,
    );
  });

  it('two admins demoting each other at the same moment still leave one admin', async () => {
    const a = await signUpVia(call);
    const b = await addUserVia(call, a.token, { username: `adm2-${uniq()}`, type: 'admin' });
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all([
        call('PATCH', `/api/users/${b.id}`, { token: a.token, body: { type: 'agent' } }),
        call('PATCH', `/api/users/${a.userId}`, { token: b.token, body: { type: 'agent' } }),
      ]);
      const admins = await db()
        .selectFrom('users')
        .select('id')
        .where('account_id', '=', a.accountId)
        .where('type', '=', 'admin')
        .where('active', '=', 1)
        .execute();
      expect(admins, JSON.stringify(answers.map((x) => x.status))).toHaveLength(1);
      // Both admins again for the next round.
      const left = Number(admins[0]!.id);
      const back = await call('PATCH', `/api/users/${left === a.userId ? b.id : a.userId}`, {
        token: left === a.userId ? a.token : b.token,
        body: { type: 'admin' },
      });
      expect(back.status).toBe(200);
    }
  });

  it('only admins manage users and account security', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const sup = await addUserVia(call, a.token, { username: `su-${uniq()}`, type: 'supervisor' });
    const body = { username: `x-${uniq()}`, name: 'X', password: 'user password 1', type: 'admin' };
    for (const token of [agent.token, sup.token, undefined]) {
      const expected = token ? 403 : 401;
      expect((await call('GET', '/api/users', { token })).status).toBe(expected);
      expect((await call('GET', `/api/users/${agent.id}`, { token })).status).toBe(expected);
      expect((await call('POST', '/api/users', { token, body })).status).toBe(expected);
      expect((await call('PATCH', `/api/users/${agent.id}`, { token, body: { type: 'admin' } })).status).toBe(expected);
      expect((await call('PUT', '/api/account/security', { token, body: { require_2fa: true } })).status).toBe(
        expected,
      );
    }
    expect((await call('GET', `/api/users/${agent.id}`, { token: a.token })).body.type).toBe('agent');
    expect((await db().selectFrom('users').select('id').where('username', '=', body.username).execute()).length).toBe(
      0,
    );
  });

  it("an admin cannot read or edit another account's users", async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const theirs = await addUserVia(call, b.token, { username: `th-${uniq()}`, type: 'agent' });
    expect((await call('GET', `/api/users/${theirs.id}`, { token: a.token })).status).toBe(404);
    for (const body of [{ active: false }, { type: 'admin' }, { name: 'Hijacked' }]) {
      expect((await call('PATCH', `/api/users/${theirs.id}`, { token: a.token, body })).status).toBe(404);
    }
    expect((await call('GET', `/api/users/${theirs.id}`, { token: b.token })).body).toMatchObject({
      type: 'agent',
      active: true,
      name: theirs.username,
    });
    expect((await check(theirs.token)).body.result).toBe('success');
  });
});
