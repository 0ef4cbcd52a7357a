import { VISITOR_DETAILS_STRINGS, type VisitorDetails } from '@parley/contracts';
import { sql } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';

const PAST_LIMIT = 20;

/** A phone number as its digits: "+60 12-345 (6789)" and "60123456789" are one contact. */
const phoneDigits = (phone: string) => phone.replace(/\D/g, '');
/** The same in SQL: the separators people type (space, -, ., parentheses, +) taken out of the column. */
const storedPhoneDigits = sql<string>`replace(replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '.', ''), '(', ''), ')', ''), '+', '')`;

/**
 * The visitor behind a live chat's ticket, as the server stored it when the chat was queued (form fields, the
 * page and the browser), with the visitor session's other chats and the contact's other tickets (same e-mail,
 * case aside, or the same phone digits, however written). Every read is scoped to the caller's account; another account's ticket is a 404 like a missing one.
 */
export async function visitorDetails(db: DB, accountId: number, ticketId: number): Promise<VisitorDetails> {
  const chat = await db
    .selectFrom('livechats')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!chat) throw notFound(VISITOR_DETAILS_STRINGS.notFound);
  const chats = await db
    .selectFrom('livechats')
    .leftJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', 'livechats.ticket_id').onRef('tickets.account_id', '=', 'livechats.account_id'),
    )
    .select([
      'livechats.ticket_id',
      'tickets.ticket_number',
      'livechats.state',
      'livechats.agent',
      'livechats.queued_at',
      'livechats.message',
    ])
    .where('livechats.account_id', '=', accountId)
    .where('livechats.session_id', '=', chat.session_id)
    .where('livechats.id', '!=', chat.id)
    .orderBy('livechats.id', 'desc')
    .limit(PAST_LIMIT)
    .execute();
  const email = chat.email.trim();
  const phone = phoneDigits(chat.phone);
  const tickets =
    email || phone
      ? await db
          .selectFrom('tickets')
          .select(['id', 'ticket_number', 'title', 'channel', 'closed', 'created_at'])
          .where('account_id', '=', accountId)
          .where('id', '!=', ticketId)
          .where((eb) => {
            const or = [];
            if (email) or.push(eb(eb.fn('lower', ['email']), '=', email.toLowerCase()));
            if (phone) or.push(eb(storedPhoneDigits, '=', phone));
            return eb.or(or);
          })
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(PAST_LIMIT)
          .execute()
      : [];
  return {
    ticketId,
    name: chat.name,
    email: chat.email,
    phone: chat.phone,
    ic: chat.ic,
    page: chat.page,
    browser: chat.browser,
    state: chat.state,
    queued_at: Number(chat.queued_at),
    chats: chats.map((c) => ({
      ticket_id: c.ticket_id === null ? null : Number(c.ticket_id),
      ticket_number: c.ticket_number === null || c.ticket_number === undefined ? null : Number(c.ticket_number),
      state: c.state,
      agent: c.agent,
      queued_at: Number(c.queued_at),
      message: c.message.slice(0, 200),
    })),
    tickets: tickets.map((t) => ({
      id: Number(t.id),
      ticket_number: Number(t.ticket_number),
      title: t.title,
      channel: t.channel,
      closed: Number(t.closed),
      created_at: Number(t.created_at),
    })),
  };
}
