import type { VisitorClientToServer, VisitorServerToClient } from '@parley/contracts';
import { io, type Socket } from 'socket.io-client';
import type { Call } from '../../testing/api.js';

export type VisitorClient = Socket<VisitorServerToClient, VisitorClientToServer>;

/** A visitor socket on the `/visitor` namespace, resolved when connected (rejected when refused). */
export async function connectVisitor(url: string, token: string, csrf: string, opened: { close(): void }[] = []) {
  const s: VisitorClient = io(`${url}/visitor`, {
    transports: ['websocket'],
    auth: { token, csrf },
    reconnection: false,
    forceNew: true,
  });
  opened.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', (e) => reject(e));
  });
  return s;
}

export const form = (name: string) => ({
  name,
  phone: '0123',
  email: `${name}@example.com`,
  message: `Hello from ${name}`,
});

/** info, a socket, registerQueue: a queued visitor with its place. */
export async function queueVisitor(call: Call, url: string, token: string, name: string, opened: { close(): void }[]) {
  const info = await call('POST', '/api/livechat/info', { body: { token } });
  if (info.status !== 200) throw new Error(`info failed: ${info.text}`);
  const csrf = info.body.csrf as string;
  const socket = await connectVisitor(url, token, csrf, opened);
  const places: number[] = [];
  socket.on('queueNumber', (n) => places.push(n));
  const accepted: number[] = [];
  socket.on('queueAccepted', (e) => accepted.push(e.data.ticket_id));
  const r = await socket.emitWithAck('registerQueue', { token, csrf, ...form(name) });
  if (!r.ok) throw new Error(`registerQueue failed: ${r.error}`);
  return { csrf, socket, places, accepted, queue: r.queue };
}
