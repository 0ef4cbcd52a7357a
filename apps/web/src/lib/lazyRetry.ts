import { LAZY_RETRIES, LAZY_RETRY_MS, SHELL_STRINGS } from '@parley/contracts';
import { type ComponentType, lazy } from 'react';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * SHELL-68: loads a screen's chunk; a failed load (a deploy replaced the file, the network dropped) is
 * retried up to 5 times, 5 s apart, and then the user is told "maximum retries exceeded".
 */
export async function importWithRetry<T>(
  load: () => Promise<T>,
  opts: { retries?: number; delayMs?: number; onGiveUp?: () => void } = {},
): Promise<T> {
  const retries = opts.retries ?? LAZY_RETRIES;
  const delayMs = opts.delayMs ?? LAZY_RETRY_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (err) {
      if (attempt >= retries) {
        (opts.onGiveUp ?? (() => window.alert(SHELL_STRINGS.maxRetries)))();
        throw err;
      }
      await sleep(delayMs);
    }
  }
}

/** `React.lazy` over a named export, with the retry rule. */
export function lazyScreen<M, K extends keyof M>(load: () => Promise<M>, name: K) {
  return lazy(async () => {
    const mod = await importWithRetry(load);
    return { default: mod[name] as ComponentType<Record<string, never>> };
  });
}
