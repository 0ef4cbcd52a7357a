import type { TicketListItem } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { columnCount, groupBoard, kanbanColumns } from './board';

const custom = [
  { id: 1, status_code: 5, name: 'Waiting on parts', alternate: '0' as const },
  { id: 2, status_code: 6, name: 'Archived', alternate: '1' as const },
];
const item = (id: number, closed: number, updated_at: number) =>
  ({ id, closed, updated_at, ticket_number: id, title: `T${id}` }) as TicketListItem;

describe('the Kanban board', () => {
  it('TICKET-22 TICKET-24 columns: Open, Pending, Resolved, Closed, then the custom statuses', () => {
    expect(kanbanColumns(custom).map((c) => [c.code, c.name])).toEqual([
      [0, 'Open'],
      [1, 'Pending'],
      [2, 'Resolved'],
      [3, 'Closed'],
      [5, 'Waiting on parts'],
      [6, 'Archived'],
    ]);
  });

  it('TICKET-27 a ticket shows once, under its current status, newest activity first', () => {
    const cols = kanbanColumns(custom);
    // Ticket 1 was loaded in the Open list and then moved to Pending; ticket 4 came in two lists.
    const board = groupBoard(cols, [
      item(1, 1, 50),
      item(2, 0, 10),
      item(3, 0, 30),
      item(4, 5, 20),
      item(4, 5, 20),
      item(5, 9, 99),
    ]);
    expect(board.get(0)?.map((t) => t.id)).toEqual([3, 2]);
    expect(board.get(1)?.map((t) => t.id)).toEqual([1]);
    expect(board.get(5)?.map((t) => t.id)).toEqual([4]);
    expect([...board.values()].flat()).toHaveLength(4); // code 9 has no column
  });

  it('TICKET-24 the Open count leaves out custom open-type statuses, which have their own column', () => {
    const counts = new Map([
      [0, 12],
      [5, 4],
      [6, 7],
    ]);
    expect(columnCount(0, counts, custom)).toBe(8);
    expect(columnCount(5, counts, custom)).toBe(4);
    expect(columnCount(6, counts, custom)).toBe(7);
    expect(columnCount(1, counts, custom)).toBeUndefined();
  });
});
