import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

/** Most ids a reply's References carries: the newest, so a long thread does not grow the header for ever. */
export const REFERENCES_MAX = 20;

/**
 * Our Message-ID of a reply (without the brackets), made from the message row so a retry sends the same one
 * (a recipient's client shows a repeat once) and nothing has to be stored before the first attempt.
 */
export function outMessageId(o: { accountId: number; messageId: number; createdAt: number; address: string }): string {
  const domain = o.address.split('@')[1] || 'parley.invalid';
  return `parley.${o.accountId}.${o.messageId}.${o.createdAt.toString(36)}@${domain}`;
}

/**
 * The subject with the ticket's `[#N]` tag once, at the end: a tag already there is not repeated, and
 * "Re: Re: " at the start becomes one "Re: ".
 */
export function taggedSubject(subject: string, ticketNumber: number): string {
  const tag = `[#${ticketNumber}]`;
  const bare = subject
    .split(tag)
    .join(' ')
    .replace(/^(\s*re\s*:\s*)+/i, (m) => (m.trim() ? 'Re: ' : ''))
    .replace(/\s+/g, ' ')
    .trim();
  return bare ? `${bare} ${tag}` : tag;
}

/** In-Reply-To and References of a reply in a ticket (ids without brackets). */
export interface ThreadHeaders {
  inReplyTo: string | null;
  references: string[];
}

/**
 * A reply answers the customer's latest mail in the ticket: In-Reply-To is its Message-ID, References that
 * mail's References and its id (oldest first, at most REFERENCES_MAX, the newest kept).
 */
export async function threadHeaders(q: DB | Trx, accountId: number, ticketId: number): Promise<ThreadHeaders> {
  const last = await q
    .selectFrom('email_message_ids')
    .select(['message_id', 'refs'])
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('direction', '=', 'in')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!last) return { inReplyTo: null, references: [] };
  const chain = [...(last.refs ?? '').split(/\s+/).filter(Boolean), last.message_id];
  const unique = chain.filter((id, i) => chain.lastIndexOf(id) === i);
  return { inReplyTo: last.message_id, references: unique.slice(-REFERENCES_MAX) };
}
