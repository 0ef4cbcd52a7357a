import { ErrorCode, isDone, SMS_STRINGS, type SmsSendInput, TICKET_STATUS } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, conflict } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { type Conversations, postMessage } from '../../messages/index.js';
import { actorOf, changeTicketIn, createTicket } from '../../tickets/index.js';
import { smsNumber } from '../adapters/sms.js';

/** The account's active SMS connection that sends (the first one). */
async function smsConnection(db: DB, accountId: number) {
  return db
    .selectFrom('channel_connections')
    .select(['id', 'department_id'])
    .where('account_id', '=', accountId)
    .where('kind', '=', 'sms')
    .where('active', '=', 1)
    .orderBy('id')
    .executeTakeFirst();
}

/** The `/sms` screen's list: the account's SMS conversations, newest activity first (100 at most). */
export async function smsThreads(db: DB, accountId: number) {
  const [connection, rows] = await Promise.all([
    smsConnection(db, accountId),
    db
      .selectFrom('tickets')
      .select(['id', 'ticket_number', 'name', 'phone', 'channel_peer', 'updated_at', 'closed'])
      .where('account_id', '=', accountId)
      .where('channel', '=', 'SMS')
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(100)
      .execute(),
  ]);
  return {
    connected: !!connection,
    data: rows.map((r) => ({
      ticketId: Number(r.id),
      ticketNumber: Number(r.ticket_number),
      name: r.name,
      number: r.channel_peer ?? r.phone,
      updatedAt: Number(r.updated_at),
      closed: Number(r.closed),
    })),
  };
}

/**
 * An agent texts a number: the message joins that number's latest SMS conversation (reopened when done) or
 * starts one, and leaves through the account's SMS number like any reply. A number an SMS cannot reach is
 * refused before anything is written.
 */
export async function sendSms(db: DB, conversations: Conversations, auth: AuthContext, input: SmsSendInput) {
  const number = smsNumber(input.to.replace(/[\s().-]/g, ''));
  if (!number) throw new AppError(400, ErrorCode.validation, SMS_STRINGS.badNumber);
  const connection = await smsConnection(db, auth.accountId);
  if (!connection) throw conflict(SMS_STRINGS.notConnected);
  const connectionId = Number(connection.id);
  return runCommand(db, async (trx) => {
    const last = await trx
      .selectFrom('tickets')
      .select(['id', 'closed'])
      .where('account_id', '=', auth.accountId)
      .where('channel_connection_id', '=', connectionId)
      .where('channel_peer', '=', number)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const actor = actorOf(auth);
    let ticketId: number;
    if (!last)
      ticketId = await createTicket(trx, conversations, {
        accountId: auth.accountId,
        channel: 'SMS',
        title: SMS_STRINGS.title_of(number),
        name: number,
        phone: number,
        departmentId: connection.department_id === null ? null : Number(connection.department_id),
        channelConnectionId: connectionId,
        channelPeer: number,
        userId: auth.userId,
      });
    else {
      ticketId = Number(last.id);
      if (isDone(Number(last.closed)))
        await changeTicketIn(trx, conversations, actor, ticketId, async () => ({
          set: { closed: TICKET_STATUS.open },
          message: SMS_STRINGS.reopened,
          action: 'ticket.status_set',
          detail: { status: TICKET_STATUS.open, reason: 'sms_sent' },
        }));
    }
    await postMessage(trx, conversations, {
      accountId: auth.accountId,
      ticketId,
      sender: auth.username,
      senderName: auth.name || auth.username,
      type: 'text',
      message: input.message,
      fromCustomer: false,
      channel: 'SMS',
    });
    return { ticketId };
  });
}
