import type { CannedReply } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { insertAt, matchReplies, slashQuery } from './slash';

const reply = (shortcut: string, title: string, body = 'text'): CannedReply => ({
  id: shortcut.length,
  shortcut,
  title,
  body,
  channels: [],
  shared: false,
  owner_id: 1,
  updated_at: 0,
});

describe('the composer slash picker', () => {
  it('REPLIES a slash at the start of a word opens it, anywhere else it does not', () => {
    expect(slashQuery('/', 1)).toEqual({ start: 0, query: '' });
    expect(slashQuery('Hello /ref', 10)).toEqual({ start: 6, query: 'ref' });
    expect(slashQuery('line\n/th', 8)).toEqual({ start: 5, query: 'th' });
    expect(slashQuery('and/or', 6)).toBeNull();
    expect(slashQuery('http://x', 8)).toBeNull();
    expect(slashQuery('/ref done', 9)).toBeNull();
    // The caret decides: the slash word before it, not the end of the text.
    expect(slashQuery('/ref more', 4)).toEqual({ start: 0, query: 'ref' });
  });

  it('REPLIES matches shortcuts first, then titles, then text', () => {
    const list = [
      reply('thanks', 'Thank you'),
      reply('refund', 'Refund steps', 'We will send the money'),
      reply('hours', 'Opening hours', 'refund policy'),
    ];
    expect(matchReplies(list, 'ref').map((r) => r.shortcut)).toEqual(['refund', 'hours']);
    expect(matchReplies(list, 'open').map((r) => r.shortcut)).toEqual(['hours']);
    expect(matchReplies(list, '').map((r) => r.shortcut)).toEqual(['hours', 'refund', 'thanks']);
    expect(matchReplies(list, 'zzz')).toEqual([]);
  });

  it('REPLIES inserting replaces the slash word and puts the caret after it', () => {
    expect(insertAt('Hi /ref!', 3, 7, 'Refund done')).toEqual({ text: 'Hi Refund done!', caret: 14 });
  });
});
