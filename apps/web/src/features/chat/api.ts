import {
  CHAT_PAGE,
  type ChatAnswer,
  type ChatListAnswer,
  type CreateChatInput,
  type OnlineUser,
} from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../../lib/http';
import { chatKeys } from '../../lib/queryKeys';
import { currentSocket, realtime, useEphemeralEvent, useRealtimeEvent } from '../../lib/realtime';

/** The caller's chats, `pages` pages of CHAT_PAGE (Show More adds one), refreshed by their live events. */
export function useChatList(pages: number) {
  const qc = useQueryClient();
  useRealtimeEvent(['newMessage', 'participantChanged', 'syncDelete'], () => {
    void qc.invalidateQueries({ queryKey: chatKeys.all });
  });
  useEffect(() => realtime.onState((up) => up && void qc.invalidateQueries({ queryKey: chatKeys.all })), [qc]);
  return useQuery({
    queryKey: chatKeys.list(pages),
    queryFn: async () => {
      const out: ChatListAnswer = { result: 'success', data: [], count: 0, unread: 0 };
      for (let p = 0; p < pages; p++) {
        const r = await api<ChatListAnswer>('GET', `/api/chat/list?offset=${p * CHAT_PAGE}`);
        out.data.push(...r.data.filter((c) => !out.data.some((d) => d.id === c.id)));
        out.count = r.count;
        out.unread = r.unread;
        if (r.data.length < CHAT_PAGE) break;
      }
      return out;
    },
    placeholderData: (prev) => prev,
  });
}

export const chatApi = {
  one: (id: number) => api<ChatAnswer>('GET', `/api/chat/${id}`).then((r) => r.data),
  create: (input: CreateChatInput) => api<ChatAnswer>('POST', '/api/chat/create', input).then((r) => r.data),
  read: (id: number) => api<{ result: 'success' }>('POST', '/api/chat/read', { id }),
  team: () => api<{ result: 'success'; data: OnlineUser[] }>('GET', '/status/get').then((r) => r.data),
};

/** The team members a chat can be started with (everyone of the account but me). */
export function useTeam(enabled: boolean) {
  return useQuery({ queryKey: chatKeys.team, queryFn: chatApi.team, enabled, staleTime: 30_000 });
}

type MeetingAck = { ok: boolean; count?: number; counts?: Record<string, number>; error?: string };
async function ask(name: string, arg: unknown): Promise<MeetingAck> {
  const s = currentSocket();
  if (!s?.connected) return { ok: false, error: 'not connected' };
  try {
    return (await s.timeout(10_000).emitWithAck(name, arg)) as MeetingAck;
  } catch {
    return { ok: false, error: 'No answer from the server.' };
  }
}

/**
 * CHAT-08, CHAT-09, CHAT-11: meeting counts by chat id (asked with getMeetingCount, kept by meetingCount),
 * and whether this tab is on a chat's meeting. The server ends it when the socket drops; after a
 * reconnect this tab is no longer on it.
 */
export function useMeetings(ids: number[]) {
  const [counts, setCounts] = useState<Record<number, number>>({});
  const [onMeeting, setOnMeeting] = useState<number | null>(null);
  const key = ids.join(',');
  useEffect(() => {
    const load = async () => {
      if (!key) return;
      const r = await ask('getMeetingCount', key.split(',').map(Number));
      if (r.ok && r.counts)
        setCounts((c) => ({ ...c, ...Object.fromEntries(Object.entries(r.counts!).map(([k, v]) => [Number(k), v])) }));
    };
    void load();
    return realtime.onState((up) => {
      if (!up) setOnMeeting(null);
      else void load();
    });
  }, [key]);
  useEphemeralEvent('meetingCount', (e) => setCounts((c) => ({ ...c, [e.ticketId]: e.count })));
  const join = async (id: number) => {
    if (onMeeting && onMeeting !== id) await ask('leaveMeeting', onMeeting);
    const r = await ask('joinMeeting', id);
    if (r.ok) {
      setOnMeeting(id);
      setCounts((c) => ({ ...c, [id]: r.count ?? c[id] ?? 0 }));
    }
    return r;
  };
  const leave = async (id: number) => {
    const r = await ask('leaveMeeting', id);
    setOnMeeting(null);
    if (r.ok) setCounts((c) => ({ ...c, [id]: r.count ?? 0 }));
    return r;
  };
  return { counts, onMeeting, join, leave };
}
