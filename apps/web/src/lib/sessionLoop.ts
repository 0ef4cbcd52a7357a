import { AUTH_CHECK_INTERVAL_MS, AUTH_MAX_RETRIES, AUTH_RETRY_DELAY_MS, type AuthCheckAnswer } from '@parley/contracts';

export type SessionState =
  | { phase: 'loading' }
  | { phase: 'signedOut' }
  | { phase: 'signedIn'; session: AuthCheckAnswer }
  | { phase: 'networkError' };

export interface SessionLoopDeps {
  /** Calls the auth check; throws `{ status }` (0 for a network failure) when the request fails. */
  check(): Promise<AuthCheckAnswer>;
  /** AUTH-21: an invalid result while signed in clears the cookie and reloads the page. */
  reload(): void;
  /** AUTH-25: after a good check that followed failures, tickets re-sync and chat rooms are rejoined. */
  resync(): void;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(t: unknown): void;
}

/**
 * The client's session loop (AUTH-20..25): an auth check every 5 minutes; a failed request retries every
 * 5 s, counting only HTTP 403 and 500; more than 5 counted failures show the network-error screen; a good
 * answer resets the count. An invalid answer signs out: the first time it just shows sign-in, later it reloads.
 */
export class SessionLoop {
  state: SessionState = { phase: 'loading' };
  retries = 0;
  private failedSinceLastGood = false;
  private timer: unknown = null;
  private readonly listeners = new Set<(s: SessionState) => void>();
  private stopped = false;

  constructor(private readonly deps: SessionLoopDeps) {}

  subscribe(fn: (s: SessionState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Runs a check now (start, after sign-in or sign-out) and keeps the loop going. */
  async checkNow(): Promise<void> {
    if (this.timer !== null) this.deps.clearTimer(this.timer);
    this.timer = null;
    let answer: AuthCheckAnswer;
    try {
      answer = await this.deps.check();
    } catch (err) {
      if (this.stopped) return;
      const status = (err as { status?: number }).status ?? 0;
      if (status === 403 || status === 500) this.retries++;
      this.failedSinceLastGood = true;
      if (this.retries > AUTH_MAX_RETRIES) {
        this.set({ phase: 'networkError' });
        return;
      }
      this.schedule(AUTH_RETRY_DELAY_MS);
      return;
    }
    if (this.stopped) return;
    if (answer.result !== 'success') {
      if (this.state.phase === 'signedIn') {
        this.deps.reload();
        return;
      }
      this.retries = 0;
      this.set({ phase: 'signedOut' });
      return;
    }
    this.retries = 0;
    if (this.failedSinceLastGood) this.deps.resync();
    this.failedSinceLastGood = false;
    this.set({ phase: 'signedIn', session: answer });
    this.schedule(AUTH_CHECK_INTERVAL_MS);
  }

  /** After sign-out: straight to the sign-in screen. */
  signedOut(): void {
    if (this.timer !== null) this.deps.clearTimer(this.timer);
    this.timer = null;
    this.set({ phase: 'signedOut' });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.deps.clearTimer(this.timer);
  }

  private schedule(ms: number): void {
    this.timer = this.deps.setTimer(() => void this.checkNow(), ms);
  }

  private set(s: SessionState): void {
    this.state = s;
    for (const fn of this.listeners) fn(s);
  }
}
