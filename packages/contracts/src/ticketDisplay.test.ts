import { describe, expect, it } from 'vitest';
import { APPOINTMENT_KEY, appointmentDays } from './ticketDisplay.js';
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

  it('TICKET-62 the appointment date shows in days, urgent (red) under 2 days', () => {
    const now = new Date(2026, 10, 23, 15, 30).getTime();
    const at = (v: unknown) => appointmentDays({ [APPOINTMENT_KEY]: v }, now);
    expect(at('2026-11-30')).toEqual({ days: 7, urgent: false });
    expect(at('25/11/2026')).toEqual({ days: 2, urgent: false });
    expect(at('2026-11-24 09:00')).toEqual({ days: 1, urgent: true });
    expect(at('2026-11-23')).toEqual({ days: 0, urgent: true });
    expect(at('2026-11-20')).toEqual({ days: -3, urgent: true });
    expect(at(Math.floor(new Date(2026, 11, 3, 10).getTime() / 1000))).toEqual({ days: 10, urgent: false });
    expect(at('')).toBeNull();
    expect(at('soon')).toBeNull();
    expect(appointmentDays({}, now)).toBeNull();
  });
});
