import { SESSION_COOKIE } from '@parley/contracts';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

interface Ev {
  name: string;
  seq: number;
  data: { userId?: number; username?: string; status?: string; second_status?: string; reason?: string };
}
interface CatchUp {
  events: Ev[];
  head: number;
  complete: boolean;
}

/** A socket that records its catch-up and every live `statusUpdated`. */
interface Client {
  socket: Socket;
  live: Ev[];
  catchUp: Promise<CatchUp>;
}

describe.each(dialects)('realtime (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const open: Socket[] = [];

  /** Connects and resolves once the server has accepted the socket (or rejects with the connect_error). */
  function client(auth: Record<string, unknown> | undefined): Client {
    const socket = connect(s.url, { transports: ['websocket'], auth, reconnection: false, forceNew: true });
    open.push(socket);
    const live: Ev[] = [];
    socket.on('statusUpdated', (e: { seq: number; data: Ev['data'] }) =>
      live.push({ name: 'statusUpdated', seq: e.seq, data: e.data }),
    );
    const catchUp = new Promise<CatchUp>((resolve, reject) => {
      socket.once('connect_error', reject);
      socket.once('catchUp', resolve);
    });
    catchUp.catch(() => {});
    return { socket, live, catchUp };
  }

  /** What the server said when it refused the socket. */
  async function refusal(auth: Record<string, unknown> | undefined): Promise<string> {
    const c = client(auth);
    const err = await c.catchUp.then(
      () => null,
      (e: Error) => e,
    );
    expect(err, 'the socket should have been refused').toBeInstanceOf(Error);
    expect(c.socket.connected).toBe(false);
    return (err as Error).message;
  }

  const setStatus = async (token: string, reason: string) => {
    const r = await call('POST', '/api/online_status/update', { token, body: { status: 'AWAY', reason } });
    expect(r.status, r.text).toBe(200);
    return r.body.data;
  };

  beforeAll(async () => {
    // A long presence grace: a socket that closes must not emit an Offline event in the middle of a test.
    s = await startTestServer(dialect, { PRESENCE_GRACE_MS: '600000' });
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const so of open.splice(0)) so.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('AUTH-11 a cookie handshake from another origin is refused; our own origin and a token handshake connect', async () => {
    const a = await signUpVia(call);
    const host = new URL(s.url).host;
    const cookie = `${SESSION_COOKIE}=${a.token}`;
    /** A real client sending the session cookie and the given headers over one transport. */
    const attempt = (transport: 'websocket' | 'polling', headers: Record<string, string>, token?: string) => {
      const socket = connect(s.url, {
        transports: [transport],
        reconnection: false,
        forceNew: true,
        extraHeaders: { cookie, ...headers },
        ...(token ? { auth: { token } } : {}),
      });
      open.push(socket);
      return new Promise<string>((resolve) => {
        socket.once('catchUp', () => resolve('connected'));
        socket.once('connect_error', (err) => resolve(err.message));
      });
    };
    for (const transport of ['websocket', 'polling'] as const) {
      // A page of another site, or of another origin of the same site (a sibling host or port), is refused.
      expect(await attempt(transport, { origin: 'https://evil.example' }), transport).toBe('cross-site');
      expect(await attempt(transport, { origin: `http://evil.${host}` }), transport).toBe('cross-site');
      expect(await attempt(transport, { origin: 'http://127.0.0.1:1' }), transport).toBe('cross-site');
      expect(await attempt(transport, { origin: 'null' }), transport).toBe('cross-site');
      expect(await attempt(transport, { referer: 'https://evil.example/page' }), transport).toBe('cross-site');
      expect(await attempt(transport, { 'sec-fetch-site': 'cross-site' }), transport).toBe('cross-site');
      // Our own page: Origin names this host.
      expect(await attempt(transport, { origin: s.url }), transport).toBe('connected');
      // A token handshake carries no ambient credential: the Origin does not matter.
      expect(await attempt(transport, { origin: 'https://evil.example' }, a.token), transport).toBe('connected');
    }
    // A same-origin polling GET may carry no Origin: its Referer (or Sec-Fetch-Site) says where it comes from.
    expect(await attempt('polling', { referer: `${s.url}/tickets`, 'sec-fetch-site': 'same-origin' })).toBe(
      'connected',
    );
  });

  it('FOUNDATION REALTIME a socket without a token or with a bad token is refused; a valid token connects', async () => {
    const a = await signUpVia(call);

    expect(await refusal(undefined)).toBe('unauthorized');
    expect(await refusal({})).toBe('unauthorized');
    expect(await refusal({ token: 'not-a-real-token' })).toBe('unauthorized');
    expect(await refusal({ token: `${a.token}x` })).toBe('unauthorized');
    // The refresh token is not an access token.
    expect(await refusal({ token: a.refreshToken })).toBe('unauthorized');
    // A handshake that does not match the contract is refused before any lookup.
    expect(await refusal({ token: 12345 })).toBe('invalid handshake');
    expect(await refusal({ token: a.token, lastSeq: -1 })).toBe('invalid handshake');
    expect(await refusal({ token: 'x'.repeat(5000) })).toBe('invalid handshake');
    // A cookie sent from our own page is not enough either when it is not a valid session.
    const viaBadCookie = connect(s.url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { cookie: `${SESSION_COOKIE}=nope`, origin: s.url },
    });
    open.push(viaBadCookie);
    const cookieErr = await new Promise<Error>((resolve) => viaBadCookie.once('connect_error', resolve));
    expect(cookieErr.message).toBe('unauthorized');
    // The HttpOnly session cookie is accepted in place of the handshake token (from our own page: a browser
    // always sends Origin with a WebSocket).
    const viaCookie = connect(s.url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { cookie: `${SESSION_COOKIE}=${a.token}`, origin: s.url },
    });
    open.push(viaCookie);
    await new Promise<void>((resolve, reject) => {
      viaCookie.once('catchUp', () => resolve());
      viaCookie.once('connect_error', reject);
    });
    expect(viaCookie.connected).toBe(true);

    const ok = client({ token: a.token });
    const first = await ok.catchUp;
    expect(ok.socket.connected).toBe(true);
    // A first connection (no lastSeq) is told the head and nothing else.
    expect(first.events).toEqual([]);
    expect(first.complete).toBe(true);
    expect(first.head).toBeGreaterThanOrEqual(0);

    // A signed-out session's token no longer connects.
    const out = await call('DELETE', '/api/user/signout', { token: a.token });
    expect(out.status).toBe(200);
    expect(await refusal({ token: a.token })).toBe('unauthorized');
  });

  it('FOUNDATION REALTIME a status change reaches every socket of the same account and none of another account', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const b = await signUpVia(call);
    const bAgent = await addUserVia(call, b.token, { username: `bagent-${uniq()}`, type: 'agent' });
    const accountA = new Set([a.username, agent.username]);
    const accountB = new Set([b.username, bAgent.username]);

    const admin = client({ token: a.token });
    const mate = client({ token: agent.token });
    const other = client({ token: b.token });
    const otherAgent = client({ token: bAgent.token });
    await Promise.all([admin.catchUp, mate.catchUp, other.catchUp, otherAgent.catchUp]);

    const reason = `lunch ${uniq()}`;
    const state = await setStatus(agent.token, reason);
    expect(state).toMatchObject({ username: agent.username, status: 'ONLINE', second_status: 'AWAY', reason });
    const seen = (c: Client) => c.live.some((e) => e.data.reason === reason);
    await waitFor(
      () => seen(admin) && seen(mate),
      () => `statusUpdated on both sockets of account A (admin ${seen(admin)}, agent ${seen(mate)})`,
      5_000,
    );
    const ev = admin.live.find((e) => e.data.reason === reason)!;
    expect(ev.seq).toBeGreaterThan(0);
    expect(ev.data).toMatchObject({ userId: agent.id, username: agent.username, second_status: 'AWAY' });
    expect(mate.live.find((e) => e.data.reason === reason)).toEqual(ev);

    // A barrier: account B's own change arrives after A's was relayed (the relay delivers in commit order).
    const bReason = `meeting ${uniq()}`;
    await setStatus(b.token, bReason);
    await waitFor(
      () => [other, otherAgent].every((c) => c.live.some((e) => e.data.reason === bReason)),
      () => 'statusUpdated of account B on its own sockets',
      5_000,
    );
    for (const c of [other, otherAgent]) {
      expect(c.live.filter((e) => e.data.reason === reason)).toEqual([]);
      const foreign = c.live.filter((e) => !accountB.has(e.data.username ?? ''));
      expect(foreign, 'account B saw events of another account').toEqual([]);
    }
    for (const c of [admin, mate]) {
      expect(c.live.filter((e) => e.data.reason === bReason)).toEqual([]);
      expect(c.live.filter((e) => !accountA.has(e.data.username ?? ''))).toEqual([]);
    }
  });

  it('FOUNDATION REALTIME reconnecting with the last applied seq delivers the missed events, and GET /api/events returns them, scoped to the account', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const b: SignedUp = await signUpVia(call);

    const first = client({ token: a.token });
    const initial = await first.catchUp;
    await setStatus(agent.token, `seen ${uniq()}`);
    await waitFor(
      () => first.live.some((e) => e.data.username === agent.username && e.data.second_status === 'AWAY'),
      () => 'a live event before the disconnect',
      5_000,
    );
    // The client's last applied seq: the head it was told, or the last live event since.
    const lastSeq = Math.max(initial.head, ...first.live.map((e) => e.seq));
    first.socket.disconnect();

    // While it is away: three changes in its account, and some in another account.
    const missed = [`missed-0 ${uniq()}`, `missed-1 ${uniq()}`, `missed-2 ${uniq()}`];
    for (const [i, reason] of missed.entries()) {
      await setStatus(agent.token, reason);
      await setStatus(b.token, `elsewhere-${i} ${uniq()}`);
    }

    const back = client({ token: a.token, lastSeq });
    const caught = await back.catchUp;
    expect(caught.complete).toBe(true);
    const replayed = caught.events.filter((e) => missed.includes(e.data.reason ?? ''));
    expect(replayed.map((e) => e.data.reason)).toEqual(missed);
    expect(replayed.every((e) => e.name === 'statusUpdated' && e.data.username === agent.username)).toBe(true);
    // Nothing at or before lastSeq again; in order; nothing of the other account.
    const seqs = caught.events.map((e) => e.seq);
    expect(seqs.every((q) => q > lastSeq)).toBe(true);
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    expect(caught.events.filter((e) => e.data.username === b.username)).toEqual([]);
    expect(caught.head).toBeGreaterThanOrEqual(replayed.at(-1)!.seq);

    // Catch-up over HTTP: the same events after the same seq.
    const overHttp = await call('GET', `/api/events?after=${lastSeq}`, { token: a.token });
    expect(overHttp.status, overHttp.text).toBe(200);
    expect(overHttp.body.complete).toBe(true);
    const httpEvents: Ev[] = overHttp.body.events;
    expect(httpEvents.filter((e) => missed.includes(e.data.reason ?? '')).map((e) => e.seq)).toEqual(
      replayed.map((e) => e.seq),
    );
    for (const e of caught.events) expect(httpEvents, `seq ${e.seq} over HTTP`).toContainEqual(e);
    expect(httpEvents.every((e) => e.seq > lastSeq)).toBe(true);
    expect(httpEvents.filter((e) => e.data.username === b.username)).toEqual([]);
    // The agent, in the same account, sees the same account events.
    const forAgent = await call('GET', `/api/events?after=${lastSeq}`, { token: agent.token });
    expect(forAgent.body.events.filter((e: Ev) => missed.includes(e.data.reason ?? ''))).toEqual(replayed);

    // Another account asking from zero sees only its own events, even at the same seq numbers.
    const fromB = await call('GET', '/api/events?after=0', { token: b.token });
    expect(fromB.status).toBe(200);
    expect(fromB.body.events.length).toBeGreaterThan(0);
    expect(fromB.body.events.every((e: Ev) => e.data.username === b.username)).toBe(true);
    const socketB = client({ token: b.token, lastSeq: 0 });
    const caughtB = await socketB.catchUp;
    expect(caughtB.events.length).toBeGreaterThan(0);
    expect(caughtB.events.every((e) => e.data.username === b.username)).toBe(true);

    // Past the head there is nothing; without a token there is no answer.
    const none = await call('GET', `/api/events?after=${overHttp.body.head + 1000}`, { token: a.token });
    expect(none.body.events).toEqual([]);
    expect((await call('GET', `/api/events?after=${lastSeq}`)).status).toBe(401);
  });
});

describe('realtime behind a trusted proxy (sqlite)', () => {
  let s: Server;
  const open: Socket[] = [];
  beforeAll(async () => {
    s = await startTestServer('sqlite', { TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    for (const so of open.splice(0)) so.disconnect();
    await s?.stop();
  });

  it('AUTH-11 a cookie handshake is judged by the public host the proxy forwards, as HTTP is', async () => {
    const a = await signUpVia(apiClient(s.url));
    const attempt = (headers: Record<string, string>) => {
      const socket = connect(s.url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        extraHeaders: { cookie: `${SESSION_COOKIE}=${a.token}`, 'x-forwarded-host': 'parley.example', ...headers },
      });
      open.push(socket);
      return new Promise<string>((resolve) => {
        socket.once('catchUp', () => resolve('connected'));
        socket.once('connect_error', (err) => resolve(err.message));
      });
    };
    expect(await attempt({ origin: 'https://parley.example' })).toBe('connected');
    // The address the proxy itself reached is not the page's origin.
    expect(await attempt({ origin: s.url })).toBe('cross-site');
    expect(await attempt({ origin: 'https://evil.example' })).toBe('cross-site');
  });
});
