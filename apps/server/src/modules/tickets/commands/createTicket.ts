import {
  ASSIGN_STRATEGIES,
  type AssignStrategy,
  type CALL_DIRECTIONS,
  CHANNEL_CODES,
  rooms,
  TICKET_CREATE_STRINGS,
  type TicketCreated,
  type TicketPriority,
} from '@parley/contracts';

type CallDirection = (typeof CALL_DIRECTIONS)[number];

import { badRequest } from '../../../platform/http/errors.js';
import { appendEvent, type Trx } from '../../../platform/outbox/index.js';
import type { Conversations } from '../../messages/messages.realtime.js';
import { assignTicketAutomaticallyIn } from '../assignment.js';
import { insertNumberedTicket } from '../insertNumberedTicket.js';
import { emitChannelData } from '../live.js';
import { ticketItem } from '../tickets.queries.js';

/** A new ticket, from an agent (MANUAL) or a channel (EMAIL, LIVECHAT, CALL, ...). */
export interface NewTicket {
  accountId: number;
  /** A channel code; an unknown code is refused. */
  channel: string;
  title: string;
  name?: string;
  email?: string;
  phone?: string;
  departmentId?: number | null;
  priority?: TicketPriority;
  label?: number[];
  campaignId?: number | null;
  caseType?: string;
  other?: Record<string, unknown>;
  /** When it arrived (ms); now by default. */
  at?: number;
  /** The customer wrote first (a channel's ticket): the ticket starts with news (`newMessage`). */
  fromCustomer?: boolean;
  /** TICKET-15: the source's reference, the account's address an e-mail came to ('' none). */
  ref?: string;
  receiverEmail?: string;
  /** The mailbox an e-mail came in through: the ticket's replies leave from it. */
  mailboxId?: number | null;
  /** The messaging connection a channel's conversation came in on, and the customer's id there. */
  channelConnectionId?: number | null;
  channelPeer?: string | null;
  /** TICKET-15: a CALL ticket's direction and number. */
  callDirection?: CallDirection;
  did?: string;
  /** TICKET-14 `userId`: the user who opened it by hand; none when a customer did. */
  userId?: number | null;
  /** CRYPT-01: 'aes' or 'rsa' when the conversation is encrypted end to end ('' plain). */
  encryptionMethod?: '' | 'aes' | 'rsa';
}

async function owned(trx: Trx, table: 'departments' | 'campaigns' | 'labels', accountId: number, ids: number[]) {
  if (ids.length === 0) return true;
  let q = trx.selectFrom(table).select('id').where('account_id', '=', accountId).where('id', 'in', ids);
  if (table === 'labels') q = (q as typeof q).where('removed' as never, '=', 0 as never);
  return (await q.execute()).length === new Set(ids).size;
}

/** The automatic assignment strategy of a department, or null when it is off. */
export async function departmentStrategy(trx: Trx, accountId: number, departmentId: number | null) {
  if (departmentId === null) return null;
  const row = await trx
    .selectFrom('department_assignment')
    .select('strategy')
    .where('account_id', '=', accountId)
    .where('department_id', '=', departmentId)
    .executeTakeFirst();
  return row && (ASSIGN_STRATEGIES as readonly string[]).includes(row.strategy)
    ? (row.strategy as AssignStrategy)
    : null;
}

/**
 * RT-21, TICKET-01: creates a ticket inside the caller's transaction (use it within `runCommand`) and
 * returns its id. The ticket is open (0), numbered with the account's next ticket_number
 * (`insertNumberedTicket`: two at once never share a number), checked (channel, department, labels, campaign must be
 * valid and the account's, else 400 and nothing is written). It emits `createTicket` to the account room
 * and `channelDataUpdated(2)` to the non-admins; when its department has automatic assignment switched
 * on, the ticket is then assigned in the same transaction (`updateTicket` follows).
 */
export async function createTicket(trx: Trx, conversations: Conversations, t: NewTicket): Promise<number> {
  if (!(CHANNEL_CODES as readonly string[]).includes(t.channel)) throw badRequest(`Unknown channel: ${t.channel}.`);
  const departmentId = t.departmentId ?? null;
  const campaignId = t.campaignId ?? null;
  const label = [...new Set(t.label ?? [])];
  if (departmentId !== null && !(await owned(trx, 'departments', t.accountId, [departmentId])))
    throw badRequest(TICKET_CREATE_STRINGS.unknownDepartment);
  if (campaignId !== null && !(await owned(trx, 'campaigns', t.accountId, [campaignId])))
    throw badRequest(TICKET_CREATE_STRINGS.unknownCampaign);
  for (const l of label)
    if (!(await owned(trx, 'labels', t.accountId, [l]))) throw badRequest(TICKET_CREATE_STRINGS.unknownLabel(l));

  const id = await insertNumberedTicket(trx, t.accountId, (now) => {
    const at = t.at ?? now;
    return {
      title: t.title,
      channel: t.channel,
      priority: t.priority ?? '',
      label: JSON.stringify(label),
      department_id: departmentId,
      name: t.name ?? '',
      email: t.email ?? '',
      phone: t.phone ?? '',
      created_at: at,
      updated_at: at,
      case_type: t.caseType ?? '',
      campaign_id: campaignId,
      last_message_at: t.fromCustomer ? at : 0,
      other: JSON.stringify(t.other ?? {}),
      ref: t.ref ?? '',
      receiver_email: t.receiverEmail ?? '',
      mailbox_id: t.mailboxId ?? null,
      channel_connection_id: t.channelConnectionId ?? null,
      channel_peer: t.channelPeer ?? null,
      call_direction: t.callDirection ?? '',
      did: t.did ?? '',
      user_id: t.userId ?? null,
      encryption_method: t.encryptionMethod ?? '',
    };
  });
  const { read: _r, newMessage: _n, ...payload } = await ticketItem(trx, { accountId: t.accountId, userId: 0 }, id);
  await appendEvent(trx, {
    accountId: t.accountId,
    type: 'ticket.created',
    payload: payload satisfies TicketCreated,
    realtime: { name: 'createTicket', rooms: [rooms.account(t.accountId)] },
  });
  await emitChannelData(trx, t.accountId, { channel: t.channel, ticketId: id, reason: 'created' });
  const strategy = await departmentStrategy(trx, t.accountId, departmentId);
  if (strategy) await assignTicketAutomaticallyIn(trx, conversations, t.accountId, id, strategy);
  return id;
}
