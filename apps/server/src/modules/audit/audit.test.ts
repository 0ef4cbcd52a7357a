import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('the audit log by numbered pages (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('SHELL-51 page N answers rows (N-1)*limit on, newest first, with the account total; other accounts apart', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    for (let i = 0; i < 6; i++)
      expect((await call('POST', '/api/departments', { token: a.token, body: { name: `Dep ${i}` } })).status).toBe(200);
    await call('POST', '/api/departments', { token: b.token, body: { name: 'Other' } });

    const all = await call('GET', '/api/audit?limit=200', { token: a.token });
    const ids: number[] = all.body.data.map((r: { id: number }) => r.id);
    expect(all.body.count).toBeUndefined(); // the keyset paging answers as before
    const total = ids.length;
    expect(total).toBeGreaterThanOrEqual(7); // account.created, sign-in, 6 departments

    const page2 = await call('GET', '/api/audit?limit=3&page=2', { token: a.token });
    expect(page2.status).toBe(200);
    expect(page2.body.count).toBe(total);
    expect(page2.body.data.map((r: { id: number }) => r.id)).toEqual(ids.slice(3, 6));
    const last = Math.ceil(total / 3);
    const tail = await call('GET', `/api/audit?limit=3&page=${last}`, { token: a.token });
    expect(tail.body.data.map((r: { id: number }) => r.id)).toEqual(ids.slice((last - 1) * 3));
    const beyond = await call('GET', `/api/audit?limit=3&page=${last + 1}`, { token: a.token });
    expect(beyond.body).toEqual({ count: total, data: [] });

    for (const bad of ['page=0', 'page=-1', 'page=x'])
      expect((await call('GET', `/api/audit?${bad}`, { token: a.token })).status, bad).toBe(400);
  });
});
