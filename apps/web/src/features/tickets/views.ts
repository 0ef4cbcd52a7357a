import { parseTicketView, type TicketView } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { type TicketFilters, ticketsApi } from '../../lib/api/tickets';
import { ticketKeys } from '../../lib/queryKeys';
import { realtime } from '../../lib/realtime';

/** Ticket events come in bursts (a bulk change sends one per ticket): the counts are read once after them. */
const RECOUNT_MS = 300;

/**
 * The view (Mine, Unassigned, All) lives in the address (`?view=mine`), so a reload, a link from Home or
 * the back button keeps it. All is the default and leaves the address bare.
 */
export function useTicketView(): [TicketView, (v: TicketView) => void] {
  const [params, setParams] = useSearchParams();
  const view = parseTicketView(params.get('view'));
  const set = (v: TicketView) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (v === 'all') next.delete('view');
        else next.set('view', v);
        return next;
      },
      { replace: false },
    );
  return [view, set];
}

/** The list's filters under a view: Mine is the `agent` filter set to me, Unassigned `assigned=0`. */
export function filtersOfView(f: TicketFilters, view: TicketView, username: string): TicketFilters {
  if (view === 'mine') return { ...f, agent: username, assigned: '' };
  if (view === 'unassigned') return { ...f, agent: '', assigned: '0' };
  return { ...f, assigned: '' };
}

/**
 * The views' counts under the list's status filter, kept live: any `createTicket` or `updateTicket` (an
 * assignment, a status change, a merge) makes them be read again shortly after, without reloading the list.
 */
export function useViewCounts(status: string) {
  const qc = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const recount = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void qc.invalidateQueries({ queryKey: ticketKeys.viewsAll }), RECOUNT_MS);
    };
    const offs = [realtime.on('createTicket', recount), realtime.on('updateTicket', recount)];
    return () => {
      clearTimeout(timer);
      for (const off of offs) off();
    };
  }, [qc]);
  return useQuery({ queryKey: ticketKeys.views(status), queryFn: () => ticketsApi.views(status), staleTime: 30_000 });
}
