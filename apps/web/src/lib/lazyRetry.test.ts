import { afterEach, describe, expect, it, vi } from 'vitest';
import { importWithRetry } from './lazyRetry';

describe('lazy screen loading', () => {
  afterEach(() => vi.useRealTimers());

  it('SHELL-68 a failing chunk is retried 5 times 5 s apart, then "maximum retries exceeded"', async () => {
    vi.useFakeTimers();
    const load = vi.fn().mockRejectedValue(new Error('chunk failed'));
    const onGiveUp = vi.fn();
    const p = importWithRetry(load, { onGiveUp });
    const settled = p.catch((e: Error) => e);
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(4_999);
      expect(load).toHaveBeenCalledTimes(i + 1); // not before 5 s
      await vi.advanceTimersByTimeAsync(1);
    }
    const err = await settled;
    expect(load).toHaveBeenCalledTimes(6); // the first try and 5 retries
    expect(onGiveUp).toHaveBeenCalledTimes(1);
    expect((err as Error).message).toBe('chunk failed');
  });

  it('SHELL-68 a chunk that loads on the third try is used, and nobody is alerted', async () => {
    vi.useFakeTimers();
    const load = vi
      .fn()
      .mockRejectedValueOnce(new Error('x'))
      .mockRejectedValueOnce(new Error('x'))
      .mockResolvedValue({ Screen: 'ok' });
    const onGiveUp = vi.fn();
    const p = importWithRetry(load, { onGiveUp });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(p).resolves.toEqual({ Screen: 'ok' });
    expect(onGiveUp).not.toHaveBeenCalled();
  });
});
