import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Parley } from '../../app.js';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { type Cluster, startCluster } from '../../testing/cluster.js';
import { insertTicket } from '../../testing/messages.js';
import { connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, redisUrl, startTestServer } from '../../testing/support.js';

type Viewers = { ticketId: number; viewers: { username: string; name: string }[] };

/** The `ticketViewers` lists a socket received, newest last. */
function viewersSeen(socket: TestSocket) {
  const got: Viewers[] = [];
  socket.on('ticketViewers' as never, ((e: Viewers) => got.push(e)) as never);
  return got;
}
const names = (v: Viewers | undefined) => (v?.viewers.map((x) => x.name) ?? []).sort();

describe.each(dialects)('who is viewing a ticket (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const opened: TestSocket[] = [];

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('two agents open the same ticket: each hears both; leaving and disconnecting tell the other; another account hears nothing', async () => {
    const admin = await signUpVia(call);
    const bo = await addUserVia(call, admin.token, { username: `bo-${uniq()}`, type: 'agent', name: 'Bo' });
    const ticket = await insertTicket(s.handle.db, admin.accountId, { channel: 'EMAIL' });
    const a = await connectSocket(s.url, admin.token, opened);
    const b = await connectSocket(s.url, bo.token, opened);
    const seenA = viewersSeen(a);
    const seenB = viewersSeen(b);
    expect(await a.emitWithAck('joinRoom', ticket)).toEqual({ ok: true });
    await waitFor(() => names(seenA.at(-1)).length === 1, 'the first viewer hears itself');
    expect(await b.emitWithAck('joinRoom', ticket)).toEqual({ ok: true });
    await waitFor(() => names(seenA.at(-1)).includes('Bo'), 'A hears B arrive');
    await waitFor(() => names(seenB.at(-1)).length === 2, 'B hears both');
    expect(seenB.at(-1)!.ticketId).toBe(ticket);
    // A stranger cannot join, so it learns nothing.
    const stranger = await signUpVia(call);
    const c = await connectSocket(s.url, stranger.token, opened);
    const seenC = viewersSeen(c);
    expect((await c.emitWithAck('joinRoom', ticket)).ok).toBe(false);
    b.emit('leaveRoom', ticket);
    await waitFor(() => !names(seenA.at(-1)).includes('Bo'), 'A hears B leave');
    expect(await b.emitWithAck('joinRoom', ticket)).toEqual({ ok: true });
    await waitFor(() => names(seenA.at(-1)).includes('Bo'), 'B is back');
    b.disconnect();
    await waitFor(() => !names(seenA.at(-1)).includes('Bo'), 'A hears B disconnect');
    expect(seenC).toEqual([]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL || !redisUrl)('who is viewing, on two nodes (postgres + redis)', () => {
  let cluster: Cluster;
  let nodes: Parley[] = [];
  let urls: string[] = [];
  const opened: TestSocket[] = [];

  beforeAll(async () => {
    cluster = await startCluster(['view-a', 'view-b']);
    ({ nodes, urls } = cluster);
  });
  afterAll(async () => {
    for (const o of opened.splice(0)) o.disconnect();
    await cluster?.stop();
  });

  it('agents on different nodes see each other in the same ticket', async () => {
    const call = apiClient(urls[0]!);
    const admin = await signUpVia(call);
    const bo = await addUserVia(call, admin.token, { username: `bo-${uniq()}`, type: 'agent', name: 'Bo' });
    const ticket = await insertTicket(nodes[0]!.handle.db, admin.accountId, { channel: 'EMAIL' });
    const a = await connectSocket(urls[0]!, admin.token, opened);
    const b = await connectSocket(urls[1]!, bo.token, opened);
    const seenA = viewersSeen(a);
    expect(await a.emitWithAck('joinRoom', ticket)).toEqual({ ok: true });
    expect(await b.emitWithAck('joinRoom', ticket)).toEqual({ ok: true });
    await waitFor(() => names(seenA.at(-1)).length === 2, 'A on node A hears B on node B');
    b.disconnect();
    await waitFor(() => names(seenA.at(-1)).length === 1, 'and hears B go');
  });
});
