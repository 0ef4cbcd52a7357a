import { type TicketInfo, ticketStatusName } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ticketKeys } from '../queryKeys';
import { useRealtimeEvent } from '../realtime';
import { useTicketStatuses } from './ticketStatuses';
import { ticketsApi } from './tickets';

/**
 * One ticket in full (`/ticket/info`), kept live: every `updateTicket` of it is merged in (a status, an
 * assignment or a message made anywhere), and a change of campaign fetches the campaign's name again.
 */
export function useTicketInfo(id: number) {
  const qc = useQueryClient();
  const custom = useTicketStatuses();
  const valid = Number.isInteger(id) && id > 0;
  const q = useQuery({ queryKey: ticketKeys.info(id), queryFn: () => ticketsApi.info(id), enabled: valid });
  useRealtimeEvent('updateTicket', (t) => {
    if (t.id !== id) return;
    const key = ticketKeys.info(id);
    // A read still in flight may have been answered before this change, and its answer would undo it when
    // it lands: it is dropped and the ticket read again (that read is answered after the change).
    const stale = qc.isFetching({ queryKey: key }) > 0;
    const before = qc.getQueryData<TicketInfo>(key);
    if (stale || !before) void qc.invalidateQueries({ queryKey: key });
    if (!before) return;
    qc.setQueryData<TicketInfo>(key, {
      ...before,
      ...t,
      statusName: ticketStatusName(t.closed, custom),
    });
    if (!stale && t.campaign_id !== before.campaign_id) void qc.invalidateQueries({ queryKey: key });
  });
  // RT-24, AI-14: the customer's emotion so far, as each of their messages is read.
  useRealtimeEvent('newEmotion', (e) => {
    if (e.ticketId !== id) return;
    qc.setQueryData<TicketInfo>(ticketKeys.info(id), (before) =>
      before ? { ...before, emotion: e.emotion, emotion_2: e.emotion_2 } : before,
    );
  });
  return q;
}
