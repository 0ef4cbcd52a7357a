import { looksLikeEnvelope, type NewMessageEvent } from '@parley/contracts';
import type { Listener, StoredEvent, Trx } from '../../platform/outbox/index.js';
import { detectLanguage } from './language.js';

type Payload = Partial<NewMessageEvent> & { fromCustomer?: boolean };
const READ_TYPES = new Set(['text', 'text/html']);
/** A customer's text to read; never an encrypted conversation's ciphertext (CRYPT-11). */
const textOf = (m: Payload) =>
  m.fromCustomer === true &&
  READ_TYPES.has(String(m.type)) &&
  typeof m.message === 'string' &&
  m.message.trim() &&
  !looksLikeEnvelope(m.message)
    ? m.message
    : null;

/**
 * MSG-52: a ticket whose language is unknown ('') takes the language of its customer's first message that reads
 * reliably (offline detection, `detectLanguage`). A language set already (by an agent, `/api/language/set`, or
 * an earlier message) is never changed. Transactional: the update and its receipt commit together.
 */
export function languageListener(): Listener {
  return {
    name: 'ai.language',
    kind: 'transactional',
    events: ['message.created'],
    wants: (e) => textOf(e.payload as Payload) !== null,
    async handle(e: StoredEvent, trx: Trx) {
      const m = e.payload as Payload;
      const text = textOf(m);
      const ticketId = Number(m.ticketId);
      if (text === null || !Number.isInteger(ticketId)) return;
      const lang = detectLanguage(text.replace(/<[^>]*>/g, ' '));
      if (!lang) return;
      await trx
        .updateTable('tickets')
        .set({ language: lang })
        .where('account_id', '=', e.accountId)
        .where('id', '=', ticketId)
        .where('language', '=', '')
        .execute();
    },
  };
}
