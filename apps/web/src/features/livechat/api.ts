import {
  type AcceptAnswer,
  applyOffer,
  LIVECHAT_PAGE,
  type LiveChatGroup,
  type LiveChatQueue,
  type UnreadCount,
} from '@parley/contracts';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../lib/http';
import { liveChatKeys } from '../../lib/queryKeys';
import { realtime, useRealtimeEvent } from '../../lib/realtime';
import { shell } from '../../lib/shellStore';

type ListPage = { data: LiveChatGroup[]; count: number };

/**
 * LIVECHAT-04: the queue, asked with getLiveChatQueue and kept by liveChatQueue; a `liveChatOffer` to this
 * user (automatic offering) marks its chat at once.
 */
export function useLiveChatQueue(userId: number, username: string) {
  const qc = useQueryClient();
  useRealtimeEvent('liveChatQueue', (d) => qc.setQueryData(liveChatKeys.queue, d));
  useRealtimeEvent('liveChatOffer', (d) =>
    qc.setQueryData<LiveChatQueue>(liveChatKeys.queue, (q) =>
      applyOffer(q ?? { count: 0, queue: [] }, d, { id: userId, username }),
    ),
  );
  useEffect(() => realtime.onState((up) => up && void qc.invalidateQueries({ queryKey: liveChatKeys.queue })), [qc]);
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

/**
 * LIVECHAT-02, LIVECHAT-23 (design): the groups, 30 a page (`offset`); Show More asks for the next page while
 * fewer than `count` are loaded. A group pushed to a later page by newer ones shows once.
 */
export function useLiveChatList() {
  const qc = useQueryClient();
  useRealtimeEvent(['liveChatEnded', 'liveChatMerged', 'liveChatQueue', 'removeLiveChat', 'participantChanged'], () => {
    void qc.invalidateQueries({ queryKey: liveChatKeys.list });
  });
  const q = useInfiniteQuery({
    queryKey: liveChatKeys.list,
    queryFn: ({ pageParam }) => api<ListPage>('GET', `/api/livechat/list?offset=${pageParam}`),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => {
      const loaded = pages.length * LIVECHAT_PAGE;
      return last.data.length === LIVECHAT_PAGE && loaded < last.count ? loaded : undefined;
    },
  });
  const seen = new Set<number>();
  const groups = (q.data?.pages ?? [])
    .flatMap((p) => p.data)
    .filter((g) => !seen.has(g.session_id) && seen.add(g.session_id));
  return { ...q, groups };
}

/** Live chats (the LIVECHAT tickets) with messages this user has not read. */
const unreadLiveChats = (counts: UnreadCount[]) => counts.find((c) => c.type === 'livechat')?.count ?? 0;

/**
 * LIVECHAT-17: the Live Chats bottom tab's badge while live chats are unread or the queue is
 * not empty. The unread count is asked on start, on reconnect and (at most once a second) after messages;
 * `unreadCount2` (after a read) sets it at once.
 */
export function useLiveChatBadge(queueCount: number) {
  const qc = useQueryClient();
  const unread = useQuery({
    queryKey: liveChatKeys.unread,
    queryFn: () => api<{ data: UnreadCount[] }>('GET', '/api/unread').then((r) => unreadLiveChats(r.data)),
  });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        void qc.invalidateQueries({ queryKey: liveChatKeys.unread });
      }, 1000);
    };
    const offs = [
      // Newer than any read still on its way (see the shell's unread counts): that read is dropped.
      realtime.on('unreadCount2', (d) => {
        void qc
          .cancelQueries({ queryKey: liveChatKeys.unread, exact: true })
          .then(() => qc.setQueryData(liveChatKeys.unread, unreadLiveChats(d.data)));
      }),
      realtime.on('newMessage', soon),
      realtime.on('channelDataUpdated2', soon),
      realtime.on('liveChatEnded', soon),
      realtime.on('participantChanged', soon),
      realtime.onState((up) => up && soon()),
    ];
    return () => {
      if (timer) clearTimeout(timer);
      for (const o of offs) o();
    };
  }, [qc]);
  const on = queueCount > 0 || (unread.data ?? 0) > 0;
  useEffect(() => {
    shell.set({ liveChatBadge: on });
  }, [on]);
  useEffect(() => () => shell.set({ liveChatBadge: false }), []);
}

/** TICKET-41 for live chats: the open chat is read while the page has focus (now, on focus, on a message). */
export function useReadOpenChat(ticketId: number | null) {
  const qc = useQueryClient();
  useEffect(() => {
    if (ticketId === null) return;
    const read = () => {
      if (!document.hasFocus()) return;
      api<{ unread: UnreadCount[] }>('POST', '/api/ticket/read', { id: ticketId })
        .then((r) => qc.setQueryData(liveChatKeys.unread, unreadLiveChats(r.unread)))
        .catch(() => {
          // The chat may be gone (removed, merged); the badge asks again on the next event.
        });
    };
    read();
    const offMessage = realtime.on('newMessage', (d) => {
      if (d.ticketId === ticketId) read();
    });
    window.addEventListener('focus', read);
    return () => {
      offMessage();
      window.removeEventListener('focus', read);
    };
  }, [ticketId, qc]);
}
