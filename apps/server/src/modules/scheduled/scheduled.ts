import {
  isEmailChannel,
  isLiveChatChannel,
  MESSAGE_STRINGS,
  type RescheduleInput,
  SCHEDULE_MAX_AHEAD_MS,
  SCHEDULED_STRINGS,
  type ScheduledEmail,
  type ScheduledMessage,
  type ScheduleInput,
} from '@parley/contracts';
import type { Selectable } from 'kysely';
import type pino from 'pino';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import type { ScheduledMessagesTable } from '../../platform/db/schema.js';
import { badRequest, conflict, forbidden, notFound } from '../../platform/http/errors.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import type { Task } from '../../platform/scheduler.js';
import { type Conversations, postMessage } from '../messages/index.js';

type Row = Selectable<ScheduledMessagesTable>;

export const toScheduled = (r: Row): ScheduledMessage => ({
  id: Number(r.id),
  ticketId: Number(r.ticket_id),
  sender: r.sender,
  senderName: r.sender_name,
  message: r.message,
  sendAt: Number(r.send_at),
  state: r.state as ScheduledMessage['state'],
  error: r.error,
  messageId: r.message_row_id === null ? null : Number(r.message_row_id),
  email: emailMeta(r.email_meta),
});

/** A stored `{to, cc, subject}`, or null (none given, or unreadable). */
function emailMeta(json: string | null): ScheduledEmail | null {
  if (json === null) return null;
  try {
    const v = JSON.parse(json) as ScheduledEmail;
    return Array.isArray(v.to) && Array.isArray(v.cc) && typeof v.subject === 'string' ? v : null;
  } catch {
    return null;
  }
}

function checkTime(sendAt: number, now: number) {
  if (sendAt <= now) throw badRequest(SCHEDULED_STRINGS.inPast);
  if (sendAt > now + SCHEDULE_MAX_AHEAD_MS) throw badRequest(SCHEDULED_STRINGS.tooFar);
}

