import { type ChannelDataUpdated, rooms, TICKET_LIST_TYPES, type TicketListType } from '@parley/contracts';
import { appendEvent, type Trx } from '../../platform/outbox/index.js';

/** Which list a channel's tickets show in: the conversation screens' own, else the ticket inbox. */
export function listTypeOf(channel: string): ChannelDataUpdated['type'] {
  for (const t of ['chat', 'livechat'] as const satisfies TicketListType[])
    if ((TICKET_LIST_TYPES[t].only as readonly string[]).includes(channel)) return t;
  return 'ticket';
}

/**
 * TICKET-49 (design): `channelDataUpdated` (inbox channels) or `channelDataUpdated2` (LIVECHAT and the
 * internal chat) to the own room of every active non-admin of the account.
 */
export async function emitChannelData(trx: Trx, accountId: number, e: Omit<ChannelDataUpdated, 'type'>): Promise<void> {
  const users = await trx
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .where('type', '<>', 'admin')
    .execute();
  if (users.length === 0) return;
  const type = listTypeOf(e.channel);
  const payload: ChannelDataUpdated = { type, ...e };
  await appendEvent(trx, {
    accountId,
    type: 'ticket.channel_data',
    payload,
    realtime: {
      name: type === 'ticket' ? 'channelDataUpdated' : 'channelDataUpdated2',
      rooms: users.map((u) => rooms.user(Number(u.id))),
    },
  });
}
