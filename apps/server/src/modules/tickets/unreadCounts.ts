import { openCodes, TICKET_LIST_TYPES, UNREAD_CAP, type UnreadCount } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';
import { listTicketStatuses } from './ticketStatuses.js';
import type { Viewer } from './tickets.queries.js';

/**
 * RT-43, RT-44: the caller's unread tickets per list: open-type (0, 1 or an open custom status) with a
 * customer message after the caller last read them; each count stops at UNREAD_CAP.
 */
export async function unreadCounts(db: DB | Trx, viewer: Viewer): Promise<UnreadCount[]> {
  const codes = [1, ...openCodes(await listTicketStatuses(db, viewer.accountId))];
  const out: UnreadCount[] = [];
  for (const type of ['ticket', 'livechat', 'chat'] as const) {
    const kind = TICKET_LIST_TYPES[type];
    let q = db
      .selectFrom('tickets')
      .leftJoin('ticket_reads', (j) =>
        j
          .onRef('ticket_reads.ticket_id', '=', 'tickets.id')
          .on('ticket_reads.user_id', '=', viewer.userId)
          .on('ticket_reads.account_id', '=', viewer.accountId),
      )
      .select(sql<number>`1`.as('one'))
      .where('tickets.account_id', '=', viewer.accountId)
      .where('tickets.closed', 'in', codes)
      .where('tickets.last_message_at', '>', sql<number>`coalesce(ticket_reads.read_at, 0)`);
    if (kind.only) q = q.where('tickets.channel', 'in', [...kind.only]);
    if (kind.excluded.length) q = q.where('tickets.channel', 'not in', [...kind.excluded]);
    const rows = await q.limit(UNREAD_CAP).execute();
    out.push({ type, count: rows.length });
  }
  return out;
}
