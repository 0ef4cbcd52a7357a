import { describe, expect, it } from 'vitest';
import { avatarUrl, firstNotificationTab, Notification, relativeTime } from './notifications.js';

describe('notification items', () => {
  const item = {
    id: 1,
    seen: false,
    type: 'warning',
    channel: 'ticket',
    title: 't',
    body: 'b',
    ts: 1,
    img: null,
    ticket_number: 7,
    category: 'sla',
  };

  it('NOTIF-08 the types are violation, success, warning, others, and Bullish or Bearish; nothing else', () => {
    for (const type of ['violation', 'success', 'warning', 'others', 'Bullish', 'Bearish'])
      expect(Notification.safeParse({ ...item, type }).success, type).toBe(true);
    for (const type of ['error', 'bullish', 'info', ''])
      expect(Notification.safeParse({ ...item, type }).success, type).toBe(false);
  });

  it('NOTIF-10 the avatar path is built from uid and file name at 50x50, each part encoded', () => {
    expect(avatarUrl({ uid: 'demo-admin', file_name: 'abcDEF123_-' })).toBe(
      '/cdn/avatar/demo-admin/abcDEF123_-?w=50&h=50',
    );
    expect(avatarUrl({ uid: 'a/b', file_name: '../x' })).toBe('/cdn/avatar/a%2Fb/..%2Fx?w=50&h=50');
  });
});

describe('the first tab of the panel', () => {
  it('NOTIF-14 HOST-09 the trading host opens on Trade; every other host on SLA', () => {
    expect(firstNotificationTab('trading')).toBe('trade');
    for (const v of ['support', 'combined', undefined]) expect(firstNotificationTab(v), String(v)).toBe('sla');
  });
});

describe('relative time', () => {
  const T = 1_900_000_000; // a notification's ts, unix seconds
  const at = (secondsLater: number) => relativeTime(T, (T + secondsLater) * 1000);
  const MIN = 60;
  const HOUR = 60 * MIN;
  const DAY = 24 * HOUR;
  const WEEK = 7 * DAY;

  it('NOTIF-30 NOTIF-31 "Now" at 5 s or less (and for a time ahead of the clock), then seconds', () => {
    expect(at(0)).toBe('Now');
    expect(at(5)).toBe('Now');
    expect(relativeTime(T, (T + 5) * 1000 + 999)).toBe('Now'); // 5.999 s is still 5 whole seconds
    expect(at(-30)).toBe('Now');
    expect(at(6)).toBe('6 seconds ago');
    expect(at(59)).toBe('59 seconds ago');
  });

  it('NOTIF-30 NOTIF-31 minutes, hours under 24, days under 7, then weeks, each "ago", singular for 1', () => {
    const cases: [number, string][] = [
      [MIN, '1 minute ago'],
      [2 * MIN - 1, '1 minute ago'],
      [2 * MIN, '2 minutes ago'],
      [HOUR - 1, '59 minutes ago'],
      [HOUR, '1 hour ago'],
      [2 * HOUR, '2 hours ago'],
      [DAY - 1, '23 hours ago'],
      [DAY, '1 day ago'],
      [2 * DAY, '2 days ago'],
      [WEEK - 1, '6 days ago'],
      [WEEK, '1 week ago'],
      [2 * WEEK - 1, '1 week ago'],
      [2 * WEEK, '2 weeks ago'],
      [60 * WEEK, '60 weeks ago'],
    ];
    for (const [s, text] of cases) expect(at(s), `${s} s`).toBe(text);
  });
});
