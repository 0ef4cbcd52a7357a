import type { ClientToServer, ServerToClient } from '@parley/contracts';
import { io, type Socket } from 'socket.io-client';

export type TestSocket = Socket<ServerToClient, ClientToServer>;

/** Polls `check` until it returns a truthy value; fails with `what` after `ms`. */
export async function waitFor<T>(check: () => Promise<T> | T, what: string, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A socket of a signed-in user, resolved once the server has sent its first catch-up (it is in its rooms). */
export async function connectSocket(url: string, token: string, opened: TestSocket[] = []): Promise<TestSocket> {
  const socket: TestSocket = io(url, {
    transports: ['websocket'],
    auth: { token },
    reconnection: false,
    forceNew: true,
  });
  opened.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect_error', (err) => reject(err));
    socket.once('catchUp', () => resolve());
  });
  return socket;
}

/** Everything a socket receives of one event, in order (the envelope's `data`). */
export function collect<
  E extends
    | 'statusUpdated'
    | 'announcementMessage'
    | 'labelsUpdated'
    | 'settingsChanged'
    | 'updateTicket'
    | 'newMessage'
    | 'textEmotion'
    | 'voiceEmotion'
    | 'newEmotion'
    | 'newContext',
>(socket: TestSocket, event: E): Parameters<ServerToClient[E]>[0]['data'][] {
  const got: Parameters<ServerToClient[E]>[0]['data'][] = [];
  (socket as unknown as { on(n: string, f: (e: { data: never }) => void): void }).on(event, (e) => got.push(e.data));
  return got;
}
