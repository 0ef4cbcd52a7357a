import type { VisitorClientToServer, VisitorServerToClient } from '@parley/contracts';
import { io, type Socket } from 'socket.io-client';
import type { DB } from '../platform/db/db.js';
import { addUserVia, type Call, signUpVia, uniq } from './api.js';

export type VisitorClient = Socket<VisitorServerToClient, VisitorClientToServer>;

let visitors = 0;
/**
 * A made-up address for the next test visitor, sent as X-Forwarded-For: a server started with
 * TRUST_PROXY=true counts each visitor's register calls on its own, as it would for visitors on the web
 * (they all come from 127.0.0.1 here). Only a header: nothing is sent to it.
 */
export const nextVisitorIp = () => {
  visitors += 1;
  return `127.${(visitors >> 16) & 255}.${(visitors >> 8) & 255}.${visitors & 255}`;
};

/** A visitor socket on the `/visitor` namespace, resolved when connected (rejected when refused). */
export async function connectVisitor(
  url: string,
  token: string,
  csrf: string,
  opened: { close(): void }[] = [],
  ip?: string,
) {
  const s: VisitorClient = io(`${url}/visitor`, {
    transports: ['websocket'],
    auth: { token, csrf },
    reconnection: false,
    forceNew: true,
    ...(ip ? { extraHeaders: { 'x-forwarded-for': ip } } : {}),
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

/** info, a socket, registerQueue: a queued visitor with its place (from its own address, see nextVisitorIp). */
export async function queueVisitor(
  call: Call,
  url: string,
  token: string,
  name: string,
  opened: { close(): void }[],
  ip = nextVisitorIp(),
) {
  const info = await call('POST', '/api/livechat/info', { body: { token }, headers: { 'x-forwarded-for': ip } });
  if (info.status !== 200) throw new Error(`info failed: ${info.text}`);
  const csrf = info.body.csrf as string;
  const socket = await connectVisitor(url, token, csrf, opened, ip);
  const places: number[] = [];
  socket.on('queueNumber', (n) => places.push(n));
  const accepted: number[] = [];
  socket.on('queueAccepted', (e) => accepted.push(e.data.ticket_id));
  const r = await socket.emitWithAck('registerQueue', { token, csrf, ...form(name) });
  if (!r.ok) throw new Error(`registerQueue failed: ${r.error}`);
  return { csrf, socket, places, accepted, queue: r.queue, ip };
}

/**
 * A new account on a plan with `n` agents, all plainly ONLINE (set in the database: no socket needed),
 * everyone else OFFLINE; its visitor link token.
 */
export async function liveChatAccount(call: Call, db: DB, n: number, plan = 1) {
  const admin = await signUpVia(call);
  await db.updateTable('accounts').set({ plan }).where('id', '=', admin.accountId).execute();
  const agents: Awaited<ReturnType<typeof addUserVia>>[] = [];
  for (let i = 0; i < n; i++)
    agents.push(await addUserVia(call, admin.token, { username: `ag${i}-${uniq()}`, type: 'agent' }));
  await db.updateTable('users').set({ status: 'OFFLINE' }).where('account_id', '=', admin.accountId).execute();
  if (agents.length > 0)
    await db
      .updateTable('users')
      .set({ status: 'ONLINE', second_status: '' })
      .where(
        'id',
        'in',
        agents.map((a) => a.id),
      )
      .execute();
  const s = await call('GET', '/api/livechat/settings', { token: admin.token });
  if (s.status !== 200) throw new Error(`settings failed: ${s.text}`);
  return { admin, agents, token: s.body.data.token as string };
}
