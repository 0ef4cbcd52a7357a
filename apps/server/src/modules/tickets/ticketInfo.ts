import {
  ENCRYPTION_METHODS,
  isLiveChatChannel,
  TICKET_STATUS,
  type TicketInfo,
  ticketStatusName,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';
import { listTicketStatuses } from './ticketStatuses.js';
import { itemRow, toListItem, type Viewer } from './tickets.queries.js';

type Db = DB | Trx;

const method = (m: string): TicketInfo['encryption_method'] =>
  (ENCRYPTION_METHODS as readonly string[]).includes(m) ? (m as TicketInfo['encryption_method']) : '';

/**
 * TICKET-14, TICKET-36, TICKET-37: one ticket in full; 404 for another account's id. `typing` is who is
 * typing in it now (`TypingBoard.typing`), which the caller reads from the live sockets.
 */
export async function ticketInfo(db: Db, viewer: Viewer, id: number, typing: string[] = []): Promise<TicketInfo> {
  const row = await itemRow(db, viewer, id);
  const item = toListItem(row);
  const more = await db
    .selectFrom('tickets')
    .select(['language', 'source_lang', 'encryption_method', 'default_chat', 'user_id', 'contact_id'])
    .where('account_id', '=', viewer.accountId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const readers = await db
    .selectFrom('ticket_reads')
    .innerJoin('users', 'users.id', 'ticket_reads.user_id')
    .select('users.username')
    .where('ticket_reads.account_id', '=', viewer.accountId)
    .where('users.account_id', '=', viewer.accountId)
    .where('ticket_reads.ticket_id', '=', id)
    .orderBy('ticket_reads.read_at')
    .execute();
  const campaign =
    item.campaign_id === null
      ? undefined
      : await db
          .selectFrom('campaigns')
          .select('name')
          .where('account_id', '=', viewer.accountId)
          .where('id', '=', item.campaign_id)
          .executeTakeFirst();
  // A LIVECHAT ticket's session is its live chat's (one live chat per ticket, 0012).
  const chat = isLiveChatChannel(item.channel)
    ? await db
        .selectFrom('livechats')
        .select(['session_id', 'state'])
        .where('account_id', '=', viewer.accountId)
        .where('ticket_id', '=', id)
        .orderBy('id', 'desc')
        .executeTakeFirst()
    : undefined;
  const contact =
    more.contact_id === null
      ? undefined
      : await db
          .selectFrom('contacts')
          .select((eb) => [
            'id',
            'name',
            eb
              .selectFrom('tickets')
              .select(eb.fn.countAll<number>().as('n'))
              .where('account_id', '=', viewer.accountId)
              .whereRef('contact_id', '=', 'contacts.id')
              .as('conversations'),
          ])
          .where('account_id', '=', viewer.accountId)
          .where('id', '=', more.contact_id)
          .executeTakeFirst();
  return {
    ...item,
    statusName: ticketStatusName(
      item.closed,
      item.closed > TICKET_STATUS.all ? await listTicketStatuses(db, viewer.accountId) : [],
    ),
    reader: readers.map((r) => r.username),
    campaignName: campaign?.name ?? '',
    typing,
    session_id: chat ? Number(chat.session_id) : null,
    livechat_state: chat ? chat.state : null,
    language: more.language,
    source_lang: more.source_lang,
    encryption_method: method(more.encryption_method),
    default_chat: Number(more.default_chat) === 1,
    userId: more.user_id === null ? null : Number(more.user_id),
    contact: contact
      ? { id: Number(contact.id), name: contact.name, conversations: Number(contact.conversations ?? 0) }
      : null,
  };
}
