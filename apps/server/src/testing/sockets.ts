import { type ClientToServer, rooms, type ServerToClient } from '@parley/contracts';
import { io, type Socket } from 'socket.io-client';
import type { DB } from '../platform/db/db.js';
import { appendEvent, runCommand } from '../platform/outbox/index.js';
import { waitFor } from './waitFor.js';

export { waitFor };

export type TestSocket = Socket<ServerToClient, ClientToServer>;

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
    | 'ticketsMerged'
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

let marks = 0;

/**
 * The sentinel for "nothing arrived": appends a marker event for the account's room through the event spine
 * and waits until every one of `sockets` has it. An event committed before it on the same path would have
 * reached them by then, so a test can assert that one did not.
 */
export async function flushSockets(db: DB, accountId: number, sockets: TestSocket[], ms?: number): Promise<void> {
  const mark = ++marks;
  const heard = sockets.map((socket) => {
    const s = socket as unknown as {
      on(n: string, f: (e: { data: { mark: number } }) => void): void;
      off(n: string, f: (e: { data: { mark: number } }) => void): void;
    };
    return new Promise<void>((resolve) => {
      const on = (e: { data: { mark: number } }) => {
        if (e.data.mark !== mark) return;
        s.off('testMark', on);
        resolve();
      };
      s.on('testMark', on);
    });
  });
  await runCommand(db, (trx) =>
    appendEvent(trx, {
      accountId,
      type: 'test.mark',
      payload: { mark },
      realtime: { name: 'testMark', rooms: [rooms.account(accountId)] },
    }),
  );
  let n = 0;
  for (const h of heard) void h.then(() => n++);
  await waitFor(() => n === sockets.length, `the marker event on ${sockets.length} socket(s)`, ms);
}

/**
 * The sentinel for "no effect came of it" where no marker can follow the effect (a push, a notification a
 * listener writes, an event on a visitor's socket): waits until the relay has delivered every event the
 * account has committed so far. An event is marked delivered only once all its effects have run (its socket
 * writes too: an acknowledged call made on a socket after this is answered after them), in the transaction
 * that also commits the events its listeners append, so those are waited for too.
 */
export async function relayed(db: DB, accountId: number, ms?: number): Promise<void> {
  await waitFor(
    async () =>
      !(await db
        .selectFrom('events')
        .select('id')
        .where('account_id', '=', accountId)
        .where('delivered_at', 'is', null)
        .limit(1)
        .executeTakeFirst()),
    `every event of account ${accountId} delivered`,
    ms,
  );
}
