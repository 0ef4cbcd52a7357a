import { rooms } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, runCommand } from '../../platform/outbox/index.js';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { connectSocket, flushSockets, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('ticket rooms (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterEach(() => {
    for (const so of opened.splice(0)) so.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  async function ticketOf(accountId: number) {
    const at = Date.now();
    const row = await s.handle.db
      .insertInto('tickets')
      .values({
        account_id: accountId,
        ticket_number: 1,
        title: 'Printer on fire',
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: '',
        name: 'Pat',
        email: 'pat@example.com',
        phone: '',
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  it("FOUNDATION RT-06 RT-08 a socket joins the room of its own account's ticket only, and gets that room's events", async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const ticketA = await ticketOf(a.accountId);

    const joined = await connectSocket(s.url, a.token, opened);
    const notJoined = await connectSocket(s.url, a.token, opened);
    const intruder = await connectSocket(s.url, b.token, opened);

    expect(await joined.emitWithAck('joinRoom', ticketA)).toEqual({ ok: true });
    expect(await intruder.emitWithAck('joinRoom', ticketA)).toEqual({ ok: false, error: 'Not found.' });
    expect(await intruder.emitWithAck('joinRoom', -1 as number)).toEqual({ ok: false, error: 'Invalid ticket id.' });
    expect(await intruder.emitWithAck('joinRoom', 'x' as unknown as number)).toEqual({
      ok: false,
      error: 'Invalid ticket id.',
    });

    const seen = new Map<TestSocket, unknown[]>();
    for (const so of [joined, notJoined, intruder]) {
      const got: unknown[] = [];
      seen.set(so, got);
      (so as unknown as { on(n: string, f: (e: { data: unknown }) => void): void }).on('ticketTyping', (e) =>
        got.push(e.data),
      );
    }
    await runCommand(s.handle.db, (trx) =>
      appendEvent(trx, {
        accountId: a.accountId,
        type: 'ticket.typing',
        payload: { ticketId: ticketA, username: 'ann' },
        realtime: { name: 'ticketTyping', rooms: [rooms.ticket(ticketA)] },
      }),
    );
    await waitFor(() => (seen.get(joined)?.length ?? 0) > 0, 'the joined socket to get the room event');
    await flushSockets(s.handle.db, a.accountId, [joined, notJoined]);
    await flushSockets(s.handle.db, b.accountId, [intruder]);
    expect(seen.get(joined)).toEqual([{ ticketId: ticketA, username: 'ann' }]);
    expect(seen.get(notJoined)).toEqual([]);
    expect(seen.get(intruder)).toEqual([]);

    // RT-08: after leaveRoom, the room's events stop.
    joined.emit('leaveRoom', ticketA);
    // A later event of the same socket, answered: the server has handled the leave by then.
    await joined.emitWithAck('getAnnouncement');
    await runCommand(s.handle.db, (trx) =>
      appendEvent(trx, {
        accountId: a.accountId,
        type: 'ticket.typing',
        payload: { ticketId: ticketA, username: 'bob' },
        realtime: { name: 'ticketTyping', rooms: [rooms.ticket(ticketA)] },
      }),
    );
    await flushSockets(s.handle.db, a.accountId, [joined]);
    expect(seen.get(joined)).toHaveLength(1);
  });
});
