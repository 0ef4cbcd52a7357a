import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClient } from '@tanstack/react-query';
import { Server } from 'socket.io';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveChatKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';
import { waitFor } from '../../testing/waitFor.test-support';
import { refreshLiveChatUnread } from './liveChatUnread';

/** The app's realtime client against a real socket.io server that answers refreshLiveChatUnreadCount. */
describe('the live chat unread count', () => {
  let http: HttpServer;
  let io: Server;
  let answer: unknown = { ok: true, unread: 3 };
  const asked: string[] = [];
  const g = globalThis as { location?: unknown };
  const hadLocation = 'location' in g;
  const location = g.location;

  beforeAll(async () => {
    http = createServer();
    io = new Server(http, { path: '/socket.io' });
    io.on('connection', (s) => {
      s.on('refreshLiveChatUnreadCount', (ack: (r: unknown) => void) => {
        asked.push(s.id);
        ack(answer);
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    g.location = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
  });
  afterAll(async () => {
    realtime.disconnect();
    if (hadLocation) g.location = location;
    else delete g.location;
    await io?.close();
  });

  it('RT-19 refreshLiveChatUnreadCount is asked over the socket and its answer feeds the Live Chats badge', async () => {
    const qc = new QueryClient();
    // Offline: nothing is asked, nothing changes.
    expect(await refreshLiveChatUnread(qc)).toBeNull();
    expect(qc.getQueryData(liveChatKeys.unread)).toBeUndefined();
    realtime.connect();
    await waitFor(() => realtime.connected, 'connected');
    expect(await refreshLiveChatUnread(qc)).toBe(3);
    expect(qc.getQueryData(liveChatKeys.unread)).toBe(3);
    expect(asked).toHaveLength(1);
    // The server could not say: the badge keeps what it had.
    answer = { ok: false, error: 'Unavailable.' };
    expect(await refreshLiveChatUnread(qc)).toBeNull();
    expect(qc.getQueryData(liveChatKeys.unread)).toBe(3);
  });
});
