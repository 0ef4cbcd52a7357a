import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import type { Manager, Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor as until } from '../testing/waitFor.test-support';
import { GAP_FILL_PAGES, RETRY_MS, RealtimeClient } from './realtime';

/** The real client against a real socket.io server; the page's address is the server's (as in the browser). */
describe('the realtime client and its connection', () => {
  let http: HttpServer;
  let io: Server;
  const connected: ServerSocket[] = [];
  const toldOnline: string[] = [];
  const clients: RealtimeClient[] = [];
  const g = globalThis as { location?: unknown };
  const hadLocation = 'location' in g;
  const location = g.location;

  /** The account's stored events, as `GET /api/events` pages them (1,000 a page, as the server does). */
  let stored: { name: string; seq: number; data: unknown }[] = [];
  const asked: number[] = [];
  const PAGE = 1000;

  beforeAll(async () => {
    http = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname !== '/api/events') return res.writeHead(404).end();
      const after = Number(url.searchParams.get('after'));
      asked.push(after);
      const events = stored.filter((e) => e.seq > after).slice(0, PAGE);
      const complete = events.length < PAGE;
      const head = complete ? Math.max(after, stored.at(-1)?.seq ?? 0) : events.at(-1)!.seq;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ events, head, complete }));
    });
    io = new Server(http, { path: '/socket.io' });
    io.on('connection', (s) => {
      connected.push(s);
      s.on('tellOnline', () => toldOnline.push(s.id));
      s.emit('catchUp', { events: [], head: 0, complete: true });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    g.location = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect();
  });
  afterAll(async () => {
    if (hadLocation) g.location = location;
    else delete g.location;
    await io?.close();
  });

  const client = (opts: { gapFillMs?: number } = {}) => {
    const c = new RealtimeClient(opts);
    clients.push(c);
    return c;
  };
  const manager = (c: RealtimeClient) => (c as unknown as { socket: Socket }).socket.io as Manager;

  it('RT-04 RT-01 RT-14 a dropped connection is retried after 5 s, and every connect says tellOnline', async () => {
    const c = client();
    const states: boolean[] = [];
    c.onState((up) => states.push(up));
    c.connect();
    await until(() => c.connected && toldOnline.length === 1, 'the first connect and its tellOnline');
    // Always 5 s: no growing delay, no random spread.
    expect(RETRY_MS).toBe(5_000);
    const m = manager(c);
    expect([m.reconnection(), m.reconnectionDelay(), m.reconnectionDelayMax(), m.randomizationFactor()]).toEqual([
      true,
      5_000,
      5_000,
      0,
    ]);

    // The server side of the connection goes away (a network drop, a server restart).
    const dropped = Date.now();
    connected.at(-1)!.conn.close();
    await until(() => !c.connected, 'the client to see the drop');
    expect(states).toEqual([true, false]);
    await until(() => c.connected, 'the retry', 10_000);
    const waited = Date.now() - dropped;
    expect(waited).toBeGreaterThanOrEqual(4_900);
    expect(waited).toBeLessThan(8_000);
    expect(states).toEqual([true, false, true]);
    await until(() => toldOnline.length === 2, 'tellOnline again after the retry');
    expect(toldOnline[1]).toBe(connected.at(-1)!.id);
  }, 20_000);

  it('RT-03 RT-01 a manual disconnect is not retried; connect opens the socket again', async () => {
    const c = client();
    // A second client, dropped by the server after c disconnects: its retry comes after any of c's would.
    const witness = client();
    c.connect();
    witness.connect();
    await until(() => c.connected && witness.connected, 'connected');
    const before = connected.length;
    const serverSide = (x: RealtimeClient) => {
      const id = (x as unknown as { socket: Socket }).socket.id;
      return connected.find((s) => s.id === id)!;
    };
    const mine = serverSide(c);
    c.disconnect();
    expect([c.connected, c.isOpen()]).toEqual([false, false]);
    await until(() => mine.disconnected, 'the server to see the socket go');
    serverSide(witness).conn.close();
    await until(() => !witness.connected, 'the witness to see its drop');
    // Past the retry delay: the witness is back, c did not come back by itself.
    await until(() => witness.connected, 'the witness to retry', 2 * RETRY_MS + 5_000);
    expect(connected.length).toBe(before + 1);
    expect(connected.at(-1)!.id).toBe(serverSide(witness).id);
    expect(c.connected).toBe(false);
    c.connect();
    await until(() => c.connected, 'connected again');
    expect(connected.length).toBe(before + 2);
    expect(c.isOpen()).toBe(true);
  }, 30_000);

  it('RT-11 an ephemeral event (no envelope) reaches its handler on the first socket and on a new one after disconnect', async () => {
    const c = client();
    const seen: string[] = [];
    const off = c.onEphemeral('sendTyping', (e) => seen.push(e.username));
    c.connect();
    await until(() => c.connected, 'connected');
    connected.at(-1)!.emit('sendTyping', { ticketId: 1, username: 'ann', name: 'Ann' });
    await until(() => seen.length === 1, 'the first typing event');
    c.disconnect();
    c.connect();
    await until(() => c.connected, 'connected again');
    connected.at(-1)!.emit('sendTyping', { ticketId: 1, username: 'bob', name: 'Bob' });
    await until(() => seen.length === 2, 'the typing event on the new socket');
    off();
    // Events on one socket arrive in order: once the marker after it is in, the unsubscribed one was not seen.
    let marker = false;
    c.on('newMessage', () => {
      marker = true;
    });
    connected.at(-1)!.emit('sendTyping', { ticketId: 1, username: 'cy', name: 'Cy' });
    connected.at(-1)!.emit('newMessage', { seq: 1, data: {} });
    await until(() => marker, 'the marker event');
    expect(seen).toEqual(['ann', 'bob']);
  });

  /** A client that records the seq of every newMessage it applies and each resync. */
  const recording = () => {
    const c = client({ gapFillMs: 50 });
    const applied: number[] = [];
    const resyncs: number[] = [];
    c.on('newMessage', (_d, seq) => applied.push(seq));
    c.on('resync', (_d, head) => resyncs.push(head));
    return { c, applied, resyncs };
  };
  const events = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: 'newMessage', seq: i + 1, data: { n: i + 1 } }));

  it('RT-42 a live event ahead of the floor is filled from /api/events page after page, with no reload of the views', async () => {
    stored = events(2501);
    asked.length = 0;
    const { c, applied, resyncs } = recording();
    c.connect();
    await until(() => c.connected, 'connected');
    // Only the newest arrives live: 2,500 events were overtaken (another node, a busy relay).
    connected.at(-1)!.emit('newMessage', { seq: 2501, data: { n: 2501 } });
    await until(() => applied.length === 2501, 'every event applied', 10_000);
    expect(asked).toEqual([0, 1000, 2000]);
    expect(resyncs).toEqual([]);
    expect(applied[0]).toBe(2501);
    expect(applied.slice(1)).toEqual(stored.slice(0, 2500).map((e) => e.seq));
    // The floor is confirmed up to the newest: a reconnect asks for nothing older.
    expect((c as unknown as { seqs: { confirmed: number } }).seqs.confirmed).toBe(2501);
  }, 20_000);

  it('RT-42 a gap longer than 5 pages reloads the views once, then the fill goes on from there', async () => {
    expect(GAP_FILL_PAGES).toBe(5);
    stored = events(6201);
    asked.length = 0;
    const { c, applied, resyncs } = recording();
    c.connect();
    await until(() => c.connected, 'connected');
    connected.at(-1)!.emit('newMessage', { seq: 6201, data: { n: 6201 } });
    // Events more than 5,000 behind the newest are not replayed one by one (SeqTracker's window): the
    // views reload instead, once; the fill then goes on from the last page it took.
    await until(() => applied.length === 5000 && asked.length === 7, 'the fill to end', 10_000);
    expect(resyncs).toEqual([5000]);
    expect(asked).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000]);
    expect(applied.length).toBe(5000);
    expect(Math.min(...applied)).toBe(1202);
    expect((c as unknown as { seqs: { confirmed: number } }).seqs.confirmed).toBe(6201);
  }, 20_000);
});
