import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Node, startNode, stopAllNodes, stopNode } from '../../testing/nodes.js';
import { createWorkspaceVia, freshPostgres } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

/**
 * Two Parley nodes as two OS processes over one Postgres database and one Redis: the scale-out set-up
 * (ARCHITECTURE "Running"), with the Redis streams adapter carrying room broadcasts between nodes.
 *
 * Node B polls the outbox only once a minute, so an event committed on node A is always relayed by A:
 * when a socket on B sees it, it crossed the nodes through Redis. B still relays its own commands at
 * once (a commit wakes the local relay), and A's fast poll picks up whatever B left behind.
 */
const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

async function setStatus(node: Node, token: string, reason: string): Promise<void> {
  const res = await fetch(`${node.url}/api/online_status/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ status: 'AWAY', reason }),
  });
  if (res.status !== 200) throw new Error(`status update on ${node.name}: ${res.status} ${await res.text()}`);
}

async function waitUntilOnline(node: Node, token: string): Promise<void> {
  await waitFor(async () => {
    const res = await fetch(`${node.url}/api/status/me/get`, { headers: { authorization: `Bearer ${token}` } });
    const me = ((await res.json()) as { data: { status: string }[] }).data[0];
    return me?.status === 'ONLINE';
  }, `Online on ${node.name}`);
}

async function relayDelivered(node: Node): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const m = /^parley_relay_events_delivered\s+(\d+)/m.exec(text);
  if (!m) throw new Error(`no parley_relay_events_delivered in ${node.name}'s /metrics`);
  return Number(m[1]);
}

interface Ev {
  name: string;
  seq: number;
  data: { username?: string; reason?: string };
}

/**
 * The client's side of the sequence contract: apply each event once, in sequence order. Live events
 * that arrive before the catch-up wait for it; an event at or below the last applied seq is a repeat
 * and is ignored; one past a gap is held until the gap fills (in this account every event goes to the
 * account room, so the visible sequence has no legitimate gaps).
 */
class SeqClient {
  last = 0;
  applied: (Ev & { via: 'catchUp' | 'live' })[] = [];
  ignored = 0;
  held = new Map<number, Ev & { via: 'catchUp' | 'live' }>();
  catchUps: { head: number; complete: boolean; count: number }[] = [];
  socket: Socket | null = null;
  private ready = false;
  private early: Ev[] = [];

  constructor(
    private readonly token: string,
    /** Events of other test runs sharing the Redis stream are not ours. */
    private readonly username: string,
  ) {}

  async connect(node: Node, lastSeq?: number): Promise<void> {
    this.ready = false;
    this.early = [];
    const auth = lastSeq === undefined ? { token: this.token } : { token: this.token, lastSeq };
    const socket = connect(node.url, { transports: ['websocket'], auth, reconnection: false, forceNew: true });
    this.socket = socket;
    socket.on('statusUpdated', (e: { seq: number; data: Ev['data'] }) => {
      const ev: Ev = { name: 'statusUpdated', seq: e.seq, data: e.data };
      if (this.ready) this.offer(ev, 'live');
      else this.early.push(ev);
    });
    const caughtUp = new Promise<void>((resolve, reject) => {
      socket.once('connect_error', (err) => reject(new Error(`connect to ${node.name}: ${err.message}`)));
      socket.once('catchUp', (c: { events: Ev[]; head: number; complete: boolean }) => {
        this.catchUps.push({ head: c.head, complete: c.complete, count: c.events.length });
        // A first connection starts from the head; a reconnection applies what it missed.
        if (lastSeq === undefined) this.last = Math.max(this.last, c.head);
        for (const e of c.events) this.offer(e, 'catchUp');
        this.ready = true;
        for (const e of this.early) this.offer(e, 'live');
        this.early = [];
        resolve();
      });
    });
    await caughtUp;
  }

  disconnect(): void {
    this.socket?.disconnect();
    this.socket = null;
  }

  private offer(e: Ev, via: 'catchUp' | 'live'): void {
    if (e.data?.username !== this.username) return;
    if (e.seq <= this.last || this.held.has(e.seq)) {
      this.ignored++;
      return;
    }
    this.held.set(e.seq, { ...e, via });
    for (let next = this.held.get(this.last + 1); next; next = this.held.get(this.last + 1)) {
      this.held.delete(next.seq);
      this.applied.push(next);
      this.last = next.seq;
    }
  }
}

describe.skipIf(!enabled)('multi-node: two server processes on one Postgres and one Redis', () => {
  let a: Node;
  let b: Node;
  let dropDb: (() => Promise<void>) | null = null;
  let admin: Awaited<ReturnType<typeof createWorkspaceVia>>;
  const sockets: SeqClient[] = [];

  beforeAll(async () => {
    const pg = await freshPostgres();
    dropDb = pg.drop;
    const common = { DATABASE_URL: pg.url, REDIS_URL: process.env.TEST_REDIS_URL as string };
    // Both start at once, as a scaled-out deployment does: migrations must tolerate the race.
    [a, b] = await Promise.all([
      startNode('node-a', { ...common, RELAY_POLL_MS: '25' }),
      startNode('node-b', { ...common, RELAY_POLL_MS: '60000' }),
    ]);
    admin = await createWorkspaceVia(a.url);
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await stopAllNodes();
    await dropDb?.();
  }, 30_000);

  it('FOUNDATION multi-node: an event produced on node A reaches a socket connected to node B', async () => {
    // A first connection sets the user Online: a write, which the node that made it relays at once. Be
    // Online through A first, so that connecting to B writes (and B relays) nothing.
    const onA = new SeqClient(admin.token, admin.username);
    sockets.push(onA);
    await onA.connect(a);
    await waitUntilOnline(a, admin.token);
    const onB = new SeqClient(admin.token, admin.username);
    sockets.push(onB);
    await onB.connect(b);
    const deliveredByB = await relayDelivered(b);

    await setStatus(a, admin.token, 'made on A');
    await waitFor(
      () => onB.applied.some((e) => e.data.reason === 'made on A'),
      () => `statusUpdated on node B (node A logs: ${a.logs() || '-'}; node B logs: ${b.logs() || '-'})`,
      5_000,
    );

    const ev = onB.applied.find((e) => e.data.reason === 'made on A')!;
    expect(ev).toMatchObject({ name: 'statusUpdated', via: 'live', data: { username: admin.username } });
    expect(ev.seq).toBeGreaterThan(0);
    // Node A relayed it and node B did not: it reached B's socket through the Redis adapter.
    expect(await relayDelivered(a)).toBeGreaterThanOrEqual(1);
    expect(await relayDelivered(b)).toBe(deliveredByB);
    onB.disconnect();
  });

  it('FOUNDATION multi-node: a client that reconnects to the other node gets the 100 events it missed, in order, once each', async () => {
    const client = new SeqClient(admin.token, admin.username);
    sockets.push(client);
    await client.connect(a);
    const start = client.last;

    // Connected to A, it applies a few events live and remembers the last seq.
    for (const i of [0, 1, 2]) await setStatus(i % 2 ? b : a, admin.token, `seen-${i}`);
    await waitFor(
      () => client.last === start + 3,
      () => `3 live events on node A (last applied ${client.last}, started at ${start})`,
      5_000,
    );
    expect(client.applied.map((e) => e.data.reason)).toEqual(['seen-0', 'seen-1', 'seen-2']);
    client.disconnect();
    const lastSeq = client.last;

    // While it is away, 100 status changes happen on both nodes.
    for (let i = 0; i < 100; i++) await setStatus(i % 2 ? b : a, admin.token, `missed-${i}`);

    // It comes back on node B with the last seq it applied.
    const before = client.applied.length;
    await client.connect(b, lastSeq);
    await waitFor(
      () => client.last >= lastSeq + 100,
      () =>
        `100 missed events on node B (applied up to ${client.last}, expected ${lastSeq + 100}; held past a gap: ` +
        `[${[...client.held.keys()].sort((x, y) => x - y).join(',')}])`,
      10_000,
    );
    // Anything still in flight (a live copy of a caught-up event) must not change the result. One more event,
    // relayed after the 100 and carried by the same Redis stream, arrives after any such copy.
    await setStatus(a, admin.token, 'after the missed');
    await waitFor(
      () => client.applied.some((e) => e.data.reason === 'after the missed'),
      () => `the event after the missed ones (applied up to ${client.last})`,
    );
    expect(client.applied.at(-1)!.data.reason).toBe('after the missed');

    const missed = client.applied.slice(before, -1);
    expect(missed.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => lastSeq + 1 + i));
    expect(missed.map((e) => e.data.reason)).toEqual(Array.from({ length: 100 }, (_, i) => `missed-${i}`));
    expect(client.held.size).toBe(0);
    // The 100 missed events and the one after them.
    expect(client.last).toBe(lastSeq + 101);
    const catchUp = client.catchUps.at(-1)!;
    expect(catchUp.complete).toBe(true);
    expect(catchUp.head).toBeGreaterThanOrEqual(lastSeq + 100);
    expect(missed.filter((e) => e.via === 'catchUp').length).toBeGreaterThan(0);
    client.disconnect();
  });

  it("FOUNDATION TENANCY two installations sharing one Redis never receive each other's broadcasts", async () => {
    // Another company's installation: its own database, the same Redis. Its first account has the same id
    // as ours, so before each installation had its own stream its `account:1` events reached our sockets.
    // Its database carries every migration already (the run's template): migrating from empty beside two
    // busy nodes took most of the test's time on a loaded 2-core machine.
    const pg = await freshPostgres({ migrated: true });
    let other: Node | null = null;
    try {
      other = await startNode('other-install', {
        DATABASE_URL: pg.url,
        REDIS_URL: process.env.TEST_REDIS_URL as string,
        RELAY_POLL_MS: '25',
      });
      const theirs = await createWorkspaceVia(other.url);
      const ours = connect(b.url, { transports: ['websocket'], auth: { token: admin.token }, forceNew: true });
      const seen: string[] = [];
      ours.on('statusUpdated', (e: { data: { reason?: string } }) => seen.push(e.data.reason ?? ''));
      await new Promise<void>((resolve) => ours.once('catchUp', () => resolve()));
      // Their admin online on their installation: a socket of theirs, as any agent at work has.
      const theirSocket = connect(other.url, {
        transports: ['websocket'],
        auth: { token: theirs.token },
        forceNew: true,
      });
      const theirsSeen: string[] = [];
      theirSocket.on('statusUpdated', (e: { data: { reason?: string } }) => theirsSeen.push(e.data.reason ?? ''));
      await waitUntilOnline(other, theirs.token);
      await setStatus(other, theirs.token, 'their secret');
      // Their own socket has it: their installation has broadcast it before ours broadcasts the next one, so
      // had it reached our stream it would come before ours.
      await waitFor(() => theirsSeen.includes('their secret'), 'their event on their own socket');
      await setStatus(a, admin.token, 'ours after theirs');
      await waitFor(
        () => seen.includes('ours after theirs'),
        () => `our own event (seen ${JSON.stringify(seen)})`,
      );
      expect(seen).not.toContain('their secret');
      ours.disconnect();
      theirSocket.disconnect();
    } finally {
      if (other) await stopNode(other.child);
      await pg.drop().catch(() => undefined);
    }
  }, 60_000);
});
