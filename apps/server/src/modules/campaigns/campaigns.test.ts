import { CAMPAIGN_STRINGS as S } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

describe.each(dialects)('campaigns (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const ticket = async (token: string, title: string, campaignId: number, status?: number) => {
    const made = await call('POST', '/api/ticket/create', {
      token,
      body: { title, name: 'Pat', email: 'pat@example.org' },
    });
    expect(made.status, made.text).toBe(200);
    const id = made.body.data.id as number;
    const put = await call('POST', '/api/ticket/campaign', { token, body: { id, campaign_id: campaignId } });
    expect(put.status, put.text).toBe(200);
    if (status !== undefined) {
      const st = await call('POST', '/api/ticket/status', { token, body: { id, status } });
      expect(st.status, st.text).toBe(200);
    }
    return id;
  };

  it('TICKET-10 TICKET-64 TICKET-65 an admin makes campaigns; the list pages by 5 with ticket counts; a campaign shows its tickets by status and channel', async () => {
    const admin = await signUpVia(call);
    const names = Array.from({ length: 7 }, (_, i) => `Recall ${i + 1}`);
    const ids: number[] = [];
    for (const name of names) {
      const r = await call('POST', '/api/campaign', { token: admin.token, body: { name: `  ${name}  ` } });
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.name).toBe(name);
      ids.push(r.body.data.id);
    }
    const recall7 = ids[6]!;
    await ticket(admin.token, 'Broken kettle', recall7);
    await ticket(admin.token, 'Kettle leaks', recall7, 1);
    await ticket(admin.token, 'Kettle refund done', recall7, 2);
    await ticket(admin.token, 'Kettle closed', recall7, 3);

    const first = await call('GET', '/api/campaign/list?pagination=5&page=1', { token: admin.token });
    expect(first.status, first.text).toBe(200);
    expect(first.body.total).toBe(7);
    expect(first.body.data.map((c: { name: string }) => c.name)).toEqual(names.slice(2).reverse());
    expect(first.body.data[0]).toMatchObject({ id: recall7, tickets: 4, open: 2 });
    expect(first.body.data[1]).toMatchObject({ tickets: 0, open: 0 });
    const second = await call('GET', '/api/campaign/list?pagination=5&page=2', { token: admin.token });
    expect(second.body.data.map((c: { name: string }) => c.name)).toEqual(['Recall 2', 'Recall 1']);

    const detail = await call('GET', `/api/campaign/${recall7}`, { token: admin.token });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.data.figures).toEqual({
      tickets: 4,
      open: 2,
      pending: 1,
      resolved: 1,
      closed: 1,
      channels: [{ channel: 'MANUAL', tickets: 4 }],
    });
    // The same tickets through the ticket list's campaign filter (what the campaign's page lists).
    const listed = await call('GET', `/api/ticket/load/me/4/ticket/0?campaignId=${recall7}`, { token: admin.token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toHaveLength(4);
  });

  it('TICKET-65 names are unique whatever their case; rename; an agent reads but may not manage; a campaign with tickets is not deleted', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `amy-${uniq()}`, type: 'agent' });
    const made = await call('POST', '/api/campaign', { token: admin.token, body: { name: 'Winter sale' } });
    const id = made.body.data.id as number;
    const dup = await call('POST', '/api/campaign', { token: admin.token, body: { name: 'WINTER SALE' } });
    expect([dup.status, dup.body.description]).toEqual([409, S.nameTaken('WINTER SALE')]);
    const other = await call('POST', '/api/campaign', { token: admin.token, body: { name: 'Spring sale' } });
    const clash = await call('PUT', `/api/campaign/${other.body.data.id}`, {
      token: admin.token,
      body: { name: 'winter sale' },
    });
    expect(clash.status).toBe(409);
    const renamed = await call('PUT', `/api/campaign/${id}`, {
      token: admin.token,
      body: { name: 'Winter Sale 2026' },
    });
    expect([renamed.status, renamed.body.data.name]).toEqual([200, 'Winter Sale 2026']);
    // Its own name again (another case) is no clash.
    expect(
      (await call('PUT', `/api/campaign/${id}`, { token: admin.token, body: { name: 'winter sale 2026' } })).status,
    ).toBe(200);

    expect((await call('GET', `/api/campaign/${id}`, { token: agent.token })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/campaign', { name: 'Agent campaign' }],
      ['PUT', `/api/campaign/${id}`, { name: 'Agent rename' }],
      ['DELETE', `/api/campaign/${id}`, undefined],
    ] as const) {
      const r = await call(method, path, { token: agent.token, body });
      expect(r.status, `${method} ${path}`).toBe(403);
    }

    await ticket(admin.token, 'Coat too small', id);
    const busy = await call('DELETE', `/api/campaign/${id}`, { token: admin.token });
    expect([busy.status, busy.body.description]).toEqual([409, S.notEmpty(1)]);
    expect((await call('GET', `/api/campaign/${id}`, { token: admin.token })).status).toBe(200);
    const gone = await call('DELETE', `/api/campaign/${other.body.data.id}`, { token: admin.token });
    expect(gone.status, gone.text).toBe(200);
    const missing = await call('GET', `/api/campaign/${other.body.data.id}`, { token: admin.token });
    expect([missing.status, missing.body.description]).toEqual([404, S.notFound]);

    const audit = await call('GET', '/api/audit?limit=25&page=1', { token: admin.token });
    const actions = audit.body.data.map((r: { action: string }) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['campaign.created', 'campaign.renamed', 'campaign.deleted']));
  });

  it("TICKET-65 another account's campaign is not found, and two creates of one name at once make one", async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const mine = await call('POST', '/api/campaign', { token: a.token, body: { name: 'Launch' } });
    const id = mine.body.data.id as number;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'Taken over' }],
      ['DELETE', undefined],
    ] as const) {
      const r = await call(method, `/api/campaign/${id}`, { token: b.token, body });
      expect([r.status, r.body.description]).toEqual([404, S.notFound]);
    }
    // B may use the same name: names are unique per account.
    expect((await call('POST', '/api/campaign', { token: b.token, body: { name: 'Launch' } })).status).toBe(200);
    const both = await Promise.all(
      [1, 2, 3].map(() => call('POST', '/api/campaign', { token: a.token, body: { name: 'Same time' } })),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const list = await call('GET', '/api/campaign/list?pagination=100&page=1', { token: a.token });
    expect(list.body.data.map((c: { name: string }) => c.name).sort()).toEqual(['Launch', 'Same time']);
  });
});
