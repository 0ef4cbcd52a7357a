import { describe, expect, it } from 'vitest';
import { createStore } from './store';

describe('createStore', () => {
  it('holds a value, derives the next one and tells every subscriber once per change', () => {
    const s = createStore({ n: 1 });
    const seen: number[] = [];
    const off = s.subscribe(() => seen.push(s.get().n));
    s.set({ n: 2 });
    s.set((c) => ({ n: c.n + 10 }));
    off();
    s.set({ n: 99 });
    expect(seen).toEqual([2, 12]);
    expect(s.get()).toEqual({ n: 99 });
  });

  it('with `read`, answers what is kept elsewhere and only announces its changes', () => {
    let outside = 'a';
    const s = createStore<string>('', () => outside);
    let told = 0;
    s.subscribe(() => told++);
    outside = 'b';
    expect(s.get()).toBe('b');
    s.notify();
    expect(told).toBe(1);
  });

  it('a subscriber that unsubscribes while being told does not stop the others', () => {
    const s = createStore(0);
    const calls: string[] = [];
    const offA = s.subscribe(() => {
      calls.push('a');
      offA();
    });
    s.subscribe(() => calls.push('b'));
    s.set(1);
    s.set(2);
    expect(calls).toEqual(['a', 'b', 'b']);
  });
});
