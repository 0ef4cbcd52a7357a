import { TICKET_STATUS } from '@parley/contracts';
import type { Insertable } from 'kysely';
import { lockAccount } from '../../platform/db/locks.js';
import type { TicketsTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';
import { linkConversation } from '../contacts/index.js';

type Row = Insertable<TicketsTable>;

/** A new ticket's columns: its channel and title, and whichever others the caller sets. */
export type NewTicketRow = Pick<Row, 'channel' | 'title'> &
  Partial<Omit<Row, 'id' | 'account_id' | 'ticket_number' | 'channel' | 'title'>>;

/**
 * Inserts a ticket of the account inside the caller's transaction, numbered with the account's next ticket_number, and
 * answers its id. The account is locked first (`lockAccount`), so two tickets of one account created at
 * once never share a number. Columns not given start empty: open (0), no priority, labels, department,
 * assignee, customer or campaign, created and updated now. The customer's contact is found or made
 * (`linkConversation`) unless the row names one. "Now" is read once the lock is held, so
 * creation times follow the numbers; a row given as a function of it can use the same moment.
 */
export async function insertNumberedTicket(
  trx: Trx,
  accountId: number,
  ticket: NewTicketRow | ((at: number) => NewTicketRow),
): Promise<number> {
  await lockAccount(trx, accountId);
  const max = await trx
    .selectFrom('tickets')
    .select((eb) => eb.fn.max('ticket_number').as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const at = Date.now();
  const row = typeof ticket === 'function' ? ticket(at) : ticket;
  const contactId =
    row.contact_id !== undefined
      ? row.contact_id
      : await linkConversation(
          trx,
          accountId,
          {
            channel: row.channel,
            name: row.name ?? '',
            email: row.email ?? '',
            phone: row.phone ?? '',
            peer: row.channel_peer ?? '',
          },
          at,
        );
  const inserted = await trx
    .insertInto('tickets')
    .values({
      closed: TICKET_STATUS.open,
      priority: '',
      label: '[]',
      department_id: null,
      assignee: '',
      name: '',
      email: '',
      phone: '',
      campaign_id: null,
      created_at: at,
      updated_at: at,
      ...row,
      contact_id: contactId,
      account_id: accountId,
      ticket_number: Number(max?.n ?? 0) + 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}
