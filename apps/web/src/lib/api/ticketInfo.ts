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
    const before = qc.getQueryData<TicketInfo>(ticketKeys.info(id));
    if (!before) return;
    qc.setQueryData<TicketInfo>(ticketKeys.info(id), {
      ...before,
      ...t,
      statusName: ticketStatusName(t.closed, custom),
    });
    if (t.campaign_id !== before.campaign_id) void qc.invalidateQueries({ queryKey: ticketKeys.info(id) });
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
