import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('departments (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('TICKET-55 TICKET-56 an admin manages departments; users and the path-token list read them', async () => {
    const a = await signUpVia(call);
    const sales = await call('POST', '/api/departments', { token: a.token, body: { name: 'Sales' } });
    expect(sales.status).toBe(200);
    const support = await call('POST', '/api/departments', { token: a.token, body: { name: '  Support ' } });
    expect(support.body.data.name).toBe('Support');

    // The same name in any case is refused and nothing is added.
    const dup = await call('POST', '/api/departments', { token: a.token, body: { name: 'sales' } });
    expect(dup.status).toBe(409);
    expect(dup.body.description).toBe('A department with that name already exists.');
    for (const bad of [{}, { name: '' }, { name: 'x'.repeat(61) }, { name: 5 }]) {
      expect((await call('POST', '/api/departments', { token: a.token, body: bad })).status).toBe(400);
    }

    // /department2/{token}: the token in the path is enough.
    const all = await call('GET', `/department2/${a.token}`);
    expect(all.status).toBe(200);
    expect(all.body.data.map((d: { name: string }) => d.name)).toEqual(['Sales', 'Support']);
    expect((await call('GET', '/department2/not-a-token')).status).toBe(401);

    // A user's departments.
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const put = await call('PATCH', `/api/users/${agent.id}`, {
      token: a.token,
      body: { departments: [sales.body.data.id] },
    });
    expect(put.status).toBe(200);
    const mine = await call('GET', `/department/${agent.id}`, { token: agent.token });
    expect(mine.body.data).toEqual([{ id: sales.body.data.id, name: 'Sales' }]);

    // Agents read but do not manage.
    expect((await call('POST', '/api/departments', { token: agent.token, body: { name: 'Ops' } })).status).toBe(403);
    expect((await call('DELETE', `/api/departments/${sales.body.data.id}`, { token: agent.token })).status).toBe(403);

    // Rename, then delete: the member leaves it.
    const renamed = await call('PATCH', `/api/departments/${sales.body.data.id}`, {
      token: a.token,
      body: { name: 'Sales EU' },
    });
    expect(renamed.body.data.name).toBe('Sales EU');
    expect(
      (await call('PATCH', `/api/departments/${sales.body.data.id}`, { token: a.token, body: { name: 'support' } }))
        .status,
    ).toBe(409);
    expect((await call('DELETE', `/api/departments/${sales.body.data.id}`, { token: a.token })).status).toBe(200);
    expect((await call('GET', `/department/${agent.id}`, { token: agent.token })).body.data).toEqual([]);
    const audit = await call('GET', '/api/audit', { token: a.token });
    const actions = audit.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['department.created', 'department.renamed', 'department.deleted']));
  });

  it('TICKET-55 another account can neither see nor change these departments', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const d = await call('POST', '/api/departments', { token: a.token, body: { name: 'Billing' } });
    const id = d.body.data.id;
    expect((await call('GET', '/api/departments', { token: b.token })).body.data).toEqual([]);
    expect((await call('PATCH', `/api/departments/${id}`, { token: b.token, body: { name: 'Mine' } })).status).toBe(
      404,
    );
    expect((await call('DELETE', `/api/departments/${id}`, { token: b.token })).status).toBe(404);
    expect((await call('GET', `/department/${a.userId}`, { token: b.token })).status).toBe(404);
    expect((await call('GET', '/api/departments', { token: a.token })).body.data).toEqual([{ id, name: 'Billing' }]);
  });
});
