import { describe, expect, it } from 'vitest';
import { lastSeenText } from '../../features/status/OnlineUsersPanel';
import { pageTitle } from '../SignedInLayout';

describe('page title and presence text', () => {
  it('SHELL-40 SHELL-41 the title carries the unread total and the admin name', () => {
    expect(pageTitle('Parley', 'Ann Admin', 0)).toBe('Parley - Ann Admin');
    expect(pageTitle('Parley Support', 'Ann Admin', 3)).toBe('(3) Parley Support - Ann Admin');
    expect(pageTitle('Parley', undefined, 0)).toBe('Parley');
  });

  it('STATUS-26 last-seen text', () => {
    const now = Date.UTC(2026, 10, 23, 12);
    expect(lastSeenText({ status: 'ONLINE', last_seen: null }, now)).toBe('Online now');
    expect(lastSeenText({ status: 'OFFLINE', last_seen: now - 5 * 60_000 }, now)).toBe('Last seen 5 minutes ago');
    expect(lastSeenText({ status: 'OFFLINE', last_seen: null }, now)).toBe('Not seen yet');
  });
});
