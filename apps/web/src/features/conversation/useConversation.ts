import { isLiveChatChannel, type ReadReceiptEvent } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import type { ConversationData } from '../../lib/conversationData';
import { conversationKeys } from '../../lib/queryKeys';
import { currentSocket, realtime, useEphemeralEvent } from '../../lib/realtime';
import { useMe } from '../../lib/session';
import { conversationApi, emit, joinRoom } from './api';
import { type EncryptionMethod, encryptionKeyName, missingKeyError } from './encryptionKey';
import { installLive, startLoading, touchRecent, withChangesWhileLoading } from './live';
import { refreshLiveChatUnread } from './liveChatUnread';
import { addOlder, asMessage, lastId, readEventFor } from './model';
import { outbox } from './outbox';
import { LocalTyping, RemoteTyping } from './typing';

export function useOutboxItems() {
  return useSyncExternalStore(
    (l) => outbox.subscribe(l),
    () => outbox.all(),
  );
}

/**
 * MSG-12, CRYPT-06, CRYPT-07: while a ticket whose messages are encrypted with `method` is open, every message
 * written to it (or retried) is checked for this browser's key at that moment (`encryptionKey.ts`): without
 * one it is failed at once with the key text and never sent. Answers whether the key is missing now (the pane
 * shows the system line); it is read again whenever the outbox changes or another tab changes the key.
 */
export function useEncryptionKey(ticketId: number, method: EncryptionMethod): { missing: boolean } {
  const { accountId } = useMe();
  useEffect(() => {
    if (method === '') return;
    return outbox.check((i) => (i.ticket_id === ticketId ? missingKeyError(accountId, method) : undefined));
  }, [ticketId, accountId, method]);
  const subscribe = useCallback(
    (l: () => void) => {
      const onStorage = (e: StorageEvent) => {
        if (e.key === null || e.key === encryptionKeyName(accountId)) l();
      };
      window.addEventListener('storage', onStorage);
      const off = outbox.subscribe(l);
      return () => {
        window.removeEventListener('storage', onStorage);
        off();
      };
    },
    [accountId],
  );
  const missing = useSyncExternalStore(subscribe, () => missingKeyError(accountId, method) !== undefined);
  return { missing };
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
    queryKey: conversationKeys.one(ticketId),
    enabled: Number.isInteger(ticketId) && ticketId > 0 && me.username !== '',
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: false,
    queryFn: async (): Promise<ConversationData> => {
      startLoading(ticketId);
      const r = await conversationApi.history(ticketId);
      return withChangesWhileLoading(ticketId, {
        ticketId,
        channel: r.channel,
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
    const d = qc.getQueryData<ConversationData>(conversationKeys.one(ticketId));
    const first = d?.messages[0];
    if (!d?.olderOut || !first || loadingOlder) return;
    setLoadingOlder(true);
    try {
      const r = await conversationApi.history(ticketId, first.id);
      qc.setQueryData<ConversationData>(conversationKeys.one(ticketId), (x) =>
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
  const jumpToLatest = useCallback(
    () => qc.resetQueries({ queryKey: conversationKeys.one(ticketId), exact: true }),
    [qc, ticketId],
  );
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

/** Who else has this ticket open (the server tells the room on each join and leave, across nodes). */
export function useTicketViewers(ticketId: number, me: string): string[] {
  const [viewers, setViewers] = useState<{ ticketId: number; names: string[] }>({ ticketId, names: [] });
  useEphemeralEvent('ticketViewers', (e) => {
    if (e.ticketId === ticketId)
      setViewers({ ticketId, names: e.viewers.filter((v) => v.username !== me).map((v) => v.name) });
  });
  // A list of another ticket (the pane switched) is not shown.
  return viewers.ticketId === ticketId ? viewers.names : [];
}

/** RT-11, RT-39: who is typing here (RemoteTyping: a socket event clears after 5 s unless repeated). */
export function useTyping(ticketId: number, me: string) {
  const [names, setNames] = useState<string[]>([]);
  const [tracker] = useState(() => new RemoteTyping(setNames));
  useEphemeralEvent('sendTyping', (e) => {
    if (e.ticketId === ticketId && e.username !== me) tracker.typing(e.username, e.name);
  });
  useEphemeralEvent('removeTyping', (e) => {
    if (e.ticketId === ticketId) tracker.stop(e.username);
  });
  // A ticket switch forgets who was typing in the last one; so does leaving.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on ticket change only
  useEffect(() => () => tracker.clear(), [ticketId, tracker]);
  /** Someone's message arrived: they stopped typing. */
  const clear = useCallback((username: string) => tracker.stop(username), [tracker]);
  return { names, clear };
}

/** RT-11, RT-39: my own typing (LocalTyping): `sendTyping` at most every 2 s, `removeTyping` 2 s after. */
export function useLocalTyping(ticketId: number) {
  const [typing, setTyping] = useState(() => new LocalTyping((e) => emit(e, ticketId)));
  useEffect(() => {
    const t = new LocalTyping((e) => emit(e, ticketId));
    setTyping(t);
    return () => t.stop();
  }, [ticketId]);
  const keystroke = useCallback(() => typing.keystroke(), [typing]);
  const stop = useCallback(() => typing.stop(), [typing]);
  return { keystroke, stop };
}

/**
 * RT-09: read receipts, sent when the newest message changes while the page is visible: `readMessage2` in
 * a Workspace chat (channel `chat`), `readMessage` otherwise; both are shown as "Seen by".
 */
export function useReadReceipts(ticketId: number, data: ConversationData | undefined, me: string) {
  const [reads, setReads] = useState<Record<string, number>>({});
  const onRead = (e: ReadReceiptEvent) => {
    if (e.ticketId !== ticketId || e.username === me) return;
    setReads((r) => ({ ...r, [e.username]: Math.max(r[e.username] ?? 0, e.messageId) }));
  };
  useEphemeralEvent('readMessage', onRead);
  useEphemeralEvent('readMessage2', onRead);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on ticket change only
  useEffect(() => setReads({}), [ticketId]);
  const qc = useQueryClient();
  const newest = data && !data.newerOut ? lastId(data) : 0;
  const channel = data?.channel ?? '';
  const event = readEventFor(channel);
  const liveChat = isLiveChatChannel(channel);
  useEffect(() => {
    if (!newest) return;
    const send = () => {
      if (document.visibilityState !== 'visible') return;
      const s = currentSocket();
      if (!s?.connected) return;
      // RT-19: once a live chat's read is stored, the Live Chats badge asks its count again.
      s.timeout(10_000).emit(event, { ticketId, messageId: newest }, (err: unknown, r?: { ok: boolean }) => {
        if (!err && r?.ok && liveChat) void refreshLiveChatUnread(qc);
      });
    };
    send();
    const offState = realtime.onState((up) => up && send());
    document.addEventListener('visibilitychange', send);
    return () => {
      offState();
      document.removeEventListener('visibilitychange', send);
    };
  }, [ticketId, newest, event, liveChat, qc]);
  return reads;
}
