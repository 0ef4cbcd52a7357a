/**
 * Polls `check` until it holds; fails after `ms` with what it was waiting for. The default leaves room for a
 * loaded CI machine: a wait that holds costs only the time the thing takes.
 */
export async function waitFor(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Lets every promise job queued so far run, and the ones they queue in turn: the event loop turns only once
 * none is left. For code driven by in-memory fakes (no I/O, no timers) that is all there is to wait for, so
 * a test can then assert that something did not happen.
 */
export const settle = () => new Promise<void>((r) => setImmediate(r));
