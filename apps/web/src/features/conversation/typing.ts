import { TYPING_LOCAL_MS, TYPING_REMOTE_MS } from '@parley/contracts';

/**
 * RT-11, RT-39: who is typing in one conversation, from the socket. A `sendTyping` shows the name until
 * that person's `removeTyping`, a message from them, or 5 s without another `sendTyping` (a lost
 * removeTyping, a closed tab); each repeat starts the 5 s again.
 */
export class RemoteTyping {
  private readonly who = new Map<string, { name: string; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly onChange: (names: string[]) => void,
    private readonly ms = TYPING_REMOTE_MS,
  ) {}

  typing(username: string, name: string): void {
    const before = this.who.get(username);
    if (before) clearTimeout(before.timer);
    this.who.set(username, { name, timer: setTimeout(() => this.stop(username), this.ms) });
    if (!before || before.name !== name) this.changed();
  }

  stop(username: string): void {
    const before = this.who.get(username);
    if (!before) return;
    clearTimeout(before.timer);
    this.who.delete(username);
    this.changed();
  }

  /** Forgets everyone (the pane shows another conversation, or goes away). */
  clear(): void {
    if (this.who.size === 0) return;
    for (const v of this.who.values()) clearTimeout(v.timer);
    this.who.clear();
    this.changed();
  }

  names(): string[] {
    return [...this.who.values()].map((v) => v.name);
  }

  private changed(): void {
    this.onChange(this.names());
  }
}

/**
 * RT-11, RT-39: my own typing: `sendTyping` on a keystroke, again at most every 2 s while typing goes on,
 * and `removeTyping` 2 s after the last keystroke (or at once on `stop`, when the message is sent).
 */
export class LocalTyping {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastSent = 0;

  constructor(
    private readonly emit: (event: 'sendTyping' | 'removeTyping') => void,
    private readonly ms = TYPING_LOCAL_MS,
    private readonly now = () => Date.now(),
  ) {}

  keystroke(): void {
    const at = this.now();
    if (at - this.lastSent > this.ms) {
      this.emit('sendTyping');
      this.lastSent = at;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.stop(), this.ms);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.lastSent) this.emit('removeTyping');
    this.lastSent = 0;
  }
}
