/**
 * Polls `check` every `every` ms until it returns a truthy value and returns that value; fails after `ms`
 * with what it was waiting for (`what`, or a function of the moment's state so the failure says how far it
 * got). The default leaves room for a loaded CI machine: a wait that holds costs only the time the thing
 * takes.
 */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  what: string | (() => string),
  ms = 10_000,
  every = 10,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * Waits until the process's clock reads later than `stamp` (milliseconds), so that the next row the product
 * stamps with the real time sorts after one stamped `stamp`, however fast or slow the machine is.
 */
export async function clockPast(stamp: number): Promise<void> {
  await waitFor(() => Date.now() > stamp, `the clock to pass ${stamp}`);
}
