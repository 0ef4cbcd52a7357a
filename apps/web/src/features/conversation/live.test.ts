import {
  MESSAGE_STRINGS,
  type Message,
  RECENT_CONVERSATIONS,
  type SendAck,
  type SendMessageInput,
} from '@parley/contracts';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationData } from '../../lib/conversationData';
import { conversationKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';
import { msg } from '../../testing/messages.test-support';
import { settle, waitFor } from '../../testing/waitFor.test-support';
import { conversationApi } from './api';
import {
  addStored,
  applyDeliveryEvent,
  checkAll,
  flushOutbox,
  installLive,
  onSendFailed,
  startLoading,
  touchRecent,
  withChangesWhileLoading,
} from './live';
import { shownMessages } from './model';
import { outbox } from './outbox';

const message = (id: number, ticketId: number) => msg(id, { ticketId, type: 'system', sender: 'server' });

describe('the recent conversations cache', () => {
  it('TICKET-40 the last 10 opened conversations stay cached; opening an eleventh drops the oldest, reopening keeps one', () => {
    expect(RECENT_CONVERSATIONS).toBe(10);
    const qc = new QueryClient();
    const cached = () =>
      qc
        .getQueryCache()
        .findAll({ queryKey: conversationKeys.all })
        .map((q) => q.queryKey[1] as number)
        .sort((a, b) => a - b);
    const open = (id: number) => {
      qc.setQueryData(conversationKeys.one(id), { ticketId: id });
      touchRecent(qc, id);
    };
    for (let id = 101; id <= 110; id++) open(id);
    expect(cached()).toHaveLength(10);
    open(101); // reopened: now the most recent, so 102 is the oldest
    open(111);
    expect(cached()).not.toContain(102);
    expect(cached()).toContain(101);
    expect(cached()).toHaveLength(10);
  });
});

describe('live changes and the first page', () => {
  it('MSG-09 RT-22 a message that arrives while the first page loads is in the page when it comes', async () => {
    const qc = new QueryClient();
    let answer: (m: Message[]) => void = () => {};
    const history = new Promise<Message[]>((r) => {
      answer = r;
    });
    const loaded = qc.fetchQuery({
      queryKey: conversationKeys.one(7),
      queryFn: async (): Promise<ConversationData> => {
        startLoading(7);
        const messages = await history;
        return withChangesWhileLoading(7, {
          ticketId: 7,
          messages,
          count: messages.length,
          olderOut: false,
          newerOut: false,
          ts: 0,
        });
      },
    });
    // The page was read before message 3 was stored; its newMessage comes while the answer is on its way.
    addStored(qc, message(3, 7));
    // One the page does have comes too: it is not counted twice.
    addStored(qc, message(2, 7));
    // Another conversation's message is not this one's.
    addStored(qc, message(9, 8));
    answer([message(1, 7), message(2, 7)]);
    const d = await loaded;
    expect(d.messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(d.count).toBe(3);
    // Once loaded, changes go straight to the cache.
    addStored(qc, message(4, 7));
    expect(qc.getQueryData<ConversationData>(conversationKeys.one(7))?.messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
  });
});

/** The shared socket as `sendOverSocket` uses it: `newChatMessage` with an ack, and `disconnect`. */
class FakeSocket {
  connected = true;
  readonly sent: { input: SendMessageInput; ack: (a: SendAck) => void }[] = [];
  private readonly down = new Set<() => void>();
  emit(name: string, input: SendMessageInput, ack: (a: SendAck) => void) {
    if (name === 'newChatMessage') this.sent.push({ input, ack });
  }
  once(name: string, f: () => void) {
    if (name === 'disconnect') this.down.add(f);
  }
  off(_name: string, f: () => void) {
    this.down.delete(f);
  }
  drop() {
    this.connected = false;
    for (const f of [...this.down]) f();
    this.down.clear();
  }
}

const page = (ticketId: number, messages: Message[] = []): ConversationData => ({
  ticketId,
  messages,
  count: messages.length,
  olderOut: false,
  newerOut: false,
  ts: 100,
});
const shared = realtime as unknown as { socket: unknown; connected: boolean };

describe('sending from the outbox', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    for (const i of outbox.all()) outbox.remove(i.client_id);
    shared.socket = null;
    shared.connected = false;
  });

  it('MSG-08 MSG-10 MSG-11 MSG-13 a send is sending until answered: success, failed when the request fails, still sending when the socket drops', async () => {
    const qc = new QueryClient();
    qc.setQueryData(conversationKeys.one(70), page(70));
    const socket = new FakeSocket();
    shared.socket = socket;
    shared.connected = true;
    const failures: [string, string][] = [];
    const offFail = onSendFailed((id, error) => failures.push([id, error]));
    const statuses = () =>
      shownMessages(qc.getQueryData<ConversationData>(conversationKeys.one(70))!, outbox.all(), 'ann', 'Ann').map(
        (m) => [m.message, m.sendStatus],
      );
    const write = (message: string) =>
      outbox.add({ ticket_id: 70, message, type: 'text', reply_id: null, reply: null, files: [], fileInfo: [] });
    try {
      installLive(qc, 'ann', 9001, 9002);
      // Sending: shown at once, and on the wire with its queue- id.
      const one = write('one');
      await waitFor(() => socket.sent.length === 1, 'the first send');
      expect(socket.sent[0]!.input).toMatchObject({ ticket_id: 70, message: 'one', client_id: one.client_id });
      expect(statuses()).toEqual([['one', 'sending']]);
      // Success: the stored message (its real id) replaces the queued one.
      socket.sent[0]!.ack({ ok: true, data: msg(500, { ticketId: 70, message: 'one', client_id: one.client_id }) });
      await waitFor(() => outbox.all().length === 0, 'the outbox to let it go');
      expect(statuses()).toEqual([['one', 'success']]);
      expect(qc.getQueryData<ConversationData>(conversationKeys.one(70))!.messages.map((m) => m.id)).toEqual([500]);

      // The request fails (the server refuses it): failed, with the server's words for the modal.
      const two = write('two');
      await waitFor(() => socket.sent.length === 2, 'the second send');
      const refused = 'The message is too long (at most 20000 characters).';
      socket.sent[1]!.ack({ ok: false, error: refused });
      await waitFor(() => failures.length === 1, 'the failure');
      expect(failures).toEqual([[two.client_id, refused]]);
      expect(statuses()).toEqual([
        ['one', 'success'],
        ['two', 'failed'],
      ]);
      outbox.remove(two.client_id);

      // The socket drops before the answer: nothing failed, the message waits, still sending.
      const three = write('three');
      await waitFor(() => socket.sent.length === 3, 'the third send');
      shared.connected = false;
      socket.drop();
      await settle();
      expect(statuses()).toEqual([
        ['one', 'success'],
        ['three', 'sending'],
      ]);
      expect(failures).toHaveLength(1);

      // Back online it goes again with the same queue- id; no answer at all within 15 s fails it too.
      vi.useFakeTimers();
      socket.connected = true;
      shared.connected = true;
      void flushOutbox();
      expect(socket.sent[3]?.input.client_id).toBe(three.client_id);
      await vi.advanceTimersByTimeAsync(15_000);
      expect(failures).toEqual([
        [two.client_id, refused],
        [three.client_id, 'No answer from the server.'],
      ]);
      expect(statuses()).toEqual([
        ['one', 'success'],
        ['three', 'failed'],
      ]);
    } finally {
      offFail();
    }
  });

  it('MSG-15 MSG-10 after a failure the later messages of that conversation wait; retried, they are stored in the order written', async () => {
    const qc = new QueryClient();
    qc.setQueryData(conversationKeys.one(71), page(71));
    qc.setQueryData(conversationKeys.one(72), page(72));
    const socket = new FakeSocket();
    shared.socket = socket;
    shared.connected = true;
    const write = (ticket_id: number, message: string) =>
      outbox.add({ ticket_id, message, type: 'text', reply_id: null, reply: null, files: [], fileInfo: [] });
    const shown = (t: number) =>
      shownMessages(qc.getQueryData<ConversationData>(conversationKeys.one(t))!, outbox.all(), 'ann', 'Ann').map(
        (m) => [m.message, m.sendStatus, 'held' in m ? !!m.held : false],
      );
    const stored: string[] = [];
    const answer = (i: number, ok: boolean) => {
      const { input, ack } = socket.sent[i]!;
      if (!ok) return ack({ ok: false, error: 'Server busy' });
      stored.push(input.message);
      ack({
        ok: true,
        data: msg(600 + i, { ticketId: input.ticket_id, message: input.message, client_id: input.client_id ?? null }),
      });
    };
    const offFail = onSendFailed(() => {});
    try {
      installLive(qc, 'ann', 9001, 9002);
      shared.connected = false;
      const a = write(71, 'a');
      write(71, 'b');
      write(72, 'elsewhere');
      write(71, 'c');
      shared.connected = true;
      void flushOutbox();
      await waitFor(() => socket.sent.length === 1, 'a on the wire');
      answer(0, false);
      // a failed: b and c wait behind it; the other conversation goes on.
      await waitFor(() => socket.sent.length === 2, 'the next send');
      expect(socket.sent[1]!.input.message).toBe('elsewhere');
      answer(1, true);
      await settle();
      expect(socket.sent).toHaveLength(2);
      expect(shown(71)).toEqual([
        ['a', 'failed', false],
        ['b', 'sending', true],
        ['c', 'sending', true],
      ]);
      // Retry: a goes first, with its queue- id, then b and c.
      outbox.retry(a.client_id);
      for (let i = 2; i < 5; i++) {
        await waitFor(() => socket.sent.length === i + 1, `send ${i + 1}`);
        answer(i, true);
      }
      expect(socket.sent[2]!.input.client_id).toBe(a.client_id);
      await waitFor(() => outbox.all().length === 0, 'the outbox to empty');
      expect(stored).toEqual(['elsewhere', 'a', 'b', 'c']);
      expect(qc.getQueryData<ConversationData>(conversationKeys.one(71))!.messages.map((m) => m.message)).toEqual([
        'a',
        'b',
        'c',
      ]);
    } finally {
      offFail();
    }
  });

  it('MSG-46 a failed sync check is logged to the console only, and the conversation stays as it was', async () => {
    const qc = new QueryClient();
    const before = page(71, [msg(1, { ticketId: 71 }), msg(2, { ticketId: 71 })]);
    qc.setQueryData(conversationKeys.one(71), before);
    const check = vi.spyOn(conversationApi, 'check').mockRejectedValue(new Error('HTTP 500'));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const failures: string[] = [];
    const offFail = onSendFailed((id) => failures.push(id));
    try {
      await checkAll(qc);
    } finally {
      offFail();
    }
    expect(check).toHaveBeenCalledWith(71, 2, 100);
    expect(logged.mock.calls).toEqual([[MESSAGE_STRINGS.syncError]]);
    expect(MESSAGE_STRINGS.syncError).toBe('Sync error. Please close the app and try again.');
    expect(qc.getQueryData(conversationKeys.one(71))).toBe(before);
    expect(qc.getQueryState(conversationKeys.one(71))?.isInvalidated).toBe(false);
    expect(failures).toEqual([]);
  });
});

