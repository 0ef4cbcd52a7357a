import { TYPING_LOCAL_MS, TYPING_REMOTE_MS } from '@parley/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalTyping, RemoteTyping } from './typing';

describe('typing indicators', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('RT-39 RT-11 a sendTyping from the socket with no removeTyping clears after 5 s; a repeat starts the 5 s again', () => {
    expect(TYPING_REMOTE_MS).toBe(5_000);
    const shown: string[][] = [];
    const t = new RemoteTyping((names) => shown.push(names));
    t.typing('bo', 'Bo');
    expect(t.names()).toEqual(['Bo']);
    vi.advanceTimersByTime(4_999);
    expect(t.names()).toEqual(['Bo']);
    vi.advanceTimersByTime(1);
    expect(t.names()).toEqual([]);
    expect(shown).toEqual([['Bo'], []]);

    t.typing('bo', 'Bo');
    t.typing('cy', 'Cy');
    vi.advanceTimersByTime(3_000);
    t.typing('bo', 'Bo'); // still typing: Bo's 5 s start again, Cy's do not
    vi.advanceTimersByTime(2_000);
    expect(t.names()).toEqual(['Bo']);
    vi.advanceTimersByTime(2_999);
    expect(t.names()).toEqual(['Bo']);
    vi.advanceTimersByTime(1);
    expect(t.names()).toEqual([]);
  });

  it('RT-11 removeTyping (or their message) clears at once; clear forgets everyone and leaves no timer behind', () => {
    const t = new RemoteTyping(() => {});
    t.typing('bo', 'Bo');
    t.typing('cy', 'Cy');
    t.stop('bo');
    expect(t.names()).toEqual(['Cy']);
    t.clear();
    expect(t.names()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('RT-39 RT-11 my own typing: sendTyping at most every 2 s, removeTyping 2 s after the last keystroke', () => {
    expect(TYPING_LOCAL_MS).toBe(2_000);
    const sent: string[] = [];
    const t = new LocalTyping((e) => sent.push(e));
    t.keystroke();
    vi.advanceTimersByTime(1_000);
    t.keystroke();
    vi.advanceTimersByTime(1_500); // 2.5 s after the first, 1.5 s after the last
    t.keystroke();
    expect(sent).toEqual(['sendTyping', 'sendTyping']);
    vi.advanceTimersByTime(1_999);
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual(['sendTyping', 'sendTyping', 'removeTyping']);
    // Sending the message stops at once; stopping again says nothing more.
    t.keystroke();
    t.stop();
    t.stop();
    expect(sent.slice(3)).toEqual(['sendTyping', 'removeTyping']);
  });
});
