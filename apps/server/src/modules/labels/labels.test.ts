import { LABEL_STRINGS, type Label, NEW_LABEL } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { collect, connectSocket, flushSockets, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('labels and settings (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  const labels = async (token: string): Promise<Label[]> => {
    const r = await call('GET', '/api/label/get', { token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.result).toBe('success');
    return r.body.data;
  };
  const update = (token: string, body: unknown) => call('POST', '/api/label/update', { token, body });
  const state = async (accountId: number) => ({
    rows: await db().selectFrom('labels').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
    // Presence (a socket connecting makes its user Online) appends events of its own, late on a loaded machine.
    events: (
      await db()
        .selectFrom('events')
        .select('id')
        .where('account_id', '=', accountId)
        .where('type', '<>', 'status.updated')
        .execute()
    ).length,
    settings: (await db().selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirst())
      ?.settings,
  });
  const account = async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent' });
    return { admin, agent };
  };
  const good = { name: 'Urgent', color: '#FF0000', colorDark: '#ff8080', level: 2, sla: 15 };

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('LABEL-03 LABEL-07 LABEL-09 LABEL-12 LABEL-13 an admin adds and edits labels; everyone reads the list', async () => {
    const { admin, agent } = await account();
    expect(await labels(agent.token)).toEqual([]);

    const added = await update(admin.token, {
      labelArray: [
        { ...NEW_LABEL, isNew: true },
        { ...good, level: '3', sla: ' 45 ' },
      ],
      delete: [],
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual({
      result: 'success',
      description: LABEL_STRINGS.updated,
      data: [
        { id: expect.any(Number), ...NEW_LABEL, removed: false },
        { id: expect.any(Number), ...good, level: 3, sla: 45, removed: false },
      ],
    });
    const [a, b] = added.body.data as Label[];
    expect(await labels(agent.token)).toEqual(added.body.data);

    const edited = await update(admin.token, {
      labelArray: [{ ...a, name: ' Low ', level: 5, sla: '120' }],
      delete: [],
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toEqual([{ ...a, name: 'Low', level: 5, sla: 120 }, b]);
    expect(await labels(admin.token)).toEqual(edited.body.data);
  });

  it('LABEL-04 LABEL-05 LABEL-06 bad labels are refused with the spec strings and change nothing', async () => {
    const { admin } = await account();
    const first = await update(admin.token, { labelArray: [good], delete: [] });
    expect(first.status, first.text).toBe(200);
    const existing = first.body.data[0] as Label;
    const before = await state(admin.accountId);

    const bad: [string, Record<string, unknown>, string][] = [
      ['empty name', { name: '' }, LABEL_STRINGS.empty],
      ['blank name', { name: '   ' }, LABEL_STRINGS.empty],
      ['no colour', { color: undefined }, LABEL_STRINGS.empty],
      ['empty dark colour', { colorDark: '' }, LABEL_STRINGS.empty],
      ['empty level', { level: '' }, LABEL_STRINGS.empty],
      ['no sla', { sla: undefined }, LABEL_STRINGS.empty],
      ['level 1.5 as text', { level: '1.5' }, LABEL_STRINGS.wholeNumber],
      ['level 1.5', { level: 1.5 }, LABEL_STRINGS.wholeNumber],
      ['sla abc', { sla: 'abc' }, LABEL_STRINGS.wholeNumber],
      ['negative level', { level: -1 }, LABEL_STRINGS.wholeNumber],
      ['negative sla as text', { sla: '-5' }, LABEL_STRINGS.wholeNumber],
      ['sla too large', { sla: 2 ** 31 }, LABEL_STRINGS.wholeNumber],
      ['colour #12', { color: '#12' }, LABEL_STRINGS.color],
      ['dark colour #12', { colorDark: '#12' }, LABEL_STRINGS.color],
      ['colour #12345', { color: '#12345' }, LABEL_STRINGS.color],
      ['colour without #', { color: '123456' }, LABEL_STRINGS.color],
      ['dark colour not hex', { colorDark: '#GGGGGG' }, LABEL_STRINGS.color],
      ['dark colour too long', { colorDark: '#1234567' }, LABEL_STRINGS.color],
    ];
    for (const [what, change, message] of bad) {
      // A good edit and a good new label ride along: the whole save is refused, not just the bad item.
      const r = await update(admin.token, {
        labelArray: [
          { ...existing, name: 'Changed' },
          { ...good, name: 'Extra' },
          { ...good, ...change },
        ],
        delete: [existing.id],
      });
      expect(r.status, `${what}: ${r.text}`).toBe(400);
      expect(r.body, what).toEqual({ result: 'failed', code: 'VALIDATION_FAILED', description: message });
    }
    // The first failure is reported: empty before whole number before colour.
    const order = await update(admin.token, {
      labelArray: [{ ...good, color: 'x', level: 'y', name: '' }],
      delete: [],
    });
    expect(order.body.description).toBe(LABEL_STRINGS.empty);
    const order2 = await update(admin.token, { labelArray: [{ ...good, color: 'x', level: 'y' }], delete: [] });
    expect(order2.body.description).toBe(LABEL_STRINGS.wholeNumber);
    expect(await state(admin.accountId)).toEqual(before);
  });

  it("LABEL-09 another account's label ids are not found and nothing changes anywhere", async () => {
    const a = await account();
    const b = await account();
    const mine = (await update(a.admin.token, { labelArray: [good], delete: [] })).body.data[0] as Label;
    const theirs = (await update(b.admin.token, { labelArray: [good], delete: [] })).body.data[0] as Label;
    const before = { a: await state(a.admin.accountId), b: await state(b.admin.accountId) };
    for (const body of [
      { labelArray: [{ ...theirs, name: 'Taken over' }], delete: [] },
      { labelArray: [{ ...mine, name: 'Mine' }], delete: [theirs.id] },
      { labelArray: [{ ...good, id: 999_999 }], delete: [] },
    ]) {
      const r = await update(a.admin.token, body);
      expect(r.status, r.text).toBe(404);
      expect(r.body).toMatchObject({ result: 'failed', code: 'NOT_FOUND' });
    }
    expect({ a: await state(a.admin.accountId), b: await state(b.admin.accountId) }).toEqual(before);
    expect(await labels(a.agent.token)).toEqual([mine]);
  });

  it('LABEL-02 LABEL-09 a deleted label is kept, flagged removed, and no longer edited', async () => {
    const { admin, agent } = await account();
    const [x, y] = (await update(admin.token, { labelArray: [good, { ...good, name: 'Second' }], delete: [] })).body
      .data as Label[];
    const r = await update(admin.token, { labelArray: [], delete: [x!.id] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual([{ ...x, removed: true }, y]);
    expect(await labels(agent.token)).toEqual([{ ...x, removed: true }, y]);
    // An item naming a removed label leaves it as it is; deleting it again is harmless.
    const again = await update(admin.token, { labelArray: [{ ...x, name: 'Back' }], delete: [x!.id] });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toEqual([{ ...x, removed: true }, y]);
    const row = await db().selectFrom('labels').select(['name', 'removed']).where('id', '=', x!.id).executeTakeFirst();
    expect(row).toEqual({ name: good.name, removed: 1 });
  });

  it('LABEL-09 labelsUpdated reaches the same account only; an empty save sends nothing', async () => {
    const a = await account();
    const b = await account();
    const sock = await connectSocket(s.url, a.agent.token, opened);
    const outsider = await connectSocket(s.url, b.agent.token, opened);
    const heard = collect(sock, 'labelsUpdated');
    const overheard = collect(outsider, 'labelsUpdated');
    const r = await update(a.admin.token, { labelArray: [good], delete: [] });
    expect(r.status, r.text).toBe(200);
    await waitFor(() => heard.length === 1, 'labelsUpdated on the agent socket');
    expect(heard[0]).toEqual({ labels: r.body.data });
    const events = (await state(a.admin.accountId)).events;
    expect((await update(a.admin.token, { labelArray: [], delete: [] })).status).toBe(200);
    expect((await state(a.admin.accountId)).events).toBe(events);
    // Marker events through the same fan-out: anything sent before them would be here by now.
    await flushSockets(db(), a.admin.accountId, [sock]);
    await flushSockets(db(), b.admin.accountId, [outsider]);
    expect(heard).toHaveLength(1);
    expect(overheard).toEqual([]);
    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('account_id', '=', a.admin.accountId)
      .where('action', '=', 'labels.updated')
      .execute();
    expect(audit).toEqual([{ action: 'labels.updated', actor: a.admin.username }]);
  });

  it('LABEL-09 LABEL-17 only admins change labels or settings; signed-out callers get 401', async () => {
    const { admin, agent } = await account();
    await update(admin.token, { labelArray: [good], delete: [] });
    const before = await state(admin.accountId);
    for (const [path, body] of [
      ['/api/label/update', { labelArray: [{ ...good, name: 'Agent' }], delete: [] }],
      ['/api/settings/update', { action: 'duration', day: 3 }],
    ] as const) {
      const r = await call('POST', path, { token: agent.token, body });
      expect(r.status, path).toBe(403);
      expect(r.body, path).toMatchObject({ result: 'failed', code: 'FORBIDDEN' });
      expect((await call('POST', path, { body })).status, path).toBe(401);
    }
    for (const path of ['/api/label/get', '/api/settings/get'])
      expect((await call('GET', path)).status, path).toBe(401);
    expect(await state(admin.accountId)).toEqual(before);
  });

  it('RT-32 LABEL-14 LABEL-15 LABEL-16 LABEL-17 LABEL-19 LABEL-20 the duration setting is saved and pushed to the account', async () => {
    const a = await account();
    const b = await account();
    const sock = await connectSocket(s.url, a.agent.token, opened);
    const outsider = await connectSocket(s.url, b.agent.token, opened);
    const heard = collect(sock, 'settingsChanged');
    const overheard = collect(outsider, 'settingsChanged');
    const get = async (token: string) => (await call('GET', '/api/settings/get', { token })).body;
    expect(await get(a.agent.token)).toEqual({ result: 'success', data: { duration: null } });

    const r = await call('POST', '/api/settings/update', {
      token: a.admin.token,
      body: { action: 'duration', day: '7' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ result: 'success', description: LABEL_STRINGS.settingsUpdated });
    await waitFor(() => heard.length === 1, 'settingsChanged on the agent socket');
    expect(heard[0]).toEqual({ settings: { duration: 7 } });
    expect(await get(a.agent.token)).toEqual({ result: 'success', data: { duration: 7 } });
    const n = await call('POST', '/api/settings/update', {
      token: a.admin.token,
      body: { action: 'duration', day: 30 },
    });
    expect(n.status, n.text).toBe(200);
    expect((await get(a.admin.token)).data).toEqual({ duration: 30 });
    expect((await get(b.agent.token)).data).toEqual({ duration: null });

    const before = await state(a.admin.accountId);
    const bad: [string, unknown, string | null][] = [
      ['empty day', { action: 'duration', day: '' }, LABEL_STRINGS.dayEmpty],
      ['blank day', { action: 'duration', day: '  ' }, LABEL_STRINGS.dayEmpty],
      ['no day', { action: 'duration' }, LABEL_STRINGS.dayEmpty],
      ['day 1.5', { action: 'duration', day: '1.5' }, LABEL_STRINGS.dayWhole],
      ['day abc', { action: 'duration', day: 'abc' }, LABEL_STRINGS.dayWhole],
      ['day 0', { action: 'duration', day: 0 }, LABEL_STRINGS.dayWhole],
      ['day 366', { action: 'duration', day: 366 }, LABEL_STRINGS.dayWhole],
      ['unknown action', { action: 'colour', day: 3 }, null],
      ['no action', { day: 3 }, null],
    ];
    for (const [what, body, message] of bad) {
      const x = await call('POST', '/api/settings/update', { token: a.admin.token, body });
      expect(x.status, `${what}: ${x.text}`).toBe(400);
      expect(x.body, what).toMatchObject({ result: 'failed', code: 'VALIDATION_FAILED' });
      if (message) expect(x.body.description, what).toBe(message);
    }
    expect(await state(a.admin.accountId)).toEqual(before);
    // Marker events through the same fan-out: anything sent before them would be here by now.
    await flushSockets(db(), a.admin.accountId, [sock]);
    await flushSockets(db(), b.admin.accountId, [outsider]);
    expect(heard).toHaveLength(2);
    expect(overheard).toEqual([]);
  });
});
