import {
  arrivalOutcome,
  insertTrimmed,
  openCodes,
  pushNewMessage,
  type TicketCreated,
  type TicketListItem,
  type TicketLoadAnswer,
  type TicketUpdated,
  type UnreadCount,
  type UnreadCount2,
} from '@parley/contracts';
import { type InfiniteData, type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { realtime } from '../../lib/realtime';
import { applyRead, applyTicketUpdate, type TicketFilters, ticketKeys, ticketsApi } from './api';
import { useTicketStatuses } from './statuses';

type Pages = InfiniteData<TicketLoadAnswer, number>;

/** The last customer-message time of a ticket in any cached list (0 when it is not held). */
function knownLastMessage(qc: QueryClient, id: number): number | null {
  for (const [, data] of qc.getQueriesData<Pages>({ queryKey: ticketKeys.all }))
    for (const p of data?.pages ?? []) for (const t of p.data) if (t.id === id) return t.last_message_at;
  return null;
}

/**
 * The ticket screen's live side (RT-21, RT-23, RT-31, RT-33, TICKET-39 .. TICKET-49):
 * - `createTicket`: the arrival rules decide whether it joins the shown list (trimmed to 40), raises the
 *   "new ticket" notice, or pops up (non-admins: CALL with popup_on_call, severity H);
 * - `updateTicket`: merged into every list; a customer message in the open ticket of a focused page marks it
 *   read at once, otherwise the ticket goes on the new-message stack (max 40);
 * - `unreadCount2`, `channelDataUpdated(2)`: the unread counts.
 */
export function useTicketLive(o: { filters: TicketFilters; isAdmin: boolean; openId: number | null }) {
  const qc = useQueryClient();
  const custom = useTicketStatuses();
  const settings = useQuery({ queryKey: ticketKeys.settings, queryFn: ticketsApi.settings, staleTime: 60_000 });
  const unread = useQuery({ queryKey: ticketKeys.unread, queryFn: ticketsApi.unread, staleTime: 30_000 });
  const [notice, setNotice] = useState(0);
  const [popup, setPopup] = useState<TicketListItem | null>(null);
  const [stack, setStack] = useState<number[]>([]);
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
    [qc],
  );

  useEffect(() => {
    const offs = [
      realtime.on('createTicket', (raw) => {
        const t = raw as TicketCreated;
        const item: TicketListItem = { ...t, read: false, newMessage: t.last_message_at > 0 };
        const { filters, isAdmin } = ctx.current;
        const out = arrivalOutcome(item, {
          isAdmin,
          popupOnCall,
          statusFilter: filters.status,
          openCodes: openCodes(custom),
        });
        if (out.insert)
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
      realtime.on('updateTicket', (raw) => {
        const t = raw as TicketUpdated;
        const before = knownLastMessage(qc, t.id);
        applyTicketUpdate(qc, t);
        if (before === null || t.last_message_at <= before) return;
        if (ctx.current.openId === t.id && document.hasFocus()) void markRead(t.id);
        else setStack((s) => pushNewMessage(s, t.id));
      }),
      realtime.on('unreadCount2', (raw) => qc.setQueryData(ticketKeys.unread, (raw as UnreadCount2).data)),
      realtime.on('channelDataUpdated', () => void qc.invalidateQueries({ queryKey: ticketKeys.unread })),
      realtime.on('channelDataUpdated2', () => void qc.invalidateQueries({ queryKey: ticketKeys.unread })),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, [qc, custom, popupOnCall, markRead]);

  // TICKET-41: the open ticket is read while the page has focus (now, and whenever focus comes back).
  useEffect(() => {
    if (o.openId === null) return;
    const id = o.openId;
    if (document.hasFocus()) void markRead(id);
    const onFocus = () => void markRead(id);
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, [o.openId, markRead]);

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
