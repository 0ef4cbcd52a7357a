import { SLA_STRINGS } from '@parley/contracts';
import type { Listener, StoredEvent, Trx } from '../../platform/outbox/index.js';
import { notifyUsers } from './commands/notifyUsers.js';

/** How far before `ticket.updated` an assignment row may be and still belong to that change (same transaction). */
const SAME_CHANGE_MS = 10_000;

/**
 * Issue 8, "assigned to you": after a ticket change, each user newly recorded in `ticket_assignments` by
 * that change gets a System notification (not when they assigned themselves). Transactional, so exactly once;
 * the source `assign:<assignment id>` keeps it single even if two events see the same row.
 */
export const assignedListener: Listener = {
  name: 'notifications.assigned',
  kind: 'transactional',
  events: ['ticket.updated'],
  async handle(e: StoredEvent, trx: Trx) {
    const ticketId = Number((e.payload as { id?: unknown }).id);
    if (!Number.isInteger(ticketId)) return;
    const rows = await trx
      .selectFrom('ticket_assignments as a')
      .innerJoin('tickets as t', 't.id', 'a.ticket_id')
      .innerJoin('users as u', (j) =>
        j.onRef('u.account_id', '=', 'a.account_id').onRef('u.username', '=', 'a.username'),
      )
      .leftJoin('users as by', (j) =>
        j.onRef('by.account_id', '=', 'a.account_id').onRef('by.username', '=', 'a.assigned_by'),
      )
      .select([
        'a.id',
        'a.username',
        'a.assigned_by',
        'u.id as user_id',
        'by.name as by_name',
        't.ticket_number',
        't.title',
        't.channel',
      ])
      .where('a.account_id', '=', e.accountId)
      .where('a.ticket_id', '=', ticketId)
      .where('a.assigned_at', '>=', e.createdAt - SAME_CHANGE_MS)
      .where('a.assigned_at', '<=', e.createdAt)
      .execute();
    for (const r of rows) {
      if (r.assigned_by === r.username) continue;
      const by = r.assigned_by === 'server' ? 'Parley' : r.by_name || r.assigned_by;
      await notifyUsers(trx, {
        accountId: e.accountId,
        userIds: [Number(r.user_id)],
        category: 'system',
        type: 'others',
        channel: r.channel.toLowerCase() === 'livechat' ? 'livechat' : 'ticket',
        title: SLA_STRINGS.assignedTitle(Number(r.ticket_number)),
        body: SLA_STRINGS.assignedBody(by, r.title),
        ticketId,
        ticketNumber: Number(r.ticket_number),
        source: `assign:${r.id}`,
      });
    }
  },
};
