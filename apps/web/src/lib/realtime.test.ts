import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import type { Manager, Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_MS, RealtimeClient } from './realtime';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

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

  beforeAll(async () => {
    http = createServer();
    io = new Server(http, { path: '/socket.io' });
    io.on('connection', (s) => {
      connected.push(s);
      s.on('tellOnline', () => toldOnline.push(s.id));
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

  const client = () => {
    const c = new RealtimeClient();
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
    c.connect();
    await until(() => c.connected, 'connected');
    const before = connected.length;
    c.disconnect();
    expect([c.connected, c.isOpen()]).toEqual([false, false]);
    await until(() => connected.at(-1)!.disconnected, 'the server to see the socket go');
    // Longer than the retry delay: nothing comes back by itself.
    await sleep(RETRY_MS + 700);
    expect(connected.length).toBe(before);
    expect(c.connected).toBe(false);
    c.connect();
    await until(() => c.connected, 'connected again');
    expect(connected.length).toBe(before + 1);
    expect(c.isOpen()).toBe(true);
  }, 20_000);
});
