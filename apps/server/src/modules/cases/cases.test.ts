import { CASE_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

describe.each(dialects)('case management (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('CASE a case groups tickets of one matter; stage, owner and notes are on its timeline; lists by stage and owner', async () => {
    const admin = await signUpVia(call);
    const amy = await addUserVia(call, admin.token, { username: `amy-${uniq()}`, type: 'agent' });
    const email = `pat-${uniq()}@example.org`;
    for (const title of ['Parcel lost', 'Refund please'])
      await call('POST', '/api/ticket/create', { token: admin.token, body: { title, name: 'Pat', email } });
    const contact = (await call('GET', `/api/contacts/list?keyword=${email}`, { token: admin.token })).body.contacts[0];
    const made = await call('POST', '/api/cases', {
      token: admin.token,
      body: { title: 'Lost parcel claim', case_type: 'Claim', contact_id: contact.id },
    });
    expect(made.status, made.text).toBe(200);
    const id = made.body.case.id as number;
    expect(made.body.case).toMatchObject({ stage: 'new', contact_name: 'Pat', tickets: 0 });
    for (const n of [1, 2]) {
      const added = await call('POST', `/api/cases/${id}/tickets`, { token: admin.token, body: { ticket_number: n } });
      expect(added.status, added.text).toBe(200);
    }
    const twice = await call('POST', `/api/cases/${id}/tickets`, { token: admin.token, body: { ticket_number: 1 } });
    expect([twice.status, twice.body.description]).toEqual([409, CASE_STRINGS.alreadyLinked(1)]);
    const missing = await call('POST', `/api/cases/${id}/tickets`, { token: admin.token, body: { ticket_number: 99 } });
    expect([missing.status, missing.body.description]).toEqual([404, CASE_STRINGS.ticketNotFound(99)]);

    const moved = await call('PUT', `/api/cases/${id}`, {
      token: admin.token,
      body: { ...made.body.case, stage: 'investigating', owner_id: amy.id, due_at: Date.UTC(2031, 0, 5) },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(
      (
        await call('POST', `/api/cases/${id}/notes`, {
          token: amy.token,
          body: { text: 'Courier says it was left at the door.' },
        })
      ).status,
    ).toBe(200);
    const page = (await call('GET', `/api/cases/${id}`, { token: amy.token })).body.case;
    expect(page.ticket_list.map((t: { title: string }) => t.title)).toEqual(['Parcel lost', 'Refund please']);
    expect(page.timeline.map((e: { text: string }) => e.text)).toEqual([
      'Courier says it was left at the door.',
      'Due date set',
      expect.stringMatching(/^Owner: /),
      'Stage: Investigating',
      'Ticket #2 added: Refund please',
      'Ticket #1 added: Parcel lost',
      'Case opened: Lost parcel claim',
    ]);
    expect(page).toMatchObject({ owner_id: amy.id, tickets: 2, due_at: Date.UTC(2031, 0, 5) });

    const mine = await call('GET', '/api/cases?mine=1', { token: amy.token });
    expect(mine.body.cases.map((c: { id: number }) => c.id)).toEqual([id]);
    expect((await call('GET', '/api/cases?mine=1', { token: admin.token })).body.cases).toEqual([]);
    await call('PUT', `/api/cases/${id}`, { token: admin.token, body: { ...page, stage: 'closed' } });
    expect((await call('GET', '/api/cases', { token: admin.token })).body.cases).toEqual([]);
    expect((await call('GET', '/api/cases?stage=closed&q=PARCEL', { token: admin.token })).body.cases).toHaveLength(1);
    const removed = await call('DELETE', `/api/cases/${id}/tickets/${page.ticket_list[0].id}`, { token: admin.token });
    expect(removed.status).toBe(200);
    expect((await call('GET', `/api/cases/${id}`, { token: admin.token })).body.case.tickets).toBe(1);
  });

  it('CASE bad input, another account, hide_case: clear answers, nothing changes', async () => {
    const admin = await signUpVia(call);
    const other = await signUpVia(call);
    const made = await call('POST', '/api/cases', { token: admin.token, body: { title: 'Mine' } });
    const id = made.body.case.id as number;
    for (const body of [
      {},
      { title: '' },
      { title: 'x', stage: 'lost' },
      { title: 'x'.repeat(201) },
      { title: 'x', due_at: -1 },
    ])
      expect((await call('POST', '/api/cases', { token: admin.token, body })).status, JSON.stringify(body)).toBe(400);
    const otherUser = await addUserVia(call, other.token, { username: `ou-${uniq()}`, type: 'agent' });
    const foreignOwner = await call('POST', '/api/cases', {
      token: admin.token,
      body: { title: 'x', owner_id: otherUser.id },
    });
    expect([foreignOwner.status, foreignOwner.body.description]).toEqual([400, CASE_STRINGS.ownerNotFound]);
    for (const [method, path, body] of [
      ['GET', `/api/cases/${id}`, undefined],
      ['PUT', `/api/cases/${id}`, { title: 'Taken' }],
      ['POST', `/api/cases/${id}/notes`, { text: 'x' }],
      ['POST', `/api/cases/${id}/tickets`, { ticket_number: 1 }],
    ] as const)
      expect((await call(method, path, { token: other.token, body })).status, path).toBe(404);
    expect((await call('GET', '/api/cases?stage=all', { token: other.token })).body.cases).toEqual([]);
    const agent = await addUserVia(call, admin.token, { username: `ag-${uniq()}`, type: 'agent' });
    await db()
      .updateTable('users')
      .set({ permission: JSON.stringify(['hide_case']) })
      .where('id', '=', agent.id)
      .execute();
    const hidden = await call('GET', '/api/cases', { token: agent.token });
    expect([hidden.status, hidden.body.description]).toEqual([403, CASE_STRINGS.hidden]);
    expect((await call('GET', `/api/cases/${id}`, { token: admin.token })).body.case.title).toBe('Mine');
  });
});
