import type { AuthCheckAnswer, TicketUpdated, UnreadCount } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { ticketsApi } from '../../lib/api/tickets';
import { ticketKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';
import { shell, useShell } from '../../lib/shellStore';
import { toast } from '../../ui/toast';
import {
  boardChanged,
  conversationPath,
  isMyNewCustomerMessage,
  newMessageText,
  rememberStatuses,
  showsConversations,
  ticketsUnread,
  unreadTotal,
} from './shellFeed';

/** Unread counts are asked again at most this often while conversation events keep coming. */
const REFRESH_MS = 1_000;

/**
 * Feeds the shell from the conversation events the app already receives, whatever screen is open:
 * - SHELL-40 `shell.unread` (the page title) and NAV-05 `shell.ticketUnread` (the Tickets badge), from
 *   `GET /api/unread` in the cache the ticket screen shares (its mark-read lands here at once), set by
 *   `unreadCount2` and asked again after ticket, message and channel events and on reconnect;
 * - NAV-10, NAV-27 `shell.kanbanNotify` for admins: a ticket created or changing status while not on /kanban,
 *   cleared on /kanban;
 * - SHELL-58 a toast with View for a customer message in one of my conversations while I am elsewhere.
 */
export function useShellFeed(session: AuthCheckAnswer) {
  const qc = useQueryClient();
  // Both read through refs: the navigate function changes with the location, and the listeners stay put.
  const nav = useNavigate();
  const navigate = useRef(nav);
  navigate.current = nav;
  const { pathname } = useLocation();
  const where = useRef(pathname);
  where.current = pathname;
  const me = session.adminUsername ?? '';
  const admin = session.type === 'admin';

  const counts = useQuery({ queryKey: ticketKeys.unread, queryFn: ticketsApi.unread, staleTime: 30_000 });
  const chatUnread = useShell((s) => s.chatUnread);
  const total = unreadTotal(counts.data, chatUnread);
  const tickets = ticketsUnread(counts.data);
  useEffect(() => {
    shell.set({ unread: total, ticketUnread: tickets });
  }, [total, tickets]);

  useEffect(() => {
    if (pathname === '/kanban') shell.set({ kanbanNotify: false });
  }, [pathname]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        void qc.invalidateQueries({ queryKey: ticketKeys.unread });
      }, REFRESH_MS);
    };
    // Statuses this page knows, from every ticket list or board it loads (not from live edits of the cache:
    // those come from the same events as below, whichever listener runs first).
    const known = new Map<number, number>();
    for (const [, data] of qc.getQueriesData({ queryKey: ticketKeys.all })) rememberStatuses(known, data);
    const offCache = qc.getQueryCache().subscribe((e) => {
      if (e.type !== 'updated' || e.action.type !== 'success' || e.action.manual) return;
      if (e.query.queryKey[0] === ticketKeys.all[0]) rememberStatuses(known, e.query.state.data);
    });
    const board = (kind: 'created' | 'updated', t: TicketUpdated) => {
      if (boardChanged(known, kind, t) && admin && where.current !== '/kanban') shell.set({ kanbanNotify: true });
    };
    const toasted = new Map<number, number>();
    const offs = [
      // The pushed counts are newer than any read of them still on its way: that read is dropped, or its
      // older answer would overwrite these (a title stuck at the count before a read).
      realtime.on('unreadCount2', (d) => {
        void qc
          .cancelQueries({ queryKey: ticketKeys.unread, exact: true })
          .then(() => qc.setQueryData<UnreadCount[]>(ticketKeys.unread, d.data));
      }),
      realtime.on('createTicket', (d) => {
        board('created', d);
        soon();
      }),
      realtime.on('updateTicket', (t) => {
        board('updated', t);
        soon();
        if (!isMyNewCustomerMessage(t, me) || showsConversations(where.current)) return;
        if (toasted.get(t.id) === t.last_message_at) return;
        toasted.set(t.id, t.last_message_at);
        toast({
          title: 'New message',
          message: newMessageText(t),
          onView: () => navigate.current(conversationPath(t)),
        });
      }),
      realtime.on('channelDataUpdated', soon),
      realtime.on('channelDataUpdated2', soon),
      realtime.onState((up) => up && soon()),
    ];
    return () => {
      if (timer) clearTimeout(timer);
      offCache();
      for (const off of offs) off();
    };
  }, [qc, me, admin]);
}