describe('channel deliveries', () => {
  const conversation = (messages: Message[]): ConversationData => ({
    ticketId: 31,
    channel: 'WHATSAPP',
    messages,
    count: messages.length,
    olderOut: false,
    newerOut: false,
    ts: 0,
  });
  const delivery = (qc: QueryClient, id: number) =>
    qc.getQueryData<ConversationData>(conversationKeys.one(31))?.messages.find((m) => m.id === id)?.delivery;

  it('CHANNEL a delivery that comes before the reply itself is applied when the reply arrives; a later copy never takes it back', () => {
    const qc = new QueryClient();
    qc.setQueryData(conversationKeys.one(31), conversation([msg(1, { ticketId: 31, sender: 'visitor' })]));
    // The send settled before my ack was applied.
    applyDeliveryEvent(qc, { ticketId: 31, messageId: 2, state: 'sent', error: null });
    addStored(qc, msg(2, { ticketId: 31, delivery: { state: 'sending' } }));
    expect(delivery(qc, 2)).toEqual({ state: 'sent' });
    // Its `newMessage` (a copy taken when it was stored) comes after: still sent.
    addStored(qc, msg(2, { ticketId: 31, delivery: { state: 'sending' } }));
    expect(delivery(qc, 2)).toEqual({ state: 'sent' });
    applyDeliveryEvent(qc, { ticketId: 31, messageId: 2, state: 'failed', error: '(#131030) Not allowed' });
    expect(delivery(qc, 2)).toEqual({ state: 'failed', error: '(#131030) Not allowed' });
    // A message of another ticket, or one never added, changes nothing here.
    applyDeliveryEvent(qc, { ticketId: 32, messageId: 2, state: 'read', error: null });
    expect(delivery(qc, 2)?.state).toBe('failed');
  });
});
