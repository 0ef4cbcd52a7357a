import type { OnlineUser } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { newerStatus } from './presence';

const me = (status: string, second_status: string, ts: number): OnlineUser => ({
  userId: 7,
  username: 'ann',
  name: 'Ann',
  photo: null,
  status,
  second_status,
  reason: '',
  ts,
  last_seen: null,
  client_id: 1,
});

describe('my status after a fetch', () => {
  it('STATUS-15 STATUS-16 a fetch answered after a newer live event does not put the older status back', () => {
    // The call read Offline (since 100); meanwhile `statusUpdated` brought Meal Break (since 200).
    const live = me('ONLINE', 'Meal Break', 200);
    expect(newerStatus(live, me('OFFLINE', 'Meal Break', 100))).toBe(live);
    // A fetch as new or newer than the cache wins; so does any fetch with nothing cached.
    const fetched = me('ONLINE', '', 300);
    expect(newerStatus(live, fetched)).toBe(fetched);
    const same = me('ONLINE', 'Meal Break', 200);
    expect(newerStatus(live, same)).toBe(same);
    expect(newerStatus(undefined, fetched)).toBe(fetched);
    expect(newerStatus(live, null)).toBeNull();
  });
});
