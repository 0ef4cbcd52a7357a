import {
  effectiveStatus,
  type StatusUpdated,
  SUPERVISORY_REFRESH_DEBOUNCE_MS,
  type SupervisorySnapshot,
} from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { supervisoryKeys } from '../../lib/queryKeys';
import { useRealtimeEvent } from '../../lib/realtime';
import { useConnected } from '../../lib/useConnected';
import { supervisoryApi } from './api';

/**
 * The socket events after which what the board shows may have changed: statuses, the live-chat queue and
 * running chats, tickets (assignment, status, new ones, merges), SLA alerts and settings, and a catch-up that
 * was cut short.
 */
const CHANGES = [
  'statusUpdated',
  'liveChatQueue',
  'liveChatEnded',
  'liveChatMerged',
  'participantChanged',
  'updateTicket',
  'createTicket',
  'ticketsMerged',
  'ticketStatusesUpdated',
  'newNotification',
  'labelsUpdated',
  'settingsChanged',
  'resync',
] as const;

/** Longest a browser timer may wait (about 24.8 days). */
const MAX_TIMEOUT = 2 ** 31 - 1;

/** A snapshot with the offset of the server's clock from this browser's, measured when it arrived. */
export type Board = SupervisorySnapshot & { skew: number };

/**
 * The board's snapshot, kept live over the socket without polling: every event in CHANGES reads it again,
 * coalesced (the first event of a burst schedules one read `SUPERVISORY_REFRESH_DEBOUNCE_MS` later), and a
 * status change is shown at once by patching the agent's row. The one change no event announces, a clock
 * entering the risk window as time passes, is read again at the `nextChangeAt` the server names.
 */
export function useSupervisoryBoard(enabled: boolean) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: supervisoryKeys.board,
    queryFn: async (): Promise<Board> => {
      const data = await supervisoryApi.board();
      return { ...data, skew: data.now - Date.now() };
    },
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });

  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refresh = () => {
    if (pending.current) return;
    pending.current = setTimeout(() => {
      pending.current = null;
      void client.invalidateQueries({ queryKey: supervisoryKeys.board });
    }, SUPERVISORY_REFRESH_DEBOUNCE_MS);
  };
  useEffect(
    () => () => {
      if (pending.current) clearTimeout(pending.current);
    },
    [],
  );

  useRealtimeEvent(
    CHANGES,
    (data, _seq) => {
      refresh();
      if (data && typeof data === 'object' && 'since' in data && 'userId' in data) patchStatus(data as StatusUpdated);
    },
    enabled,
  );
  const patchStatus = (s: StatusUpdated) =>
    client.setQueryData<Board>(supervisoryKeys.board, (old) =>
      old
        ? {
            ...old,
            agents: old.agents.map((a) =>
              a.userId === s.userId
                ? { ...a, status: effectiveStatus(s), reason: s.second_status ? s.reason : '', since: s.since }
                : a,
            ),
          }
        : old,
    );

  // Back from a dropped connection: the catch-up replays what was missed, and the board reads once more.
  const connected = useConnected();
  const wasConnected = useRef(connected);
  useEffect(() => {
    if (connected && !wasConnected.current) refresh();
    wasConnected.current = connected;
  });

  // The next clock to enter the risk window, on the server's time.
  const next = query.data?.nextChangeAt ?? null;
  const skew = query.data?.skew ?? 0;
  useEffect(() => {
    if (next === null || !enabled) return;
    const wait = Math.min(MAX_TIMEOUT, Math.max(0, next - skew - Date.now()) + 1_000);
    const t = setTimeout(() => void client.invalidateQueries({ queryKey: supervisoryKeys.board }), wait);
    return () => clearTimeout(t);
  }, [next, skew, enabled, client]);

  return { query, connected };
}

/** The server's time now, ticking once a second so durations redraw (a local clock: nothing is fetched). */
export function useServerNow(skew: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  return now + skew;
}
