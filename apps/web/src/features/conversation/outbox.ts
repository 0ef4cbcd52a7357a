import { type Message, newQueueId, type SendMessageInput, type SendStatus } from '@parley/contracts';

/**
 * The outbox (MSG-09, MSG-10, MSG-15): every message the user writes goes here first with its `queue-` id,
 * is shown as "sending", and leaves only when the server has stored it (the ack carries the stored
 * message). It is kept in local storage per user, so a reload while offline keeps what was written.
 * Sending is one at a time, oldest first, so a conversation's messages are stored in the order written
 * (a failed one holds the later ones of its conversation: `nextToSend`); the same `queue-` id is sent again
 * on retry, and the server stores it once. A check (`Outbox.check`) may refuse an item before it leaves: it is
 * failed at once and never sent (MSG-12).
 */
export interface OutboxItem {
  client_id: string;
  ticket_id: number;
  message: string;
  type: string;
  reply_id: number | null;
  reply: { sender: string; message: string } | null;
  files: string[];
  /** Files as shown while pending. */
  fileInfo: Message['files'];
  /** A translated reply: what the agent wrote, in their language (kept on the message). */
  original?: { lang: string; text: string };
  /** CRYPT-11: the ticket is encrypted: the text is encrypted with this browser's key as it leaves. */
  encryption?: 'aes' | 'rsa';
  /** When it was written (ms): the order of sending. */
  at: number;
  status: Exclude<SendStatus, 'success'>;
  error?: string;
}

/**
 * Pure: the item to send next, or undefined: the oldest still sending whose conversation has no failed item
 * written before it. A failed message holds the later ones of its conversation until it is retried or
 * discarded, so a conversation's messages are stored in the order written even across a failure (other
 * conversations go on).
 */
export function nextToSend(items: OutboxItem[]): OutboxItem | undefined {
  const held = heldItems(items);
  return [...items].filter((i) => i.status === 'sending' && !held.has(i.client_id)).sort((a, b) => a.at - b.at)[0];
}

/** Pure: the `queue-` ids of items waiting behind a failed item of their conversation written before them. */
export function heldItems(items: OutboxItem[]): Set<string> {
  const blocked = new Set<number>();
  const held = new Set<string>();
  for (const i of [...items].sort((a, b) => a.at - b.at)) {
    if (i.status === 'failed') blocked.add(i.ticket_id);
    else if (blocked.has(i.ticket_id)) held.add(i.client_id);
  }
  return held;
}

/** Pure: the pending items of one ticket, in the order written, minus those the server already has. */
export function pendingFor(items: OutboxItem[], ticketId: number, stored: Message[]): OutboxItem[] {
  const have = new Set(stored.map((m) => m.client_id).filter(Boolean));
  return items.filter((i) => i.ticket_id === ticketId && !have.has(i.client_id)).sort((a, b) => a.at - b.at);
}

export const toInput = (i: OutboxItem): SendMessageInput => ({
  ticket_id: i.ticket_id,
  message: i.message,
  type: i.type,
  client_id: i.client_id,
  reply_id: i.reply_id,
  ...(i.files.length ? { files: i.files } : {}),
  ...(i.original ? { original: i.original } : {}),
});

/**
 * A check made before an item goes out (when written, and again on Retry): why it cannot be sent from this
 * browser, or undefined. A refused item is failed at once with that reason and never reaches the server
 * (MSG-12, CRYPT-06: an encrypted ticket's message with no key on this browser).
 */
export type SendCheck = (item: OutboxItem) => string | undefined;

interface Storage {
  getItem(k: string): string | null;
  setItem(k: string, v: string): void;
  removeItem(k: string): void;
}

/** The outbox of one signed-in user, persisted under `parley.outbox.<account>.<user>`. */
export class Outbox {
  private items: OutboxItem[] = [];
  private key = '';
  private readonly listeners = new Set<() => void>();
  private readonly checks = new Set<SendCheck>();
  private readonly refusedListeners = new Set<(clientId: string, error: string) => void>();

  constructor(private readonly storage: Storage | null) {}

  /** Loads the outbox of a user (after sign-in); items left "sending" at a reload are sent again. */
  open(accountId: number, userId: number): void {
    const key = `parley.outbox.${accountId}.${userId}`;
    if (key === this.key) return;
    this.key = key;
    try {
      const raw = this.storage?.getItem(key);
      this.items = raw ? (JSON.parse(raw) as OutboxItem[]) : [];
    } catch {
      this.items = [];
    }
    this.emit();
  }

  all(): OutboxItem[] {
    return this.items;
  }

  /** Adds a written message, as "sending", or already failed when a check refuses it (`check`). */
  add(draft: Omit<OutboxItem, 'client_id' | 'at' | 'status'>, now = Date.now()): OutboxItem {
    const last = this.items.at(-1)?.at ?? 0;
    const written: OutboxItem = { ...draft, client_id: newQueueId(), at: Math.max(now, last + 1), status: 'sending' };
    const error = this.refusal(written);
    // Failed in the same change it is added in: the sender never sees it "sending".
    const item: OutboxItem = error === undefined ? written : { ...written, status: 'failed', error };
    this.set([...this.items, item]);
    if (error !== undefined) this.refused(item.client_id, error);
    return item;
  }

  fail(clientId: string, error: string): void {
    this.set(this.items.map((i) => (i.client_id === clientId ? { ...i, status: 'failed', error } : i)));
  }

  /** MSG-15: Retry sends the same `queue-` id again; an item a check still refuses fails again at once. */
  retry(clientId: string): void {
    const item = this.items.find((i) => i.client_id === clientId);
    if (!item) return;
    const error = this.refusal(item);
    this.set(
      this.items.map((i) =>
        i.client_id !== clientId
          ? i
          : error === undefined
            ? { ...i, status: 'sending', error: undefined }
            : { ...i, status: 'failed', error },
      ),
    );
    if (error !== undefined) this.refused(clientId, error);
  }

  /** Adds a check made before every item goes out (`SendCheck`); the returned function removes it. */
  check(c: SendCheck): () => void {
    this.checks.add(c);
    return () => {
      this.checks.delete(c);
    };
  }

  /** MSG-14: an item a check refused (it is failed with `error`), for the failure modal. */
  onRefused(l: (clientId: string, error: string) => void): () => void {
    this.refusedListeners.add(l);
    return () => {
      this.refusedListeners.delete(l);
    };
  }

  remove(clientId: string): void {
    if (this.items.some((i) => i.client_id === clientId)) this.set(this.items.filter((i) => i.client_id !== clientId));
  }

  subscribe(l: () => void): () => void {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  }

  private set(items: OutboxItem[]): void {
    this.items = items;
    try {
      if (this.key) {
        if (items.length) this.storage?.setItem(this.key, JSON.stringify(items));
        else this.storage?.removeItem(this.key);
      }
    } catch {
      // Storage full or blocked: the outbox still works for this page.
    }
    this.emit();
  }

  private refusal(item: OutboxItem): string | undefined {
    for (const c of this.checks) {
      const error = c(item);
      if (error !== undefined) return error;
    }
    return undefined;
  }

  private refused(clientId: string, error: string): void {
    for (const l of this.refusedListeners) l(clientId, error);
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

export const outbox = new Outbox(typeof localStorage === 'undefined' ? null : localStorage);
