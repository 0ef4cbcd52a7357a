import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createParley, type Parley } from '../../app.js';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { manualClock } from '../../testing/clock.js';
import { collect, connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer, testConfig } from '../../testing/support.js';
import { Presence } from './presence.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const GRACE_MS = 800;
const HEARTBEAT_MS = 150;

/**
 * The server runs on a clock the tests move by hand: grace periods, heartbeats and sweeps happen when a test
 * passes the time, and a test that says "nothing happened within the grace" has let the grace run out.
 */
describe.each(dialects)('presence across sockets and nodes (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const clock = manualClock();
  /** Passes `ms` of the clock in steps, letting each step's presence work finish. */
  const pass = async (ms: number, step = HEARTBEAT_MS / 3) => {
    for (let done = 0; done < ms; done += step) {
      clock.advance(Math.min(step, ms - done));
      await s.presence.settled();
    }
  };
  /** The socket's closing has been handled: its row is gone and its grace timer runs. */
  const closeHandled = async (userId: number, left: number) => {
    await waitFor(async () => (await connections(userId)).length === left, `${left} rows left`);
    await s.presence.settled();
  };
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  const user = (id: number) =>
    db()
      .selectFrom('users')
      .select(['status', 'second_status', 'status_reason', 'status_since', 'last_seen_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const connections = (userId: number) =>
    db()
      .selectFrom('user_connections')
      .select(['account_id', 'user_id', 'node_id', 'socket_id', 'connected_at'])
      .where('user_id', '=', userId)
      .orderBy('connected_at')
      .execute();
  const periods = (userId: number) =>
    db()
      .selectFrom('status_periods')
      .select(['status', 'reason', 'ended_at'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  const statusIs = (id: number, status: string) => async () => (await user(id)).status === status;
  const account = async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent' });
    return { admin, agent };
  };
  const socket = (token: string) => connectSocket(s.url, token, opened);

  beforeAll(async () => {
    s = await startTestServer(
      dialect,
      { PRESENCE_GRACE_MS: String(GRACE_MS), PRESENCE_HEARTBEAT_MS: String(HEARTBEAT_MS) },
      { clock },
    );
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('STATUS-04 a connecting socket sets an Offline agent Online; everyone in the account, and only there, hears it', async () => {
    const { admin, agent } = await account();
    const b = await account();
    const watcher = await socket(admin.token);
    const outsider = await socket(b.admin.token);
    const heard = collect(watcher, 'statusUpdated');
    const overheard = collect(outsider, 'statusUpdated');
    expect((await user(agent.id)).status).toBe('OFFLINE');

    const sock = await socket(agent.token);
    await waitFor(statusIs(agent.id, 'ONLINE'), 'the agent Online');
    const rows = await connections(agent.id);
    expect(rows).toEqual([
      {
        account_id: admin.accountId,
        user_id: agent.id,
        node_id: s.nodeId,
        socket_id: sock.id,
        connected_at: expect.any(Number),
      },
    ]);
    await waitFor(() => heard.some((e) => e.userId === agent.id), 'statusUpdated on the admin socket');
    expect(heard.find((e) => e.userId === agent.id)).toEqual({
      userId: agent.id,
      username: agent.username,
      status: 'ONLINE',
      second_status: '',
      reason: '',
      since: expect.any(Number),
    });
    expect(await periods(agent.id)).toEqual([{ status: 'ONLINE', reason: '', ended_at: null }]);
    const online = await call('GET', '/status/get', { token: admin.token });
    expect(online.body.data.find((r: { userId: number }) => r.userId === agent.id)).toMatchObject({
      status: 'ONLINE',
      last_seen: null,
    });
    // The other account's own agent comes Online after: once the outsider hears that, it would have heard ours.
    await socket(b.agent.token);
    await waitFor(() => overheard.some((e) => e.userId === b.agent.id), 'the other account’s own statusUpdated');
    expect(overheard.filter((e) => e.userId === agent.id || e.userId === admin.userId)).toEqual([]);
  });

  it('STATUS-04 STATUS-06 the last socket closing sets the agent Offline after the grace period', async () => {
    const { admin, agent } = await account();
    const watcher = await socket(admin.token);
    const heard = collect(watcher, 'statusUpdated');
    const sock = await socket(agent.token);
    await waitFor(async () => (await connections(agent.id)).length === 1, 'the connection row');
    await waitFor(statusIs(agent.id, 'ONLINE'), 'the agent Online');

    const closedAt = clock();
    sock.disconnect();
    await closeHandled(agent.id, 0);
    // Within the grace period the agent still shows Online (a reload must not flicker).
    expect((await user(agent.id)).status).toBe('ONLINE');
    await pass(GRACE_MS);
    await waitFor(statusIs(agent.id, 'OFFLINE'), 'the agent Offline');
    const u = await user(agent.id);
    expect(Number(u.last_seen_at)).toBeGreaterThanOrEqual(closedAt + GRACE_MS - 50);
    expect(Number(u.status_since)).toBe(Number(u.last_seen_at));
    await waitFor(() => heard.some((e) => e.userId === agent.id && e.status === 'OFFLINE'), 'the Offline event');
    expect(heard.filter((e) => e.userId === agent.id).map((e) => e.status)).toEqual(['ONLINE', 'OFFLINE']);
    expect((await periods(agent.id)).map((p) => [p.status, p.ended_at === null])).toEqual([
      ['ONLINE', false],
      ['OFFLINE', true],
    ]);
    const row = (await call('GET', '/status/get', { token: admin.token })).body.data.find(
      (r: { userId: number }) => r.userId === agent.id,
    );
    expect(row).toMatchObject({ status: 'OFFLINE', last_seen: Number(u.last_seen_at) });
  });

  it('STATUS-04 STATUS-06 the grace runs from the last close: an older tab closed earlier does not cut it short', async () => {
    const { admin, agent } = await account();
    const watcher = await socket(admin.token);
    const heard = collect(watcher, 'statusUpdated');
    const old = await socket(agent.token);
    const last = await socket(agent.token);
    await waitFor(async () => (await connections(agent.id)).length === 2, 'two connection rows');
    old.disconnect();
    await closeHandled(agent.id, 1);
    await pass(GRACE_MS * 0.6);
    const lastClosed = clock();
    last.disconnect();
    await closeHandled(agent.id, 0);
    await pass(GRACE_MS);
    await waitFor(statusIs(agent.id, 'OFFLINE'), 'the agent Offline');
    // Offline a whole grace after the last close, not when the older close's grace ran out.
    const u = await user(agent.id);
    expect(Number(u.status_since)).toBeGreaterThanOrEqual(lastClosed + GRACE_MS - 50);
    await waitFor(() => heard.some((e) => e.userId === agent.id && e.status === 'OFFLINE'), 'the Offline event');
    expect(heard.filter((e) => e.userId === agent.id).map((e) => e.status)).toEqual(['ONLINE', 'OFFLINE']);
  });

  it('STATUS-04 two sockets of one user: closing one keeps the user Online; a quick reconnect never flickers', async () => {
    const { admin, agent } = await account();
    const watcher = await socket(admin.token);
    const heard = collect(watcher, 'statusUpdated');
    const one = await socket(agent.token);
    const two = await socket(agent.token);
    await waitFor(async () => (await connections(agent.id)).length === 2, 'two connection rows');

    one.disconnect();
    await closeHandled(agent.id, 1);
    await pass(GRACE_MS + 300);
    expect((await user(agent.id)).status).toBe('ONLINE');
    expect((await connections(agent.id)).map((c) => c.socket_id)).toEqual([two.id]);

    // A reload: the last socket closes and a new one opens within the grace period.
    two.disconnect();
    await closeHandled(agent.id, 0);
    await socket(agent.token);
    // The clock only moves by hand: let the new socket's row land before the grace is passed, as it would
    // within a real grace of seconds.
    await closeHandled(agent.id, 1);
    await pass(GRACE_MS + 300);
    expect((await user(agent.id)).status).toBe('ONLINE');
    expect(heard.filter((e) => e.userId === agent.id).map((e) => e.status)).toEqual(['ONLINE']);
    expect(await periods(agent.id)).toEqual([{ status: 'ONLINE', reason: '', ended_at: null }]);
  });

  it('STATUS-14 tellOnline is idempotent, and brings back an agent shown Offline while connected', async () => {
    const { agent } = await account();
    const sock = await socket(agent.token);
    await waitFor(statusIs(agent.id, 'ONLINE'), 'the agent Online');
    const before = await periods(agent.id);
    sock.emit('tellOnline');
    sock.emit('tellOnline');
    // A later event on the same socket, answered: the two before it have reached presence by then.
    await new Promise((r) => sock.emit('getAnnouncement', r));
    await s.presence.settled();
    expect(await periods(agent.id)).toEqual(before);
    expect(await connections(agent.id)).toHaveLength(1);

    // Shown Offline (say, a sweep while this node was stalled): the client's tellOnline fixes it.
    await db().updateTable('users').set({ status: 'OFFLINE' }).where('id', '=', agent.id).execute();
    sock.emit('tellOnline');
    await waitFor(statusIs(agent.id, 'ONLINE'), 'the agent Online again');
    expect((await periods(agent.id)).map((p) => p.status)).toEqual(['ONLINE', 'ONLINE']);
  });

  it('STATUS-03 a chosen status outlives a disconnect: Offline while away, the choice again on return', async () => {
    const { admin, agent } = await account();
    const watcher = await socket(admin.token);
    const heard = collect(watcher, 'statusUpdated');
    const sock = await socket(agent.token);
    await waitFor(statusIs(agent.id, 'ONLINE'), 'the agent Online');
    expect(
      (
        await call('POST', '/api/online_status/update', {
          token: agent.token,
          body: { status: 'AWAY', reason: 'Errand' },
        })
      ).status,
    ).toBe(200);
    sock.disconnect();
    await closeHandled(agent.id, 0);
    await pass(GRACE_MS);
    await waitFor(statusIs(agent.id, 'OFFLINE'), 'the agent Offline');
    expect(await user(agent.id)).toMatchObject({ second_status: 'AWAY', status_reason: 'Errand' });

    await socket(agent.token);
    await waitFor(statusIs(agent.id, 'ONLINE'), 'the agent back');
    expect((await periods(agent.id)).map((p) => [p.status, p.reason])).toEqual([
      ['ONLINE', ''],
      ['AWAY', 'Errand'],
      ['OFFLINE', ''],
      ['AWAY', 'Errand'],
    ]);
    await waitFor(() => heard.filter((e) => e.userId === agent.id).length === 4, 'four events');
    expect(heard.filter((e) => e.userId === agent.id).map((e) => [e.status, e.second_status, e.reason])).toEqual([
      ['ONLINE', '', ''],
      ['ONLINE', 'AWAY', 'Errand'],
      ['OFFLINE', 'AWAY', 'Errand'],
      ['ONLINE', 'AWAY', 'Errand'],
    ]);
  });

  it('STATUS-04 the scheduled sweep drops the rows of a dead node and sets its users Offline', async () => {
    const { admin, agent } = await account();
    const live = await addUserVia(call, admin.token, { username: `live-${uniq()}`, type: 'agent' });
    await socket(live.token);
    await waitFor(statusIs(live.id, 'ONLINE'), 'the live agent Online');
    // A node that crashed a minute ago, leaving the agent's connection behind.
    const long = Date.now() - 60_000;
    const dead = `dead-${uniq()}`;
    await db().insertInto('nodes').values({ node_id: dead, seen_at: long }).execute();
    await db()
      .insertInto('user_connections')
      .values({
        socket_id: `${dead}-1`,
        account_id: admin.accountId,
        user_id: agent.id,
        node_id: dead,
        connected_at: long,
      })
      .execute();
    await db().updateTable('users').set({ status: 'ONLINE', status_since: long }).where('id', '=', agent.id).execute();

    await pass(HEARTBEAT_MS); // the sweep's period
    await waitFor(statusIs(agent.id, 'OFFLINE'), 'the dead node’s agent Offline');
    expect(await connections(agent.id)).toEqual([]);
    expect(await db().selectFrom('nodes').select('node_id').where('node_id', '=', dead).execute()).toEqual([]);
    expect(Number((await user(agent.id)).last_seen_at)).toBeGreaterThan(long);
    // This node and its users are untouched.
    expect((await user(live.id)).status).toBe('ONLINE');
    expect(await connections(live.id)).toHaveLength(1);
    expect(await db().selectFrom('nodes').select('node_id').where('node_id', '=', s.nodeId).execute()).toHaveLength(1);
  });

  it('STATUS-04 a node taken for dead puts its sockets back on its next heartbeat', async () => {
    const { agent } = await account();
    const sock = await socket(agent.token);
    await waitFor(async () => (await connections(agent.id)).length === 1, 'the connection row');
    await db().deleteFrom('nodes').where('node_id', '=', s.nodeId).execute();
    await db().deleteFrom('user_connections').where('node_id', '=', s.nodeId).execute();
    await pass(HEARTBEAT_MS);
    await waitFor(async () => (await connections(agent.id)).length === 1, 'the row put back');
    expect((await connections(agent.id))[0]!.socket_id).toBe(sock.id);
    await waitFor(statusIs(agent.id, 'ONLINE'), 'the agent Online');
  });

  // SQLite runs as one node: two servers in one process would block each other on the file lock.
  it.skipIf(dialect === 'sqlite')(
    'STATUS-04 across two nodes: a user connected to both stays Online when one closes; a closing node removes its rows',
    async () => {
      const { agent } = await account();
      const two: Parley = await createParley(
        testConfig({
          DATABASE_URL: s.config.DATABASE_URL,
          NODE_ID: `node-two-${uniq()}`,
          PRESENCE_GRACE_MS: String(GRACE_MS),
          PRESENCE_HEARTBEAT_MS: String(HEARTBEAT_MS),
        }),
        { logger: pino({ level: 'silent' }), clock },
      );
      let closed = false;
      try {
        const port = await two.listen();
        await socket(agent.token);
        await connectSocket(`http://127.0.0.1:${port}`, agent.token, opened);
        // Time passes with the nodes' heartbeats (a node silent on this clock would be taken for dead).
        await waitFor(async () => {
          await pass(HEARTBEAT_MS);
          return (await connections(agent.id)).length === 2;
        }, 'a row on each node');
        expect((await connections(agent.id)).map((c) => c.node_id).sort()).toEqual([s.nodeId, two.nodeId].sort());

        await two.close();
        closed = true;
        expect((await connections(agent.id)).map((c) => c.node_id)).toEqual([s.nodeId]);
        expect(await db().selectFrom('nodes').select('node_id').where('node_id', '=', two.nodeId).execute()).toEqual(
          [],
        );
        await pass(GRACE_MS + 3 * HEARTBEAT_MS);
        // What the scheduled sweep would do by now, done here so its answer is in before the check.
        await s.presence.sweep();
        expect((await user(agent.id)).status).toBe('ONLINE');
      } finally {
        if (!closed) await two.close();
      }
    },
  );

  it('STATUS-04 a node that shuts down removes its rows; its users go Offline by the sweep once the grace has passed', async () => {
    const { admin, agent } = await account();
    const other = new Presence({
      db: db(),
      nodeId: `node-other-${uniq()}`,
      log: pino({ level: 'silent' }),
      graceMs: GRACE_MS,
      heartbeatMs: HEARTBEAT_MS,
      clock,
    });
    await other.start();
    const who = { accountId: admin.accountId, userId: agent.id };
    await other.connected(who, `other-${uniq()}`);
    expect((await user(agent.id)).status).toBe('ONLINE');
    expect((await connections(agent.id)).map((c) => c.node_id)).toEqual([other.nodeId]);

    // No disconnect is seen (the process stops): close() alone must leave nothing behind.
    await other.close();
    expect(await connections(agent.id)).toEqual([]);
    expect(await db().selectFrom('nodes').select('node_id').where('node_id', '=', other.nodeId).execute()).toEqual([]);
    await pass(GRACE_MS + HEARTBEAT_MS);
    await waitFor(statusIs(agent.id, 'OFFLINE'), 'the agent Offline');
  });
});
