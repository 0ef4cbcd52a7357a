import { NEW_MESSAGE_CLEAR_MS } from '@parley/contracts';

/**
 * TICKET-57: an item with news keeps its highlight for 5 s after it is clicked, even though opening it reads
 * it at once (server read state, unread counts). Kept outside React: opening a ticket changes the route, and
 * the list on the next screen is a new component that must still show it.
 */
const held = new Map<number, number>();

export function holdHighlight(id: number, now = Date.now()): void {
  held.set(id, now + NEW_MESSAGE_CLEAR_MS);
}

/** Milliseconds the item's highlight is still held (0 when it is not). */
export function highlightLeft(id: number, now = Date.now()): number {
  const until = held.get(id);
  if (until === undefined) return 0;
  if (until <= now) {
    held.delete(id);
    return 0;
  }
  return until - now;
}
