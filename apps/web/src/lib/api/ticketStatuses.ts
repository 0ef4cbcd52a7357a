import {
  TICKET_STATUS_NAMES,
  TICKET_STATUS_STRINGS,
  type TicketCustomStatus,
  ticketStatusName,
} from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../http';
import { ticketKeys } from '../queryKeys';
import { useRealtimeEvent } from '../realtime';

export const ticketStatusesApi = {
  list: () =>
    api<{ result: 'success'; data: TicketCustomStatus[] }>('GET', '/api/ticketstatus/get').then((r) => r.data),
  create: (name: string, alternate: '0' | '1') =>
    api<{ result: 'success'; data: TicketCustomStatus }>('POST', '/api/ticketstatus', { name, alternate }),
  update: (id: number, name: string, alternate: '0' | '1') =>
    api<{ result: 'success'; data: TicketCustomStatus }>('POST', '/api/ticketstatus/update', { id, name, alternate }),
  remove: (id: number) => api<{ result: 'success' }>('DELETE', `/api/ticketstatus/${id}`),
};

/**
 * TICKET-25: the account's custom ticket statuses, kept live by `ticketStatusesUpdated`. When
 * they cannot be fetched the list would name statuses wrongly: alert the spec's words and reload.
 */
export function useTicketStatuses(): TicketCustomStatus[] {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ticketKeys.statuses, queryFn: ticketStatusesApi.list, staleTime: 5 * 60_000 });
  useRealtimeEvent('ticketStatusesUpdated', (data) => qc.setQueryData(ticketKeys.statuses, data.statuses));
  useEffect(() => {
    if (q.isError) {
      window.alert(TICKET_STATUS_STRINGS.fetchFailed);
      window.location.reload();
    }
  }, [q.isError]);
  return q.data ?? [];
}

/** The statuses a ticket can be set to: the defaults 0 to 3, then the custom ones by code. */
export function statusOptions(custom: readonly TicketCustomStatus[]): { value: string; label: string }[] {
  return [
    ...Object.entries(TICKET_STATUS_NAMES).map(([value, label]) => ({ value, label })),
    ...custom.map((c) => ({ value: String(c.status_code), label: c.name })),
  ];
}

export { ticketStatusName };
