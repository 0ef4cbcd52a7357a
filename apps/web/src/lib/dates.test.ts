import { ticketDate } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import {
  conversationDay,
  elapsed,
  formatDateTime,
  formatDay,
  formatDuration,
  formatTime,
  isoDay,
  listDate,
  pickerDay,
  pickerToRequestDay,
  timeLeft,
} from './dates';

describe('the shared date formatter', () => {
  const at = new Date(2026, 10, 7, 9, 5, 3).getTime();
  it('TICKET-63 CONST-02 a date shown is D/M/YYYY without zero padding; an invalid date gives an empty value', () => {
    expect(formatDay(at)).toBe('7/11/2026');
    expect(formatDay(new Date(2026, 2, 5).getTime())).toBe('5/3/2026');
    expect(formatDay('2026-03-05')).toBe('5/3/2026');
    expect(formatDay('2026-12-25 10:00:00')).toBe('25/12/2026');
    expect(formatDay(Number.NaN)).toBe('');
    expect(formatDay('2026-02-30')).toBe('');
    expect(formatDay('5/3/2026')).toBe('');
    expect(formatDay(null)).toBe('');
  });
  it('CONST-02 a date as data (keys, input values, request parameters) stays YYYY-MM-DD', () => {
    expect(isoDay(at)).toBe('2026-11-07');
    expect(isoDay(new Date(2026, 2, 5))).toBe('2026-03-05');
    expect(isoDay('2026-02-30')).toBe('');
    expect(isoDay(undefined)).toBe('');
  });
  it('times and moments on a 24-hour clock, the day as D/M/YYYY', () => {
    expect(formatTime(at)).toBe('09:05');
    expect(formatTime(at, { seconds: true })).toBe('09:05:03');
    expect(formatDateTime(at)).toBe('7/11/2026 09:05');
    expect(formatDateTime(new Date(2026, 2, 5, 18, 4, 9).getTime(), { seconds: true })).toBe('5/3/2026 18:04:09');
    expect(formatDateTime(Number.NaN)).toBe('');
  });
  it('TICKET-63 every list: today the time, "Yesterday", else D/M/YYYY', () => {
    const now = new Date(2026, 10, 8, 12, 0).getTime();
    expect(listDate(new Date(2026, 10, 8, 7, 30).getTime(), now)).toBe('07:30');
    expect(listDate(at, now)).toBe('Yesterday');
    expect(listDate(new Date(2026, 10, 1).getTime(), now)).toBe('1/11/2026');
    expect(listDate(new Date(2026, 10, 1).getTime(), now)).toBe(ticketDate(new Date(2026, 10, 1).getTime(), now));
    expect(listDate(null, now)).toBe('');
  });
  it('MSG-18 DD/MM/YYYY for the conversation days, kept as the spec names it', () => {
    expect(conversationDay(at)).toBe('07/11/2026');
  });
  it('REPORT-08 REPORT-10 the report picker shows DD-MM-YYYY and sends YYYY-MM-DD; a day that is not real sends nothing', () => {
    expect(pickerDay(at)).toBe('07-11-2026');
    expect(pickerDay(Number.NaN)).toBe('');
    expect(pickerToRequestDay(' 07-11-2026 ')).toBe('2026-11-07');
    expect(pickerToRequestDay('30-02-2026')).toBe('');
    expect(pickerToRequestDay('2026-11-07')).toBe('');
    expect(pickerToRequestDay('7-11-2026')).toBe('');
  });
  it('durations: seconds under a minute, then minutes, hours and days; never negative', () => {
    const t0 = at;
    expect(elapsed(t0, t0 + 45_000)).toBe('45 s');
    expect(elapsed(t0, t0 + 12 * 60_000 + 59_000)).toBe('12 min');
    expect(elapsed(t0, t0 + (2 * 60 + 5) * 60_000)).toBe('2 h 5 min');
    expect(elapsed(t0, t0 + (3 * 24 + 4) * 3_600_000)).toBe('3 d 4 h');
    expect(elapsed(t0 + 5_000, t0)).toBe('0 s');
    expect(formatDuration(90 * 60_000)).toBe('1 h 30 min');
    expect(formatDuration(null)).toBe('');
    expect(timeLeft(t0 + 20 * 60_000, t0)).toBe('20 min left');
    expect(timeLeft(t0, t0 + 3 * 60_000)).toBe('3 min over');
  });
});
