import type { OnlineUser, StatusUpdated } from '@parley/contracts';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { realtime } from '../../lib/realtime';
import { statusApi, statusKeys } from './api';

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
  return realtime.on('statusUpdated', (data) => applyStatusUpdate(qc, data as StatusUpdated, myUserId));
}

export const useMyStatus = () => useQuery({ queryKey: statusKeys.me, queryFn: statusApi.me, staleTime: 60_000 });

export const useCustomStatuses = () =>
  useQuery({ queryKey: statusKeys.custom, queryFn: statusApi.customStatuses, staleTime: 5 * 60_000, retry: 2 });
