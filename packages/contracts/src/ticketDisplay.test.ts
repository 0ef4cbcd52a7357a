import { describe, expect, it } from 'vitest';
import { assigneeText, ticketDate } from './tickets.js';

describe('ticket list display rules', () => {
  it('TICKET-63 today shows the time, yesterday "Yesterday", otherwise D/M/YYYY', () => {
    const now = new Date(2026, 10, 23, 15, 30).getTime();
    expect(ticketDate(new Date(2026, 10, 23, 9, 5).getTime(), now)).toBe('09:05');
    expect(ticketDate(new Date(2026, 10, 22, 23, 59).getTime(), now)).toBe('Yesterday');
    expect(ticketDate(new Date(2026, 10, 21, 12, 0).getTime(), now)).toBe('21/11/2026');
    expect(ticketDate(new Date(2026, 0, 1, 0, 0).getTime(), new Date(2026, 0, 2, 8).getTime())).toBe('Yesterday');
    expect(ticketDate(new Date(2025, 11, 31).getTime(), new Date(2026, 0, 1, 8).getTime())).toBe('Yesterday');
    expect(ticketDate(new Date(2025, 2, 5).getTime(), now)).toBe('5/3/2025');
  });

  it('TICKET-61 up to three assignees, then "+ N"', () => {
    expect(assigneeText([])).toBe('');
    expect(assigneeText(['ann', 'bob', 'cat'])).toBe('ann, bob, cat');
    expect(assigneeText(['ann', 'bob', 'cat', 'dan', 'eve'])).toBe('ann, bob, cat + 2');
  });
});
