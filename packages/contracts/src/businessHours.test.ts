import { describe, expect, it } from 'vitest';
import {
  addBusinessTime,
  businessMinutesBetween,
  isIsoDate,
  isTimeZone,
  parseTimeOfDay,
  scheduleError,
  type WeekSchedule,
  zonedTime,
} from './businessHours.js';
import { BusinessHoursInput, HolidaysInput, slaTimeLeft } from './slaPolicies.js';

const nineToSix = [{ start: '09:00', end: '18:00' }];
/** Monday to Friday 09:00-18:00. */
const weekdays: WeekSchedule = [[], nineToSix, nineToSix, nineToSix, nineToSix, nineToSix, []];
const utc = (s: string) => Date.parse(`${s}Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);

describe('addBusinessTime', () => {
  it('a ticket opened Friday 17:55 with a 1-hour target in 09:00-18:00 Mon-Fri is due Monday 09:55', () => {
    // 2026-11-27 is a Friday.
    expect(iso(addBusinessTime(utc('2026-11-27T17:55'), 60, weekdays, [], 'UTC'))).toBe('2026-11-30T09:55');
  });

  it('a holiday on that Monday moves it to Tuesday 09:55', () => {
    expect(iso(addBusinessTime(utc('2026-11-27T17:55'), 60, weekdays, ['2026-11-30'], 'UTC'))).toBe('2026-12-01T09:55');
  });

  it('counts in the time zone of the account: Friday 17:55 in New York is Monday 09:55 New York time', () => {
    // New York is UTC-5 in late November.
    const due = addBusinessTime(utc('2026-11-27T22:55'), 60, weekdays, [], 'America/New_York');
    expect(iso(due)).toBe('2026-11-30T14:55');
    // The holiday is the account's calendar day.
    expect(iso(addBusinessTime(utc('2026-11-27T22:55'), 60, weekdays, ['2026-11-30'], 'America/New_York'))).toBe(
      '2026-12-01T14:55',
    );
  });

  it('crosses daylight saving time: the business day stays 09:00-18:00 local', () => {
    // Berlin leaves summer time on Sunday 2026-10-25: Friday 17:55 CEST (UTC+2) -> Monday 09:55 CET (UTC+1).
    const due = addBusinessTime(utc('2026-10-23T15:55'), 60, weekdays, [], 'Europe/Berlin');
    expect(iso(due)).toBe('2026-10-26T08:55');
    // And into summer time (Sunday 2026-03-29): Friday 17:55 CET -> Monday 09:55 CEST (UTC+2).
    expect(iso(addBusinessTime(utc('2026-03-27T16:55'), 60, weekdays, [], 'Europe/Berlin'))).toBe('2026-03-30T07:55');
  });

  it('a day that is 23 hours long: a 24/7 schedule counts the real elapsed time', () => {
    const always: WeekSchedule = Array.from({ length: 7 }, () => [{ start: '00:00', end: '24:00' }]);
    const start = utc('2026-03-28T12:00');
    expect(addBusinessTime(start, 24 * 60, always, [], 'Europe/Berlin') - start).toBe(24 * 3600_000);
  });

  it('inside business hours it counts on; several intervals a day; a start before opening waits for it', () => {
    const split: WeekSchedule = [
      [],
      [
        { start: '13:00', end: '17:00' },
        { start: '09:00', end: '12:00' },
      ],
      [],
      [],
      [],
      [],
      [],
    ];
    // Monday 2026-11-30 10:00 + 3 h: 2 h until 12:00, then 1 h from 13:00.
    expect(iso(addBusinessTime(utc('2026-11-30T10:00'), 180, split, [], 'UTC'))).toBe('2026-11-30T14:00');
    // Monday 07:00 + 30 min starts at 09:00.
    expect(iso(addBusinessTime(utc('2026-11-30T07:00'), 30, split, [], 'UTC'))).toBe('2026-11-30T09:30');
    // Monday 16:30 + 1 h: 30 min today, then next Monday 09:30.
    expect(iso(addBusinessTime(utc('2026-11-30T16:30'), 60, split, [], 'UTC'))).toBe('2026-12-07T09:30');
  });

  it('a schedule without any hours counts calendar time', () => {
    const none: WeekSchedule = [[], [], [], [], [], [], []];
    const start = utc('2026-11-27T17:55');
    expect(addBusinessTime(start, 60, none, [], 'UTC')).toBe(start + 3600_000);
  });

  it('zonedTime: a skipped local time moves forward, a normal one is exact', () => {
    // 02:30 does not exist in Berlin on 2026-03-29; 03:30 CEST is 01:30 UTC.
    expect(iso(zonedTime(2026, 3, 29, 150, 'Europe/Berlin'))).toBe('2026-03-29T01:30');
    expect(iso(zonedTime(2026, 7, 1, 9 * 60, 'Asia/Kolkata'))).toBe('2026-07-01T03:30');
  });
});

describe('businessMinutesBetween', () => {
  const always: WeekSchedule = Array.from({ length: 7 }, () => [{ start: '00:00', end: '24:00' }]);

  it('Friday 17:55 to Monday 09:55 in Mon-Fri 09:00-18:00 is 60 business minutes; Saturday adds none', () => {
    expect(businessMinutesBetween(utc('2026-11-27T17:55'), utc('2026-11-30T09:55'), weekdays, [], 'UTC')).toBe(60);
    expect(businessMinutesBetween(utc('2026-11-27T17:55'), utc('2026-11-28T23:00'), weekdays, [], 'UTC')).toBe(5);
    // Inside one day, and partial minutes are not rounded.
    expect(businessMinutesBetween(utc('2026-11-30T10:00'), utc('2026-11-30T10:00:30'), weekdays, [], 'UTC')).toBe(0.5);
  });

  it('a holiday counts nothing: Friday 17:55 to Tuesday 09:55 over a Monday holiday is 60 minutes', () => {
    const [from, tuesday] = [utc('2026-11-27T17:55'), utc('2026-12-01T09:55')];
    expect(businessMinutesBetween(from, tuesday, weekdays, ['2026-11-30'], 'UTC')).toBe(60);
    expect(businessMinutesBetween(from, tuesday, weekdays, [], 'UTC')).toBe(60 + 9 * 60);
    // The holiday is a day of the account's time zone: New York's Monday ends at 05:00 UTC on Tuesday.
    expect(
      businessMinutesBetween(
        utc('2026-11-27T22:55'),
        utc('2026-12-01T14:55'),
        weekdays,
        ['2026-11-30'],
        'America/New_York',
      ),
    ).toBe(60);
  });

  it('crosses daylight saving time: 09:00-18:00 stays local, 24/7 counts the real 23 and 25 hours', () => {
    // Berlin leaves summer time on Sunday 2026-10-25: Friday 17:55 CEST -> Monday 09:55 CET.
    expect(
      businessMinutesBetween(utc('2026-10-23T15:55'), utc('2026-10-26T08:55'), weekdays, [], 'Europe/Berlin'),
    ).toBe(60);
    // Sunday 2026-03-29 has 23 hours in Berlin, Sunday 2026-10-25 has 25.
    const day = (from: string, to: string) => businessMinutesBetween(utc(from), utc(to), always, [], 'Europe/Berlin');
    expect(day('2026-03-28T23:00', '2026-03-29T22:00')).toBe(23 * 60);
    expect(day('2026-10-24T22:00', '2026-10-25T23:00')).toBe(25 * 60);
  });

  it('is what addBusinessTime spends, in every zone and schedule tried', () => {
    const split: WeekSchedule = [
      [],
      [
        { start: '09:00', end: '12:00' },
        { start: '13:00', end: '17:00' },
      ],
      [],
      [],
      [],
      [],
      [],
    ];
    for (const tz of ['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'])
      for (const schedule of [weekdays, split, always])
        for (const start of [utc('2026-03-27T16:55'), utc('2026-10-23T15:55'), utc('2026-11-27T17:55')])
          for (const minutes of [1, 48, 60, 8 * 60, 3 * 24 * 60]) {
            const due = addBusinessTime(start, minutes, schedule, ['2026-11-30'], tz);
            expect(
              businessMinutesBetween(start, due, schedule, ['2026-11-30'], tz),
              `${tz} ${iso(start)} +${minutes}`,
            ).toBe(minutes);
          }
  });

  it('nothing when the end is not after the start; calendar time without any hours', () => {
    const start = utc('2026-11-27T17:55');
    expect(businessMinutesBetween(start, start, weekdays, [], 'UTC')).toBe(0);
    expect(businessMinutesBetween(start, start - 60_000, weekdays, [], 'UTC')).toBe(0);
    expect(businessMinutesBetween(start, start + 90 * 60_000, [[], [], [], [], [], [], []], [], 'UTC')).toBe(90);
  });
});

describe('business hours validation', () => {
  it('times, time zones and dates', () => {
    expect(parseTimeOfDay('09:05')).toBe(545);
    expect(parseTimeOfDay('24:00')).toBe(1440);
    for (const bad of ['9:00', '24:01', '12:60', 'noon', '']) expect(parseTimeOfDay(bad), bad).toBeNull();
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isIsoDate('2026-02-28')).toBe(true);
    for (const bad of ['2026-02-30', '2026-2-3', '28.02.2026', '2026-13-01']) expect(isIsoDate(bad), bad).toBe(false);
  });

  it('end before start and overlapping intervals are named clearly', () => {
    const day = (i: { start: string; end: string }[]): WeekSchedule => [[], i, [], [], [], [], []];
    expect(scheduleError(day([{ start: '18:00', end: '09:00' }]))).toBe(
      'Monday: the end (09:00) must be after the start (18:00).',
    );
    expect(
      scheduleError(
        day([
          { start: '09:00', end: '12:00' },
          { start: '11:00', end: '14:00' },
        ]),
      ),
    ).toBe('Monday: 09:00-12:00 overlaps 11:00-14:00.');
    expect(scheduleError(weekdays)).toBeNull();
    const r = BusinessHoursInput.safeParse({ departmentId: null, timezone: 'Nowhere/City', days: weekdays });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe(
      '"Nowhere/City" is not a known time zone (use an IANA name such as Europe/Berlin).',
    );
    const h = HolidaysInput.safeParse({ departmentId: null, holidays: [{ date: '2026-02-30', name: 'x' }] });
    expect(h.error?.issues[0]?.message).toBe('"2026-02-30" is not a date (YYYY-MM-DD).');
  });

  it('time left reads in minutes, hours and days', () => {
    const now = utc('2026-11-27T12:00');
    expect(slaTimeLeft(now + 5 * 60_000, now)).toBe('5 min left');
    expect(slaTimeLeft(now + 125 * 60_000, now)).toBe('2 h 5 min left');
    expect(slaTimeLeft(now + 3 * 1440 * 60_000, now)).toBe('3 d 0 h left');
    expect(slaTimeLeft(now - 3 * 60_000, now)).toBe('3 min over');
  });
});
