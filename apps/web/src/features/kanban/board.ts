import type { TicketCustomStatus, TicketListItem } from '@parley/contracts';
import { statusOptions } from '../../lib/api/ticketStatuses';

/** One column of the board: a status code and its name (the defaults 0 to 3, then the custom ones). */
export interface KanbanColumn {
  code: number;
  name: string;
}

export const kanbanColumns = (custom: readonly TicketCustomStatus[]): KanbanColumn[] =>
  statusOptions(custom).map((o) => ({ code: Number(o.value), name: o.label }));

/**
 * Places every ticket the board holds under the column of its current status, newest activity first.
 * The columns' lists are fetched per status, but a ticket moved (by a drag here or by another agent's
 * `updateTicket`) keeps its place in the list it came from; grouping by `closed` shows it where it is now,
 * once. Tickets of a status with no column (a deleted custom status) are left out.
 */
export function groupBoard(columns: readonly KanbanColumn[], items: Iterable<TicketListItem>) {
  const board = new Map<number, TicketListItem[]>(columns.map((c) => [c.code, []]));
  const seen = new Set<number>();
  for (const t of items) {
    if (seen.has(t.id)) continue;
    seen.add(t.id);
    board.get(t.closed)?.push(t);
  }
  for (const list of board.values()) list.sort((a, b) => b.updated_at - a.updated_at || b.id - a.id);
  return board;
}

/**
 * The Open column's count: the Open list (filter 0) also holds tickets of custom statuses that count as
 * open, which have their own columns and counts.
 */
export function columnCount(code: number, counts: ReadonlyMap<number, number>, custom: readonly TicketCustomStatus[]) {
  const n = counts.get(code);
  if (n === undefined) return undefined;
  if (code !== 0) return n;
  const openCustom = custom
    .filter((c) => c.alternate === '0')
    .reduce((s, c) => s + (counts.get(c.status_code) ?? 0), 0);
  return Math.max(0, n - openCustom);
}
