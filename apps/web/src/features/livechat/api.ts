import type { AcceptAnswer, LiveChatGroup, LiveChatQueue } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../lib/http';
import { realtime } from '../../lib/realtime';

export const liveChatKeys = { queue: ['livechat', 'queue'] as const, list: ['livechat', 'list'] as const };

/** LIVECHAT-04: the queue, asked with getLiveChatQueue and kept by liveChatQueue. */
export function useLiveChatQueue() {
  const qc = useQueryClient();
  useEffect(() => {
    const off = realtime.on('liveChatQueue', (d) => qc.setQueryData(liveChatKeys.queue, d as LiveChatQueue));
    const offState = realtime.onState((up) => up && void qc.invalidateQueries({ queryKey: liveChatKeys.queue }));
    return () => {
      off();
      offState();
    };
  }, [qc]);
  return useQuery({
    queryKey: liveChatKeys.queue,
    queryFn: async () => {
      const r = await realtime.request<({ ok: true } & LiveChatQueue) | { ok: false; error: string }>(
        'getLiveChatQueue',
      );
      if (!r.ok) throw new Error(r.error);
      return { count: r.count, queue: r.queue };
    },
    retry: 3,
    retryDelay: 1000,
  });
}

/** LIVECHAT-05: accept (an id) or Take one (null). */
export async function acceptLiveChat(id: number | null): Promise<AcceptAnswer> {
  try {
    const r = await api<{ ticket_id: number; livechat_id: number }>('POST', '/api/livechat/accept', { id });
    return { ok: true, ticket_id: r.ticket_id, livechat_id: r.livechat_id };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export function useLiveChatList() {
  const qc = useQueryClient();
  useEffect(() => {
    const refresh = () => void qc.invalidateQueries({ queryKey: liveChatKeys.list });
    const offs = ['liveChatEnded', 'liveChatMerged', 'liveChatQueue', 'removeLiveChat', 'participantChanged'].map((n) =>
      realtime.on(n, refresh),
    );
    return () => {
      for (const o of offs) o();
    };
  }, [qc]);
  return useQuery({
    queryKey: liveChatKeys.list,
    queryFn: () => api<{ data: LiveChatGroup[]; count: number }>('GET', '/api/livechat/list?offset=0'),
  });
}
