import { describe, expect, it } from 'vitest';
import { avatarUrl, firstNotificationTab, Notification } from './notifications.js';

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
