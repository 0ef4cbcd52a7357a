import type { Trx } from '../../platform/outbox/index.js';

/**
 * Inserts a ticket inside the caller's transaction: the account row is locked first (a no-op write), so
 * two tickets of one account never share a ticket_number (the tickets module's numbering).
 * Design: live chat keeps its own insert (the visitor's ticket is assigned to the accepting agent at once).
 */
export async function insertTicket(
  trx: Trx,
  t: {
    accountId: number;
    channel: string;
    title: string;
    name: string;
    email: string;
    phone: string;
    departmentId: number | null;
    assignee: string;
    other?: Record<string, unknown>;
  },
): Promise<number> {
  await trx
    .updateTable('accounts')
    .set((eb) => ({ plan: eb.ref('plan') }))
    .where('id', '=', t.accountId)
    .execute();
  const max = await trx
    .selectFrom('tickets')
    .select((eb) => eb.fn.max('ticket_number').as('n'))
    .where('account_id', '=', t.accountId)
    .executeTakeFirst();
  const at = Date.now();
  const row = await trx
    .insertInto('tickets')
    .values({
      account_id: t.accountId,
      ticket_number: Number(max?.n ?? 0) + 1,
      title: t.title.slice(0, 300),
      channel: t.channel,
      closed: 0,
      priority: '',
      label: '[]',
      department_id: t.departmentId,
      assignee: t.assignee,
      name: t.name,
      email: t.email,
      phone: t.phone,
      created_at: at,
      updated_at: at,
      campaign_id: null,
      other: JSON.stringify(t.other ?? {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
