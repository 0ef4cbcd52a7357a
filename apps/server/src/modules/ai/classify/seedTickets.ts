import type { DB } from '../../../platform/db/db.js';

let numbers = 0;

/** For tests: a label of the account, straight into the table. */
export async function seedLabel(db: DB, accountId: number, name: string): Promise<number> {
  const r = await db
    .insertInto('labels')
    .values({
      account_id: accountId,
      name,
      color: '#000000',
      color_dark: '#FFFFFF',
      level: 0,
      sla: 30,
      removed: 0,
      created_at: Date.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(r.id);
}

/**
 * For tests: a ticket with its labels (in order) and messages (`visitor` is the customer; any other sender a
 * team member), straight into the tables; returns its id and the ids of its messages.
 */
export async function seedTicket(
  db: DB,
  accountId: number,
  o: { labels?: number[]; messages: { sender: string; text: string; type?: string }[]; channel?: string },
): Promise<{ id: number; number: number; messages: number[] }> {
  const at = Date.now();
  const number = 100_000 + ++numbers;
  const t = await db
    .insertInto('tickets')
    .values({
      account_id: accountId,
      ticket_number: number,
      title: `Ticket ${number}`,
      channel: o.channel ?? 'EMAIL',
      closed: 0,
      priority: '',
      label: JSON.stringify(o.labels ?? []),
      department_id: null,
      assignee: '',
      name: 'Customer',
      email: 'customer@example.net',
      phone: '',
      created_at: at,
      updated_at: at,
      has_responded: o.messages.some((m) => m.sender !== 'visitor') ? 1 : 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(t.id);
  const messages: number[] = [];
  for (const [i, m] of o.messages.entries()) {
    const r = await db
      .insertInto('messages')
      .values({
        account_id: accountId,
        ticket_id: id,
        type: m.type ?? 'text',
        message: m.text,
        sender: m.sender,
        sender_name: m.sender,
        client_id: null,
        created_at: at + i,
        reply_id: null,
        deleted_at: null,
        deleted_by: null,
        email_meta: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    messages.push(Number(r.id));
  }
  return { id, number, messages };
}
