import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueOneTimeToken } from '../../modules/auth/oneTimeTokens.js';
import { addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { insertTicket } from '../../testing/messages.js';
import { type Node, startNode, stopAllNodes } from '../../testing/nodes.js';
import { connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, freshPostgres, startTestServer } from '../../testing/support.js';
import { type DB, openDatabase } from '../db/db.js';

/**
 * A socket lives no longer than its session. Ending a session (sign-out, Settings -> Sessions, a password
 * change for the other sessions, a password reset, the user's deactivation) disconnects its sockets on every
 * node at once: they get no later events, and a send that races the disconnect is refused and stores nothing.
 */

const SESSION_ENDED = 'Your session has ended. Please sign in again.';

interface Where {
  /** Where the HTTP calls that end sessions go. */
  api: string;
  /** Where the sockets connect. */
  sockets: string;
  db: DB;
}

type Path = 'sign-out' | 'ending the session in Settings' | 'password change' | 'password reset' | 'deactivation';
const PATHS: Path[] = [
  'sign-out',
  'ending the session in Settings',
  'password change',
  'password reset',
  'deactivation',
];

/** How a socket ended: the reason of its disconnect, or null while it is connected. */
function watch(socket: TestSocket) {
  const state = { reason: null as string | null, statuses: [] as string[] };
  socket.on('disconnect', (reason) => {
    state.reason = reason;
  });
  (socket as unknown as { on(n: string, f: (e: { data: { reason: string } }) => void): void }).on(
    'statusUpdated',
    (e) => state.statuses.push(e.data.reason),
  );
  return state;
}

async function messagesSaying(db: DB, ticketId: number, text: string): Promise<number> {
  const rows = await db
    .selectFrom('messages')
    .select('id')
    .where('ticket_id', '=', ticketId)
    .where('message', '=', text)
    .execute();
  return rows.length;
}

/** Ends an agent's session by `path` (through `where.api`) while a socket of it is open on `where.sockets`. */
async function endsItsSockets(where: Where, path: Path, opened: TestSocket[]): Promise<void> {
  const call: Call = apiClient(where.api);
  const admin = await signUpVia(call);
  const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent' });
  const ticket = await insertTicket(where.db, admin.accountId);
  // A second session of the agent: the one a password change ends, and the one ended from Settings.
  const second = (await signInVia(call, agent.username, agent.password)).body.token as string;
  const victimToken = path === 'password change' || path === 'ending the session in Settings' ? second : agent.token;
  const survivorToken = victimToken === second ? agent.token : null;

  const watcher = await connectSocket(where.sockets, admin.token, opened);
  const seen = watch(watcher);
  const victim = await connectSocket(where.sockets, victimToken, opened);
  const ended = watch(victim);
  const survivor = survivorToken ? await connectSocket(where.sockets, survivorToken, opened) : null;
  const stays = survivor ? watch(survivor) : null;

  let r: { status: number; text: string };
  if (path === 'sign-out') r = await call('DELETE', '/api/user/signout?current=1', { token: agent.token });
  else if (path === 'ending the session in Settings') {
    const list = await call('GET', '/api/user/sessions', { token: second });
    const id = (list.body.data as { id: number; current: boolean }[]).find((s) => s.current)!.id;
    r = await call('DELETE', `/api/user/sessions/${id}`, { token: agent.token });
  } else if (path === 'password change')
    r = await call('POST', '/api/user/password', {
      token: agent.token,
      body: { current: agent.password, password: 'a new password 2' },
    });
  else if (path === 'password reset') {
    const token = await issueOneTimeToken(where.db, {
      accountId: admin.accountId,
      userId: agent.id,
      purpose: 'reset',
      ttlMs: 3_600_000,
    });
    r = await call('POST', '/api/password_reset/confirm', { body: { token, password: 'a new password 3' } });
  } else r = await call('PATCH', `/api/users/${agent.id}`, { token: admin.token, body: { active: false } });
  expect(r.status, r.text).toBe(200);

  // A send right after the session ended, before or after the disconnect arrives: never stored.
  const text = `after ${path} ${uniq()}`;
  // The server's answer says the session ended; or the disconnect came first and the client gave up on it.
  const sent = await victim
    .timeout(2_000)
    .emitWithAck('newChatMessage', { ticket_id: ticket, message: text, type: 'text' })
    .catch((err: Error) => ({ ok: false as const, client: err.message }));
  expect(sent.ok, 'a send on an ended session was accepted').toBe(false);
  if ('client' in sent) expect(['operation has timed out', 'socket has been disconnected']).toContain(sent.client);
  else expect(sent).toEqual({ ok: false, error: SESSION_ENDED });

  await waitFor(() => ended.reason, `the socket of the ended session to be disconnected (${path})`);
  expect(ended.reason).toBe('io server disconnect');

  // A later event of the account reaches the admin's socket, and not the ended one.
  const later = `later ${uniq()}`;
  const set = await call('POST', '/api/online_status/update', {
    token: admin.token,
    body: { status: 'AWAY', reason: later },
  });
  expect(set.status, set.text).toBe(200);
  await waitFor(() => seen.statuses.includes(later), 'the admin socket to see the later event');
  if (stays) await waitFor(() => stays.statuses.includes(later), 'the surviving session to see the later event');
  // The ended socket was disconnected (and does not reconnect) before the later event was made.
  expect(ended.statuses).not.toContain(later);
  expect(await messagesSaying(where.db, ticket, text)).toBe(0);
  // The session it belonged to cannot open a new one.
  await expect(connectSocket(where.sockets, victimToken, opened)).rejects.toThrow('unauthorized');
  // A password change keeps the session that made it, and its socket.
  if (survivor) expect(survivor.connected && stays?.reason === null).toBe(true);
}

describe.each(dialects)('sockets end with their session (%s, one node)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  const opened: TestSocket[] = [];

  beforeAll(async () => {
    // A long presence grace: a closed socket must not put a user Offline in the middle of a test.
    s = await startTestServer(dialect, { PRESENCE_GRACE_MS: '600000' });
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(() => s?.stop());

  it.each(PATHS)('AUTH-29 %s disconnects the session’s sockets; a send on them stores nothing', async (path) => {
    await endsItsSockets({ api: s.url, sockets: s.url, db: s.handle.db }, path, opened);
  });

  it('a socket event on a session ended where no disconnect reached this node is refused and stores nothing', async () => {
    const call = apiClient(s.url);
    const admin = await signUpVia(call);
    const ticket = await insertTicket(s.handle.db, admin.accountId);
    const sock = await connectSocket(s.url, admin.token, opened);
    const ended = watch(sock);
    // As another node or process would: the row is revoked, and this node is not told.
    const me = await call('GET', '/api/user/sessions', { token: admin.token });
    const id = (me.body.data as { id: number; current: boolean }[]).find((x) => x.current)!.id;
    await s.handle.db.updateTable('sessions').set({ revoked_at: Date.now() }).where('id', '=', id).execute();
    const sent = await sock.emitWithAck('newChatMessage', {
      ticket_id: ticket,
      message: 'on a dead session',
      type: 'text',
    });
    expect(sent).toEqual({ ok: false, error: SESSION_ENDED });
    expect(await messagesSaying(s.handle.db, ticket, 'on a dead session')).toBe(0);
    await waitFor(() => ended.reason, 'the socket to be disconnected');
    expect(ended.reason).toBe('io server disconnect');
  });

  it('a live session keeps working over the socket (the check refuses only ended ones)', async () => {
    const call = apiClient(s.url);
    const admin = await signUpVia(call);
    const ticket = await insertTicket(s.handle.db, admin.accountId);
    const sock = await connectSocket(s.url, admin.token, opened);
    const sent = await sock.emitWithAck('newChatMessage', { ticket_id: ticket, message: 'still here', type: 'text' });
    expect(sent.ok).toBe(true);
    expect(await messagesSaying(s.handle.db, ticket, 'still here')).toBe(1);
  });
});

/** Two server processes on one Postgres and one Redis: the session ends through A, the socket is on B. */
describe.skipIf(!(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL))(
  'sockets end with their session (postgres, two nodes with Redis)',
  () => {
    let a: Node;
    let b: Node;
    let db: DB;
    let close: () => Promise<void>;
    let drop: () => Promise<void>;
    const opened: TestSocket[] = [];

    beforeAll(async () => {
      const pg = await freshPostgres();
      drop = pg.drop;
      const env = {
        DATABASE_URL: pg.url,
        REDIS_URL: process.env.TEST_REDIS_URL as string,
        PRESENCE_GRACE_MS: '600000',
      };
      [a, b] = await Promise.all([startNode('node-a', env), startNode('node-b', env)]);
      const h = openDatabase({ databaseUrl: pg.url, dataDir: a.dataDir, poolSize: 2 });
      db = h.db;
      close = h.close;
    }, 90_000);
    afterEach(() => {
      for (const o of opened.splice(0)) o.disconnect();
    });
    afterAll(async () => {
      await close?.();
      await stopAllNodes();
      await drop?.();
    }, 30_000);

    it.each(
      PATHS,
    )('AUTH-29 %s on node A disconnects the session’s sockets on node B; a send on them stores nothing', async (path) => {
      await endsItsSockets({ api: a.url, sockets: b.url, db }, path, opened);
    }, 20_000);
  },
);
