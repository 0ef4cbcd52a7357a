import type { DB } from '../platform/db/db.js';

/** For tests: a ticket from Pat in an account, straight into the table (channel EMAIL unless given). */
export async function insertTicket(
  db: DB,
  accountId: number,
  o: { channel?: string; title?: string; lastMessageAt?: number } = {},
): Promise<number> {
  const at = Date.now();
  const row = await db
    .insertInto('tickets')
    .values({
      account_id: accountId,
      ticket_number: Math.floor(Math.random() * 1e9),
      title: o.title ?? 'Printer on fire',
      channel: o.channel ?? 'EMAIL',
      closed: 0,
      priority: '',
      label: '[]',
      department_id: null,
      assignee: '',
      name: 'Pat',
      email: 'pat@example.com',
      phone: '',
      created_at: at,
      updated_at: at,
      ...(o.lastMessageAt !== undefined ? { last_message_at: o.lastMessageAt } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
