import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appendEvent, onCommitted, runCommand } from './platform/outbox/index.js';
import { apiClient, type Call } from './testing/api.js';
import { liveChatAccount, queueVisitor } from './testing/livechat.js';
import { waitFor } from './testing/sockets.js';
import { createAccount } from './testing/spine.js';
import { dialects, startTestServer } from './testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Two servers in one process (as the tests run them) share no state: each instance owns its own. */
describe.each(dialects)('two server instances in one process (%s)', (dialect) => {
  let a: Server;
  let b: Server;
  let callA: Call;
  const opened: { close(): void }[] = [];

  beforeAll(async () => {
    a = await startTestServer(dialect);
    // Created last: a process-wide hook would now point at this one.
    b = await startTestServer(dialect);
    callA = apiClient(a.url);
  });
  afterAll(async () => {
    for (const o of opened.splice(0)) o.close();
    await a?.stop();
    await b?.stop();
  });

  it("LIVECHAT-05 VISITOR-22 a chat taken over HTTP on one server tells that server's waiting visitors their places", async () => {
    const { agents, token } = await liveChatAccount(callA, a.handle.db, 1);
    const v1 = await queueVisitor(callA, a.url, token, 'Vera', opened);
    const v2 = await queueVisitor(callA, a.url, token, 'Walt', opened);
    await waitFor(() => v2.places.at(-1) === 2, 'v2 place 2');
    const taken = await callA('POST', '/api/livechat/accept', { token: agents[0]!.token, body: { id: null } });
    expect(taken.status, taken.text).toBe(200);
    await waitFor(() => v1.accepted.length === 1, 'v1 accepted');
    await waitFor(() => v2.places.at(-1) === 1, 'v2 moves up to 1 on its own server');
  });

  it("SPINE a command committed on one server wakes only that server's listeners", async () => {
    const heardA = vi.fn();
    const heardB = vi.fn();
    const stopA = onCommitted(a.handle.db, heardA);
    const stopB = onCommitted(b.handle.db, heardB);
    try {
      const accountId = await createAccount(a.handle.db, 'Two instances');
      await runCommand(a.handle.db, (trx) => appendEvent(trx, { accountId, type: 'test.instances', payload: {} }));
      expect(heardA).toHaveBeenCalledTimes(1);
      expect(heardB).not.toHaveBeenCalled();
    } finally {
      stopA();
      stopB();
    }
  });
});

describe('shutdown', () => {
  it('a client stalled mid-request holds the shutdown no longer than SHUTDOWN_GRACE_MS', async () => {
    const s = await startTestServer('sqlite', { SHUTDOWN_GRACE_MS: '200' });
    const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1');
    await new Promise((resolve) => sock.once('connect', resolve));
    const cut = new Promise((resolve) => sock.once('close', resolve));
    const seen = new Promise((resolve) => s.app.server.once('request', resolve));
    // The body promised is never sent in full: the request stays under way until the server gives up on it.
    sock.write(
      'POST /api/auth2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"client":',
    );
    // The server has the request (its headers) before the stop begins.
    await seen;
    const stopped = s.stop().then(() => 'stopped');
    // A bound on the stop, not a wait: the race fails the test rather than hang it.
    const late = new Promise((resolve) => setTimeout(resolve, 20_000, 'still open').unref());
    expect(await Promise.race([stopped, late])).toBe('stopped');
    await cut;
  }, 30_000);
});
