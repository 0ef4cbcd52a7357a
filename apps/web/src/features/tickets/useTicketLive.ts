import {
  arrivalOutcome,
  insertTrimmed,
  openCodes,
  pushNewMessage,
  type TicketListItem,
  type TicketLoadAnswer,
  type UnreadCount,
} from '@parley/contracts';
import { type InfiniteData, type QueryClient, type QueryKey, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTicketStatuses } from '../../lib/api/ticketStatuses';
import { applyRead, applyTicketUpdate, loadQuery, type TicketFilters, ticketsApi } from '../../lib/api/tickets';
import { ticketKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';
import { createStore, useStore } from '../../lib/store';

type Pages = InfiniteData<TicketLoadAnswer, number>;

/** The last customer-message time of a ticket in any cached list (0 when it is not held). */
function knownLastMessage(qc: QueryClient, id: number): number | null {
  for (const [, data] of qc.getQueriesData<Pages>({ queryKey: ticketKeys.all }))
    for (const p of data?.pages ?? []) for (const t of p.data) if (t.id === id) return t.last_message_at;
  return null;
}

/**
 * Reads the queries under `queryKey` again from the server. A load already under way may have been answered
 * before what calls for the reload (a list's first load, its answer on the way when a ticket arrives):
 * invalidating alone would join it, as React Query only restarts a running fetch of a query that already has
 * data. It is cancelled first, so a new load starts in every case.
 */
async function readAgain(qc: QueryClient, queryKey: QueryKey): Promise<void> {
  await qc.cancelQueries({ queryKey });
  await qc.invalidateQueries({ queryKey });
}

/**
 * TICKET-42: the new-message stack outlives the screen that shows it (per user, for the life of the page):
 * opening a ticket, from the stack too, mounts another list (`/ticket/:id`), which must show the rest.
 */
const stacks = createStore(new Map<number | 'anon', number[]>());
const NO_STACK: number[] = [];
function useNewMessageStack(user: number | 'anon') {
  const stack = useStore(stacks).get(user) ?? NO_STACK;
  const update = useCallback(
    (fn: (s: number[]) => number[]) => stacks.set((all) => new Map(all).set(user, fn(all.get(user) ?? NO_STACK))),
    [user],
  );
  return [stack, update] as const;
}

/** Whether a cached list shows news on a ticket for this user. */
function shownAsNews(qc: QueryClient, id: number): boolean {
  for (const [, data] of qc.getQueriesData<Pages>({ queryKey: ticketKeys.all }))
    for (const p of data?.pages ?? []) for (const t of p.data) if (t.id === id && t.newMessage) return true;
  return false;
}

/**
 * The ticket screen's live side (RT-21, RT-23, RT-31, RT-33, TICKET-39 .. TICKET-49):
 * - `createTicket`: the arrival rules (`arrivalOutcome`) decide whether it joins the shown list (it matches
 *   the status and every other filter; trimmed to 40), makes the list load again (a filter only the server
 *   decides), raises the "new ticket" notice, or pops up (non-admins: CALL with popup_on_call, severity H;
 *   never an encrypted ticket);
 * - `updateTicket`: merged into every list; a customer message in the open ticket of a focused page marks it
 *   read at once, otherwise the ticket goes on the new-message stack (max 40);
 * - `unreadCount2`, `channelDataUpdated(2)`: the unread counts.
 */
export function useTicketLive(o: { filters: TicketFilters; isAdmin: boolean; openId: number | null; userId?: number }) {
  const qc = useQueryClient();
  const custom = useTicketStatuses();
  const settings = useQuery({ queryKey: ticketKeys.settings, queryFn: ticketsApi.settings, staleTime: 60_000 });
  const unread = useQuery({ queryKey: ticketKeys.unread, queryFn: ticketsApi.unread, staleTime: 30_000 });
  const [notice, setNotice] = useState(0);
  const [popup, setPopup] = useState<TicketListItem | null>(null);
  const [stack, setStack] = useNewMessageStack(o.userId ?? 'anon');
  const ctx = useRef(o);
  ctx.current = o;
  const popupOnCall = settings.data?.popup_on_call === 1;

  const markRead = useCallback(
    async (id: number) => {
      applyRead(qc, id);
      setStack((s) => s.filter((x) => x !== id));
      try {
        const r = await ticketsApi.read(id);
        qc.setQueryData<UnreadCount[]>(ticketKeys.unread, r.unread);
      } catch {
        // The ticket may be gone; the list says so on its next load.
      }
    },
    [qc, setStack],
  );

  useEffect(() => {
    const offs = [
      realtime.on('createTicket', (t) => {
        const item: TicketListItem = { ...t, read: false, newMessage: t.last_message_at > 0 };
        const { filters, isAdmin } = ctx.current;
        const query = loadQuery(filters);
        const out = arrivalOutcome(item, {
          isAdmin,
          popupOnCall,
          statusFilter: filters.status,
          openCodes: openCodes(custom),
          type: 'ticket',
          // A filter set the server would refuse lists nothing new; reading it again shows its error.
          query: query ?? undefined,
        });
        if (out.reload || query === null) void readAgain(qc, ticketKeys.list(filters));
        if (out.insert && query !== null)
          qc.setQueryData<Pages>(ticketKeys.list(filters), (data) => {
            if (!data?.pages?.length) return data;
            const rows = data.pages.flatMap((p) => p.data);
            if (rows.some((r) => r.id === item.id)) return data;
            const count = (data.pages[0]?.count ?? 0) + 1;
            // TICKET-39: one page of at most 40 after an insert; Show More continues from there.
            return { pages: [{ data: insertTrimmed(rows, [item]), count }], pageParams: [0] };
          });
        if (out.notice) setNotice((n) => n + 1);
        if (out.popup) setPopup(item);
        if (item.newMessage) setStack((s) => pushNewMessage(s, item.id));
        void qc.invalidateQueries({ queryKey: ticketKeys.unread });
      }),
      realtime.on('updateTicket', (t) => {
        const before = knownLastMessage(qc, t.id);
        applyTicketUpdate(qc, t);
        if (before === null || t.last_message_at <= before) return;
        if (ctx.current.openId === t.id && document.hasFocus()) void markRead(t.id);
        else setStack((s) => pushNewMessage(s, t.id));
      }),
      realtime.on('unreadCount2', (u) => qc.setQueryData(ticketKeys.unread, u.data)),
      realtime.on('channelDataUpdated', () => void qc.invalidateQueries({ queryKey: ticketKeys.unread })),
      realtime.on('channelDataUpdated2', () => void qc.invalidateQueries({ queryKey: ticketKeys.unread })),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, [qc, custom, popupOnCall, markRead, setStack]);

  // A connect's catch-up starts from the page's first socket: a ticket created between the list's load and
  // that connect (a page just opened, the socket slower than the load) comes in no event. The lists and
  // the unread counts are read again whenever the socket comes up, as the chat and live chat lists are.
  useEffect(
    () =>
      realtime.onState((up) => {
        if (!up) return;
        void readAgain(qc, [...ticketKeys.all, 'list']);
        void qc.invalidateQueries({ queryKey: ticketKeys.unread });
      }),
    [qc],
  );

  // TICKET-41: the open ticket is read while the page has focus (now, and whenever focus comes back), also
  // when its news comes with a list load rather than an event (a refetch on focus can bring it first).
  useEffect(() => {
    if (o.openId === null) return;
    const id = o.openId;
    if (document.hasFocus()) void markRead(id);
    const onFocus = () => void markRead(id);
    window.addEventListener('focus', onFocus);
    const off = qc.getQueryCache().subscribe((e) => {
      if (
        e.type === 'updated' &&
        e.query.queryKey[0] === ticketKeys.all[0] &&
        document.hasFocus() &&
        shownAsNews(qc, id)
      )
        void markRead(id);
    });
    return () => {
      window.removeEventListener('focus', onFocus);
      off();
    };
  }, [o.openId, markRead, qc]);

  return {
    unread: unread.data?.find((u) => u.type === 'ticket')?.count ?? 0,
    notice,
    clearNotice: () => setNotice(0),
    popup,
    setPopup,
    stack,
    markRead,
  };
}
