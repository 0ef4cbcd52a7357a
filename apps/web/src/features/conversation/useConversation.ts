import { type ReadReceiptEvent, TYPING_LOCAL_MS, TYPING_REMOTE_MS, type TypingEvent } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { realtime } from '../../lib/realtime';
import { useSession } from '../auth/useSession';
import { conversationApi, currentSocket, emit, joinRoom } from './api';
import { convKey, installLive, startLoading, touchRecent, withChangesWhileLoading } from './live';
import { addOlder, asMessage, type ConversationData, lastId } from './model';
import { outbox } from './outbox';

/** The signed-in user as the conversation needs it. */
export function useMe() {
  const { state } = useSession();
  const s = state.phase === 'signedIn' ? state.session : undefined;
  return {
    username: s?.adminUsername ?? '',
    name: s?.adminName ?? '',
    accountId: s?.accountId ?? 0,
    userId: s?.userId ?? 0,
    admin: s?.type === 'admin',
  };
}

export function useOutboxItems() {
  return useSyncExternalStore(
    (l) => outbox.subscribe(l),
    () => outbox.all(),
  );
}

/** Loads one conversation (newest 30) into the cache and keeps it there among the recent ten. */
export function useConversationData(ticketId: number) {
  const qc = useQueryClient();
  const me = useMe();
  useEffect(() => {
    if (me.username) installLive(qc, me.username, me.accountId, me.userId);
  }, [qc, me.username, me.accountId, me.userId]);
  useEffect(() => touchRecent(qc, ticketId), [qc, ticketId]);
  const query = useQuery({
    queryKey: convKey(ticketId),
    enabled: Number.isInteger(ticketId) && ticketId > 0 && me.username !== '',
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: false,
    queryFn: async (): Promise<ConversationData> => {
      startLoading(ticketId);
      const r = await conversationApi.history(ticketId);
      return withChangesWhileLoading(ticketId, {
        ticketId,
        messages: r.data.map((m) => asMessage(m, me.username)),
        count: r.count,
        olderOut: r.more,
        newerOut: false,
        // The next check asks for deletions from a little before now (clocks differ a little).
        ts: Math.max(0, Math.floor(Date.now() / 1000) - 120),
      });
    },
  });

  const [loadingOlder, setLoadingOlder] = useState(false);
  const loadOlder = useCallback(async () => {
    const d = qc.getQueryData<ConversationData>(convKey(ticketId));
    const first = d?.messages[0];
    if (!d?.olderOut || !first || loadingOlder) return;
    setLoadingOlder(true);
    try {
      const r = await conversationApi.history(ticketId, first.id);
      qc.setQueryData<ConversationData>(convKey(ticketId), (x) =>
        x
          ? addOlder(
              x,
              r.data.map((m) => asMessage(m, me.username)),
              r.more,
              r.count,
            )
          : x,
      );
    } finally {
      setLoadingOlder(false);
    }
  }, [qc, ticketId, loadingOlder, me.username]);
  /** MSG-41: back to the newest 30 after the newest were let go while reading older ones. */
  const jumpToLatest = useCallback(() => qc.resetQueries({ queryKey: convKey(ticketId), exact: true }), [qc, ticketId]);
  return { query, loadOlder, loadingOlder, jumpToLatest };
}

/** RT-06, RT-08: in the ticket's room while the pane shows it, rejoined after every reconnect. */
export function useTicketRoom(ticketId: number) {
  useEffect(() => {
    const join = () => void joinRoom(ticketId);
    join();
    const off = realtime.onState((up) => up && join());
    return () => {
      off();
      emit('leaveRoom', ticketId);
    };
  }, [ticketId]);
}

/** A plain (not enveloped) socket event, listened to on whichever socket is current. */
function usePlainEvent<T>(name: string, handler: (e: T) => void) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    let socket = currentSocket();
    const h = (e: T) => ref.current(e);
    socket?.on(name, h);
    const off = realtime.onState(() => {
      const now = currentSocket();
      if (now !== socket) {
        socket?.off(name, h);
        socket = now;
        socket?.on(name, h);
      }
    });
    return () => {
      off();
      socket?.off(name, h);
    };
  }, [name]);
}

/** RT-11, RT-39: who is typing here; a socket event clears after 5 s unless repeated. */
export function useTyping(ticketId: number, me: string) {
  const [typing, setTyping] = useState<Record<string, { name: string; until: number }>>({});
  usePlainEvent<TypingEvent>('sendTyping', (e) => {
    if (e.ticketId !== ticketId || e.username === me) return;
    setTyping((t) => ({ ...t, [e.username]: { name: e.name, until: Date.now() + TYPING_REMOTE_MS } }));
  });
  usePlainEvent<TypingEvent>('removeTyping', (e) => {
    if (e.ticketId !== ticketId) return;
    setTyping(({ [e.username]: _, ...rest }) => rest);
  });
  useEffect(() => {
    const t = setInterval(() => {
      setTyping((cur) => {
        const now = Date.now();
        const keep = Object.entries(cur).filter(([, v]) => v.until > now);
        return keep.length === Object.keys(cur).length ? cur : Object.fromEntries(keep);
      });
    }, 500);
    return () => clearInterval(t);
  }, []);
  // A ticket switch forgets who was typing in the last one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on ticket change only
  useEffect(() => setTyping({}), [ticketId]);
  /** Someone's message arrived: they stopped typing. */
  const clear = useCallback((username: string) => setTyping(({ [username]: _, ...rest }) => rest), []);
  return { names: Object.values(typing).map((v) => v.name), clear };
}

/** RT-11, RT-39: my own typing: `sendTyping` at most every 2 s, `removeTyping` 2 s after the last key. */
export function useLocalTyping(ticketId: number) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastSent = useRef(0);
  const stop = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (lastSent.current) emit('removeTyping', ticketId);
    lastSent.current = 0;
  }, [ticketId]);
  const keystroke = useCallback(() => {
    const now = Date.now();
    if (now - lastSent.current > TYPING_LOCAL_MS) {
      emit('sendTyping', ticketId);
      lastSent.current = now;
    }
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(stop, TYPING_LOCAL_MS);
  }, [ticketId, stop]);
  useEffect(() => stop, [stop]);
  return { keystroke, stop };
}

/** RT-09: read receipts, sent when the newest message changes while the page is visible; others' shown. */
export function useReadReceipts(ticketId: number, data: ConversationData | undefined, me: string) {
  const [reads, setReads] = useState<Record<string, number>>({});
  usePlainEvent<ReadReceiptEvent>('readMessage', (e) => {
    if (e.ticketId !== ticketId || e.username === me) return;
    setReads((r) => ({ ...r, [e.username]: e.messageId }));
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on ticket change only
  useEffect(() => setReads({}), [ticketId]);
  const newest = data && !data.newerOut ? lastId(data) : 0;
  useEffect(() => {
    if (!newest) return;
    const send = () => {
      if (document.visibilityState === 'visible') emit('readMessage', { ticketId, messageId: newest });
    };
    send();
    const offState = realtime.onState((up) => up && send());
    document.addEventListener('visibilitychange', send);
    return () => {
      offState();
      document.removeEventListener('visibilitychange', send);
    };
  }, [ticketId, newest]);
  return reads;
}