/** The ticket, if the user may read it and a reply on it can wait. */
async function schedulableTicket(db: DB | Trx, conversations: Conversations, auth: AuthContext, ticketId: number) {
  const t = await db
    .selectFrom('tickets')
    .select(['id', 'channel', 'mailbox_id'])
    .where('account_id', '=', auth.accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
  if (!t) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  if (!(await conversations.canRead(db, { id: ticketId, accountId: auth.accountId, channel: t.channel }, auth.userId)))
    throw forbidden(MESSAGE_STRINGS.cannotRead);
  if (isEmailChannel(t.channel) && t.mailbox_id === null) throw conflict(SCHEDULED_STRINGS.noMailbox);
  // A live chat is a conversation in the moment: a reply there is never kept for later.
  if (isLiveChatChannel(t.channel)) throw conflict(SCHEDULED_STRINGS.liveChat);
  return t;
}

/** Keeps a reply until `send_at`. */
export async function scheduleMessage(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: ScheduleInput,
  now = Date.now(),
): Promise<ScheduledMessage> {
  checkTime(input.send_at, now);
  return runCommand(db, async (trx) => {
    const t = await schedulableTicket(trx, conversations, auth, input.ticket_id);
    if (input.email && !isEmailChannel(t.channel)) throw badRequest(SCHEDULED_STRINGS.notEmail);
    const row = await trx
      .insertInto('scheduled_messages')
      .values({
        account_id: auth.accountId,
        ticket_id: input.ticket_id,
        user_id: auth.userId,
        sender: auth.username,
        sender_name: auth.name || auth.username,
        message: input.message,
        send_at: input.send_at,
        state: 'pending',
        error: null,
        message_row_id: null,
        created_at: now,
        updated_at: now,
        email_meta: input.email ? JSON.stringify(input.email) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toScheduled(row);
  });
}

/** The ticket's scheduled messages still to go, soonest first, for a user who may read it. */
export async function listScheduled(db: DB, conversations: Conversations, auth: AuthContext, ticketId: number) {
  const t = await db
    .selectFrom('tickets')
    .select(['id', 'channel'])
    .where('account_id', '=', auth.accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
  if (!t) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  if (!(await conversations.canRead(db, { id: ticketId, accountId: auth.accountId, channel: t.channel }, auth.userId)))
    throw forbidden(MESSAGE_STRINGS.cannotRead);
  const rows = await db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('account_id', '=', auth.accountId)
    .where('ticket_id', '=', ticketId)
    .where('state', 'in', ['pending', 'failed'])
    .orderBy('send_at')
    .execute();
  return rows.map(toScheduled);
}

/** A pending one of the account that the user wrote (or any, for an admin); locked by the update that follows. */
async function ownPending(trx: Trx, auth: AuthContext, id: number) {
  const row = await trx
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('account_id', '=', auth.accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(SCHEDULED_STRINGS.notFound);
  if (Number(row.user_id) !== auth.userId && auth.type !== 'admin') throw forbidden(SCHEDULED_STRINGS.notYours);
  if (row.state !== 'pending') throw conflict(SCHEDULED_STRINGS.notPending);
  return row;
}

/**
 * Changes the text or the time of a pending one; cancels it (`input` null). The change is made only where it
 * is still pending, so it never races the send: either it went first (409), or the change did.
 */
export async function changeScheduled(
  db: DB,
  auth: AuthContext,
  id: number,
  input: RescheduleInput | null,
  now = Date.now(),
): Promise<ScheduledMessage> {
  if (input) checkTime(input.send_at, now);
  return runCommand(db, async (trx) => {
    await ownPending(trx, auth, id);
    const row = await trx
      .updateTable('scheduled_messages')
      .set(
        input
          ? { message: input.message, send_at: input.send_at, updated_at: now }
          : { state: 'cancelled', updated_at: now },
      )
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    if (!row) throw conflict(SCHEDULED_STRINGS.notPending);
    return toScheduled(row);
  });
}

/**
 * Sends what is due, once: each row is claimed (pending -> sent) in the same transaction that posts its
 * message as its author's, so a crash sends nothing or everything, and a second node (or a run that overlaps
 * a slow one) finds nothing to claim. An e-mail ticket's reply leaves through its mailbox. One that cannot be
 * posted any more (the ticket or the author gone) is marked failed with the reason.
 */
export function sendScheduledMessages(db: DB, conversations: Conversations, log: pino.Logger, now = Date.now): Task {
  return {
    name: 'sendScheduledMessages',
    everyMs: 5_000,
    async run() {
      const due = await db
        .selectFrom('scheduled_messages')
        .select(['id', 'account_id'])
        .where('state', '=', 'pending')
        .where('send_at', '<=', now())
        .orderBy('send_at')
        .limit(200)
        .execute();
      for (const d of due) {
        const accountId = Number(d.account_id);
        const id = Number(d.id);
        try {
          await runCommand(db, async (trx) => {
            const row = await trx
              .updateTable('scheduled_messages')
              .set({ state: 'sent', updated_at: now() })
              .where('account_id', '=', accountId)
              .where('id', '=', id)
              .where('state', '=', 'pending')
              .returningAll()
              .executeTakeFirst();
            if (!row) return;
            const t = await trx
              .selectFrom('tickets')
              .select(['id', 'channel', 'title', 'email', 'mailbox_id'])
              .where('account_id', '=', accountId)
              .where('id', '=', Number(row.ticket_id))
              .executeTakeFirst();
            if (!t) throw new Error(MESSAGE_STRINGS.ticketNotFound);
            const email = isEmailChannel(t.channel);
            if (email && t.mailbox_id === null) throw new Error(SCHEDULED_STRINGS.noMailbox);
            // The recipients and subject the agent wrote, else the ticket's customer and its title.
            const meta = emailMeta(row.email_meta);
            const m = await postMessage(trx, conversations, {
              accountId,
              ticketId: Number(t.id),
              sender: row.sender,
              senderName: row.sender_name,
              type: 'text',
              message: row.message,
              fromCustomer: false,
              channel: t.channel,
              ...(email
                ? {
                    email: {
                      to: meta?.to ?? (t.email ? [t.email] : []),
                      cc: meta?.cc ?? [],
                      subject: meta?.subject || `Re: ${t.title}`,
                    },
                    emailOut: true,
                  }
                : {}),
            });
            await trx
              .updateTable('scheduled_messages')
              .set({ message_row_id: m.id })
              .where('account_id', '=', accountId)
              .where('id', '=', id)
              .execute();
          });
        } catch (err) {
          const words = (err as Error).message;
          log.warn({ scheduled: id, err: { message: words } }, 'scheduled message not sent');
          await db
            .updateTable('scheduled_messages')
            .set({ state: 'failed', error: words.slice(0, 500), updated_at: now() })
            .where('account_id', '=', accountId)
            .where('id', '=', id)
            .where('state', '=', 'pending')
            .execute();
        }
      }
    },
  };
}
