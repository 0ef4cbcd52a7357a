import { TIMER_STRINGS, WORKSPACE_CHANNEL } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { manualClock } from '../../testing/clock.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { timeTotals } from './index.js';

describe.each(dialects)('time tracking (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const clock = manualClock();
  const db = () => s.handle.db;
  const today = () => new Date(clock()).toISOString().slice(0, 10);

  beforeAll(async () => {
    s = await startTestServer(dialect, {}, { clock });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const ticket = async (token: string, title = 'Printer on fire') =>
    (await call('POST', '/api/ticket/create', { token, body: { title } })).body.data as {
      id: number;
      ticket_number: number;
    };
  const count = async (accountId: number) =>
    (await db().selectFrom('time_entries').selectAll().where('account_id', '=', accountId).execute()).length;

  it('SHELL-12 /timer: start and stop a timer; one running per person, starting another stops the first', async () => {
    const admin = await signUpVia(call);
    const amy = await addUserVia(call, admin.token, { username: `amy-${uniq()}`, name: 'Amy', type: 'agent' });
    const t1 = await ticket(admin.token, 'First');
    const t2 = await ticket(admin.token, 'Second');

    const started = await call('POST', '/api/timer/start', { token: amy.token, body: { ticket_id: t1.id, tz: 120 } });
    expect(started.status, started.text).toBe(200);
    expect(started.body.entry).toMatchObject({ ticket_id: t1.id, running: true, seconds: 0, user: 'Amy' });
    expect(started.body.stopped).toBeNull();
    let panel = (await call('GET', `/api/timer/ticket/${t1.id}`, { token: amy.token })).body;
    expect(panel.running).toMatchObject({ id: started.body.entry.id });
    // Someone else sees the ticket's entries but no running timer of their own.
    expect((await call('GET', `/api/timer/ticket/${t1.id}`, { token: admin.token })).body.running).toBeNull();

    clock.advance(25 * 60_000);
    const moved = await call('POST', '/api/timer/start', { token: amy.token, body: { ticket_id: t2.id } });
    expect(moved.status, moved.text).toBe(200);
    // The manual clock runs on with the real time too: the requests themselves take a moment.
    const near = (x: number) => expect.toSatisfy((v: number) => v >= x && v < x + 120);
    expect(moved.body.stopped).toMatchObject({ ticket_id: t1.id, running: false, seconds: near(25 * 60) });
    const onFirst = (await call('GET', `/api/timer/ticket/${t1.id}`, { token: amy.token })).body;
    expect([onFirst.running, onFirst.elsewhere?.ticket_id]).toEqual([null, t2.id]);
    const running = await db()
      .selectFrom('time_entries')
      .select('ticket_id')
      .where('user_id', '=', amy.id)
      .where('ended_at', 'is', null)
      .execute();
    expect(running.map((r) => Number(r.ticket_id))).toEqual([t2.id]);

    clock.advance(10 * 60_000 + 400);
    const stopped = await call('POST', '/api/timer/stop', { token: amy.token });
    expect(stopped.body.entry).toMatchObject({ ticket_id: t2.id, running: false, seconds: near(600) });
    expect((await call('POST', '/api/timer/stop', { token: amy.token })).body.entry).toBeNull();
    panel = (await call('GET', `/api/timer/ticket/${t1.id}`, { token: amy.token })).body;
    expect(panel).toMatchObject({ total_seconds: moved.body.stopped.seconds, running: null });
    expect(panel.entries).toHaveLength(1);
  });

  it('SHELL-12 /timer: manual entries, changes and removal; totals per agent over a range', async () => {
    const admin = await signUpVia(call);
    const amy = await addUserVia(call, admin.token, { username: `amy-${uniq()}`, name: 'Amy', type: 'agent' });
    const bob = await addUserVia(call, admin.token, { username: `bob-${uniq()}`, name: 'Bob', type: 'agent' });
    const t = await ticket(admin.token);
    const add = (token: string, minutes: number, date: string, note = '') =>
      call('POST', '/api/timer/entries', { token, body: { ticket_id: t.id, minutes, date, note } });
    const a1 = await add(amy.token, 90, '2026-03-02', '  Called the customer  ');
    expect(a1.status, a1.text).toBe(200);
    expect(a1.body.entry).toMatchObject({
      source: 'manual',
      seconds: 5400,
      day: '2026-03-02',
      note: 'Called the customer',
      ticket_number: t.ticket_number,
      subject: 'Printer on fire',
    });
    await add(amy.token, 15, '2026-03-04');
    const b1 = await add(bob.token, 45, '2026-03-03');
    await add(bob.token, 30, '2026-04-01');

    const range = (token: string, q = '') =>
      call('GET', `/api/timer/entries?from=2026-03-01&to=2026-03-31${q}`, { token });
    const all = (await range(admin.token)).body;
    expect(all.entries.map((e: { day: string }) => e.day)).toEqual(['2026-03-04', '2026-03-03', '2026-03-02']);
    expect(all.totals).toEqual([
      { user_id: amy.id, user: 'Amy', seconds: 6300, entries: 2 },
      { user_id: bob.id, user: 'Bob', seconds: 2700, entries: 1 },
    ]);
    expect([all.total_seconds, all.truncated]).toEqual([9000, false]);
    // The exported query answers the same totals, for reports.
    const accountId = admin.accountId;
    expect(await timeTotals(db(), accountId, { from: '2026-03-01', to: '2026-03-31' })).toEqual(all.totals);
    expect((await range(admin.token, `&user_id=${bob.id}`)).body.total_seconds).toBe(2700);
    // An agent sees only their own time, whatever they ask for.
    expect((await range(amy.token)).body.totals.map((x: { user: string }) => x.user)).toEqual(['Amy']);
    const other = await range(amy.token, `&user_id=${bob.id}`);
    expect([other.status, other.body.description]).toEqual([403, TIMER_STRINGS.onlyOwn]);

    // Own entries change; someone else's only by an admin.
    const id = a1.body.entry.id as number;
    const changed = await call('PUT', `/api/timer/entries/${id}`, {
      token: amy.token,
      body: { minutes: 60, date: '2026-03-05', note: 'Shorter' },
    });
    expect(changed.body.entry).toMatchObject({ seconds: 3600, day: '2026-03-05', note: 'Shorter' });
    const bobs = await call('PUT', `/api/timer/entries/${id}`, {
      token: bob.token,
      body: { minutes: 1, date: '2026-03-05' },
    });
    expect([bobs.status, bobs.body.description]).toEqual([403, TIMER_STRINGS.notYours]);
    expect((await call('DELETE', `/api/timer/entries/${b1.body.entry.id}`, { token: amy.token })).status).toBe(403);
    expect((await call('DELETE', `/api/timer/entries/${b1.body.entry.id}`, { token: admin.token })).status).toBe(200);
    expect((await call('DELETE', `/api/timer/entries/${b1.body.entry.id}`, { token: admin.token })).status).toBe(404);
    const after = (await range(admin.token)).body;
    expect(after.totals).toEqual([{ user_id: amy.id, user: 'Amy', seconds: 4500, entries: 2 }]);

    // A running timer is stopped before it is changed; removing it discards it.
    const run = await call('POST', '/api/timer/start', { token: amy.token, body: { ticket_id: t.id } });
    const runId = run.body.entry.id as number;
    const busy = await call('PUT', `/api/timer/entries/${runId}`, {
      token: amy.token,
      body: { minutes: 5, date: today() },
    });
    expect([busy.status, busy.body.description]).toEqual([409, TIMER_STRINGS.stopFirst]);
    expect((await call('DELETE', `/api/timer/entries/${runId}`, { token: amy.token })).status).toBe(200);
    expect((await call('POST', '/api/timer/stop', { token: amy.token })).body.entry).toBeNull();
  });

  it('SHELL-12 /timer: bad input is a 400, another account or a Workspace chat a 404; nothing changes', async () => {
    const admin = await signUpVia(call);
    const other = await signUpVia(call);
    const t = await ticket(admin.token);
    const theirs = await ticket(other.token);
    const chat = await db()
      .insertInto('tickets')
      .values({
        account_id: admin.accountId,
        ticket_number: 999,
        title: 'Team chat',
        channel: WORKSPACE_CHANNEL,
        closed: 0,
        priority: '',
        label: '[]',
        assignee: '',
        name: '',
        email: '',
        phone: '',
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const mine = await call('POST', '/api/timer/entries', {
      token: admin.token,
      body: { ticket_id: t.id, minutes: 10, date: '2026-03-02' },
    });
    const entryId = mine.body.entry.id as number;
    const before = await count(admin.accountId);
    const bad: [string, string, unknown][] = [
      ['POST', '/api/timer/start', {}],
      ['POST', '/api/timer/start', { ticket_id: 'x' }],
      ['POST', '/api/timer/start', { ticket_id: t.id, tz: 5000 }],
      ['POST', '/api/timer/start', { ticket_id: -1 }],
      ['POST', '/api/timer/entries', { ticket_id: t.id, minutes: 0, date: '2026-03-02' }],
      ['POST', '/api/timer/entries', { ticket_id: t.id, minutes: 1441, date: '2026-03-02' }],
      ['POST', '/api/timer/entries', { ticket_id: t.id, minutes: 1.5, date: '2026-03-02' }],
      ['POST', '/api/timer/entries', { ticket_id: t.id, minutes: 5, date: '2026-02-30' }],
      ['POST', '/api/timer/entries', { ticket_id: t.id, minutes: 5, date: '2/3/2026' }],
      ['POST', '/api/timer/entries', { ticket_id: t.id, minutes: 5, date: '2026-03-02', note: 'x'.repeat(501) }],
      ['PUT', `/api/timer/entries/${entryId}`, { minutes: -5, date: '2026-03-02' }],
      ['PUT', '/api/timer/entries/abc', { minutes: 5, date: '2026-03-02' }],
      ['GET', '/api/timer/entries?from=2026-03-05&to=2026-03-01', undefined],
      ['GET', '/api/timer/entries?from=2025-01-01&to=2026-03-01', undefined],
      ['GET', '/api/timer/entries?from=2026-3-1&to=2026-03-01', undefined],
      ['GET', '/api/timer/entries', undefined],
      ['GET', '/api/timer/ticket/0', undefined],
    ];
    for (const [method, path, body] of bad) {
      const r = await call(method, path, { token: admin.token, body });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)} ${r.text}`).toBe(400);
      expect(r.body.result).toBe('failed');
    }
    for (const ticketId of [theirs.id, Number(chat.id), 987_654_321]) {
      const start = await call('POST', '/api/timer/start', { token: admin.token, body: { ticket_id: ticketId } });
      expect([start.status, start.body.description]).toEqual([404, TIMER_STRINGS.notFound]);
      const add = await call('POST', '/api/timer/entries', {
        token: admin.token,
        body: { ticket_id: ticketId, minutes: 5, date: '2026-03-02' },
      });
      expect(add.status).toBe(404);
      expect((await call('GET', `/api/timer/ticket/${ticketId}`, { token: admin.token })).status).toBe(404);
    }
    expect(await count(admin.accountId)).toBe(before);

    // Another account's admin reaches none of it.
    for (const [method, path, body] of [
      ['PUT', `/api/timer/entries/${entryId}`, { minutes: 5, date: '2026-03-02' }],
      ['DELETE', `/api/timer/entries/${entryId}`, undefined],
      ['GET', `/api/timer/ticket/${t.id}`, undefined],
    ] as const)
      expect((await call(method, path, { token: other.token, body })).status, path).toBe(404);
    const seen = await call('GET', `/api/timer/entries?from=2026-01-01&to=2026-12-31&user_id=${admin.userId}`, {
      token: other.token,
    });
    expect([seen.body.entries, seen.body.totals]).toEqual([[], []]);
    expect(await count(admin.accountId)).toBe(before);
    expect(await count(other.accountId)).toBe(0);
  });
});
