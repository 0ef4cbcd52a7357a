import type { Message } from '@parley/contracts';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { addStored, convKey, startLoading, withChangesWhileLoading } from './live';
import type { ConversationData } from './model';
import { msg } from './testMessages';

const message = (id: number, ticketId: number) => msg(id, { ticketId, type: 'system', sender: 'server' });

describe('live changes and the first page', () => {
  it('MSG-09 RT-22 a message that arrives while the first page loads is in the page when it comes', async () => {
    const qc = new QueryClient();
    let answer: (m: Message[]) => void = () => {};
    const history = new Promise<Message[]>((r) => {
      answer = r;
    });
    const loaded = qc.fetchQuery({
      queryKey: convKey(7),
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
    expect(qc.getQueryData<ConversationData>(convKey(7))?.messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
  });
});
