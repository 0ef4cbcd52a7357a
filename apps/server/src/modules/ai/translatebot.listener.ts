import { looksLikeEnvelope, type NewMessageEvent, SENDERS } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Listener, StoredEvent, Trx } from '../../platform/outbox/index.js';
import { type Conversations, htmlToText, postMessage, type Translators } from '../messages/index.js';
import { baseLanguage, detectLanguage } from './language.js';

type Payload = Partial<NewMessageEvent> & { fromCustomer?: boolean };
const READ_TYPES = new Set(['text', 'text/html']);
const textOf = (m: Payload) => {
  if (m.fromCustomer !== true || !READ_TYPES.has(String(m.type)) || typeof m.message !== 'string') return null;
  // CRYPT-11: an encrypted conversation's text is ciphertext, never read.
  if (looksLikeEnvelope(m.message)) return null;
  const t = (m.type === 'text/html' ? htmlToText(m.message) : m.message).trim();
  return t ? t.slice(0, 5_000) : null;
};

/** What `prepare` found: the translation to post, or nothing to do. */
type Prepared = { text: string; lang: string } | null;

/**
 * MSG-53, AI-03: translation messages from `translatebot`. Once an agent has sent a reply translated into the
 * customer's language, the ticket's `source_lang` is the team's language; from then on each customer message
 * (text) that does not already read as that language is translated into it by the account's translator and
 * posted by `translatebot` as a reply to it (the team only: never to a live chat visitor; the line itself is
 * the translation, so the message's `translated_text` is left to translations asked for by hand). No translator, no `source_lang`, or the translator failing: nothing is
 * posted (the agent can still translate a message by hand; a failure is not retried, so a down provider never
 * holds the relay). The provider is asked before the transaction (`prepare`); the post commits exactly once.
 */
export function translatebotListener(o: { db: DB; conversations: Conversations; translators: Translators }): Listener {
  return {
    name: 'ai.translatebot',
    kind: 'transactional',
    events: ['message.created'],
    wants: (e) => textOf(e.payload as Payload) !== null,
    async prepare(e: StoredEvent): Promise<Prepared> {
      const m = e.payload as Payload;
      const text = textOf(m);
      const ticketId = Number(m.ticketId);
      if (text === null || !Number.isInteger(ticketId)) return null;
      const ticket = await o.db
        .selectFrom('tickets')
        .select(['language', 'source_lang'])
        .where('account_id', '=', e.accountId)
        .where('id', '=', ticketId)
        .executeTakeFirst();
      const team = ticket?.source_lang ?? '';
      if (!team) return null;
      const read = detectLanguage(text);
      const from = read ?? (ticket!.language || null);
      // Already in the team's language (or unreadable and the customer's language is the team's): nothing to do.
      if (from === null || baseLanguage(from) === baseLanguage(team)) return null;
      const translator = await o.translators.forAccount(o.db, e.accountId);
      if (!translator) return null;
      try {
        const [out] = await translator.translate([text], team, from);
        return out?.trim() && out.trim() !== text ? { text: out.trim(), lang: team } : null;
      } catch {
        return null;
      }
    },
    async handle(e: StoredEvent, trx: Trx, prepared?: unknown) {
      const p = prepared as Prepared | undefined;
      const m = e.payload as Payload;
      const ticketId = Number(m.ticketId);
      const messageId = Number(m.id);
      if (!p || !Number.isInteger(ticketId) || !Number.isInteger(messageId)) return;
      // The message is still there (not deleted meanwhile).
      const original = await trx
        .selectFrom('messages')
        .select('id')
        .where('account_id', '=', e.accountId)
        .where('id', '=', messageId)
        .where('ticket_id', '=', ticketId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!original) return;
      await postMessage(trx, o.conversations, {
        accountId: e.accountId,
        ticketId,
        sender: SENDERS.translatebot,
        senderName: 'Translation',
        type: 'text',
        message: p.text,
        replyId: messageId,
        staffOnly: true,
        fromCustomer: false,
      });
    },
  };
}
