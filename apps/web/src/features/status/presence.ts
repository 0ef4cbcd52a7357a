import type { OnlineUser, StatusUpdated } from '@parley/contracts';
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { statusApi } from '../../lib/api/status';
import { statusKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';

/** Applies a `statusUpdated` event to the cached online list and to my own status. */
export function applyStatusUpdate(qc: QueryClient, e: StatusUpdated, myUserId: number | undefined): void {
  const merge = (u: OnlineUser): OnlineUser => ({
    ...u,
    status: e.status,
    second_status: e.second_status,
    reason: e.reason,
    ts: e.since,
    last_seen: e.status === 'OFFLINE' ? e.since : u.last_seen,
  });
  qc.setQueryData<OnlineUser[]>(statusKeys.online, (list) => list?.map((u) => (u.userId === e.userId ? merge(u) : u)));
  if (e.userId === myUserId) qc.setQueryData<OnlineUser | null>(statusKeys.me, (me) => (me ? merge(me) : me));
}

/** Keeps presence caches live for the whole signed-in session. Returns the unsubscribe. */
export function subscribePresence(qc: QueryClient, myUserId: number | undefined): () => void {
  return realtime.on('statusUpdated', (data) => applyStatusUpdate(qc, data, myUserId));
}

/**
 * Pure: what my status is after a fetch. A fetch read before a live `statusUpdated` but answered after it
 * must not put the older state back: a status that began later (`ts`) than the fetched one wins.
 */
export function newerStatus(cached: OnlineUser | null | undefined, fetched: OnlineUser | null): OnlineUser | null {
  return cached && fetched && cached.ts > fetched.ts ? cached : fetched;
}

/** My own status, kept live by `subscribePresence`. */
export function useMyStatus() {
  const qc = useQueryClient();
  return useQuery({
    queryKey: statusKeys.me,
    queryFn: async () => {
      const fetched = await statusApi.me();
      // The cache as it is now, after the answer: a live event may have come while the call was out.
      return newerStatus(qc.getQueryData<OnlineUser | null>(statusKeys.me), fetched);
    },
    staleTime: 60_000,
  });
}

export const useCustomStatuses = () =>
  useQuery({ queryKey: statusKeys.custom, queryFn: statusApi.customStatuses, staleTime: 5 * 60_000, retry: 2 });
