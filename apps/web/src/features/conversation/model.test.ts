import type { Message } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import type { ConversationData } from '../../lib/conversationData';
import { msg } from '../../testing/messages.test-support';
import {
  addLive,
  addOlder,
  applyCheck,
  applyEmailState,
  applyReaction,
  dayOf,
  dropNote,
  groupByDate,
  mergeMessages,
  othersRepliedSince,
  readEventFor,
  removeMessages,
  seenByMessage,
  trimWindow,
  upsertNote,
} from './model';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => msg(from + i));
const conv = (messages: Message[], extra: Partial<ConversationData> = {}): ConversationData => ({
  ticketId: 7,
  messages,
  count: messages.length,
  olderOut: false,
  newerOut: false,
  ts: 0,
  ...extra,
});

describe('conversation model', () => {
  it('MSG-18 groups by date DD/MM/YYYY after a first entry holding the count', () => {
    const a = msg(1, { created_at: new Date(2026, 0, 5, 23, 59).getTime() });
    const b = msg(2, { created_at: new Date(2026, 0, 6, 0, 1).getTime() });
    const c = msg(3, { created_at: new Date(2026, 0, 6, 9, 0).getTime() });
    const entries = groupByDate([a, b, c], 42);
    expect(entries.map((e) => (e.kind === 'message' ? e.m.id : e.kind === 'day' ? e.day : `n${e.count}`))).toEqual([
      'n42',
      '05/01/2026',
      1,
      '06/01/2026',
      2,
      3,
    ]);
    expect(dayOf(new Date(2026, 11, 31).getTime())).toBe('31/12/2026');
    expect(groupByDate([], 0)).toEqual([{ kind: 'count', count: 0 }]);
  });

  it('MSG-40 MSG-41 a live message at the bottom lets the oldest go, keeping 60', () => {
    let d = conv(range(1, 60), { count: 100, olderOut: true });
    d = addLive(d, msg(61));
    expect(d.messages).toHaveLength(60);
    expect(d.messages[0]?.id).toBe(2);
    expect(d.messages.at(-1)?.id).toBe(61);
    expect(d.count).toBe(101);
    expect(d.olderOut).toBe(true);
  });

  it('MSG-40 MSG-41 loading 30 older lets the newest go, and a live message is then only counted', () => {
    let d = conv(range(31, 90), { count: 90, olderOut: true });
    d = addOlder(d, range(1, 30), false, 90);
    expect(d.messages.map((m) => m.id)).toEqual(range(1, 60).map((m) => m.id));
    expect(d.newerOut).toBe(true);
    expect(d.olderOut).toBe(false);
    const after = addLive(d, msg(91));
    expect(after.messages).toHaveLength(60);
    expect(after.messages.some((m) => m.id === 91)).toBe(false);
    expect(after.count).toBe(91);
    expect(trimWindow(conv(range(1, 10)), 'newest')).toEqual(conv(range(1, 10)));
  });

  it('MSG-10 MSG-09 dedupe: the same id or the same queue- id is kept once, in id order', () => {
    const a = msg(5, { client_id: 'queue-AAAAAAAAAA' });
    const d = addLive(addLive(conv([msg(1)]), a), { ...a, message: 'again' });
    expect(d.messages.map((m) => m.id)).toEqual([1, 5]);
    expect(d.messages[1]?.message).toBe('again');
    expect(d.count).toBe(2);
    // Out of order arrival still ends sorted.
    expect(mergeMessages([msg(3)], [msg(2), msg(4), msg(1)]).map((m) => m.id)).toEqual([1, 2, 3, 4]);
  });

  it('MSG-44 RT-26 a check adds what was missed once and removes what was deleted', () => {
    let d = conv(range(1, 3));
    d = addLive(d, msg(4)); // already came live
    d = applyCheck(d, [msg(4), msg(5), msg(6)], [2], 99);
    expect(d.messages.map((m) => m.id)).toEqual([1, 3, 4, 5, 6]);
    expect(d.count).toBe(5);
    expect(d.ts).toBe(99);
    expect(removeMessages(d, [1000])).toBe(d);
  });

  it('MSG-06 MSG-16 MSG-55 notes upsert and delete; reactions_2 maps reactions to usernames', () => {
    let d = conv([msg(1)]);
    d = upsertNote(d, { id: 9, message_id: 1, sender: 'bob', text: 'hi', ts: 1, updated_at: 1 });
    d = upsertNote(d, { id: 9, message_id: 1, sender: 'bob', text: 'edited', ts: 1, updated_at: 2 });
    expect(d.messages[0]?.notes.map((n) => n.text)).toEqual(['edited']);
    d = dropNote(d, 1, 9);
    expect(d.messages[0]?.notes).toEqual([]);
    const r = { id: 1, message_id: 1, emoji_text: ':thumbsup:', reaction: '👍', username: 'bob' };
    d = applyReaction(d, r, true);
    d = applyReaction(d, { ...r, id: 2, username: 'cy' }, true);
    d = applyReaction(d, r, true);
    expect(d.messages[0]?.reactions_2).toEqual({ '👍': ['cy', 'bob'] });
    d = applyReaction(d, { ...r, username: 'cy' }, false);
    expect(d.messages[0]?.reactions_2).toEqual({ '👍': ['bob'] });
  });

  it('RT-09 a Workspace chat is read with readMessage2, any other conversation with readMessage', () => {
    expect(readEventFor('chat')).toBe('readMessage2');
    for (const c of ['EMAIL', 'LIVECHAT', 'WHATSAPP', '']) expect(readEventFor(c)).toBe('readMessage');
  });

  it('RT-09 "Seen by" sits under the newest message of the window each reader has read', () => {
    const messages = [msg(10), msg(12), msg(15)];
    const seen = seenByMessage({ bo: 12, cy: 14, dee: 99, old: 3 }, messages);
    // Read up to 14 (deleted, or not in this window): shown under 12, the newest before it.
    expect([...seen.entries()]).toEqual([
      [12, ['bo', 'cy']],
      [15, ['dee']],
    ]);
  });

  it('EMAIL a mailbox reply takes its e-mail state from messageEmailState; other messages are left alone', () => {
    const email = { to: ['pat@example.com'], cc: [], subject: 'Re: Printer', state: 'sending' as const };
    const d = conv([msg(1, { email }), msg(2)]);
    const failed = applyEmailState(d, { ticketId: 7, messageId: 1, state: 'failed', error: '550 User unknown' });
    expect(failed.messages[0]!.email).toEqual({ ...email, state: 'failed', error: '550 User unknown' });
    const sent = applyEmailState(failed, { ticketId: 7, messageId: 1, state: 'sent', error: null });
    expect(sent.messages[0]!.email).toEqual({ ...email, state: 'sent' });
    expect(applyEmailState(d, { ticketId: 7, messageId: 2, state: 'sent', error: null }).messages[1]!.email).toBeNull();
  });
});

describe('othersRepliedSince', () => {
  const at = (id: number, sender: string, created_at: number, type = 'text') =>
    ({ ...msg(id), sender, senderName: sender === 'bob' ? 'Bob Agent' : sender, created_at, type }) as Message;
  it('names the other agents who replied after the time, once each; not me, the customer, the server or a bot', () => {
    const list = [
      at(1, 'bob', 100),
      at(2, 'bob', 300),
      at(3, 'bob', 400),
      at(4, 'visitor', 500),
      at(5, 'server', 500, 'system'),
      at(6, 'translatebot', 500),
      at(7, 'amy', 500),
    ];
    expect(othersRepliedSince(list, 'amy', 200)).toEqual(['Bob Agent']);
    expect(othersRepliedSince(list, 'amy', 450)).toEqual([]);
    expect(othersRepliedSince(list, 'bob', 0)).toEqual(['amy']);
  });
});
