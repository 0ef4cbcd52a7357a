import type { NewMessageEvent } from '@parley/contracts';
import type { Listener, StoredEvent, Trx } from '../../platform/outbox/index.js';
import { watchList } from './instruments.js';
import { dayOf, findMentions, sentimentOf } from './read.js';

type Payload = Partial<NewMessageEvent> & { fromCustomer?: boolean };
const READ_TYPES = new Set(['text', 'text/html']);
const textOf = (m: Payload) =>
  m.fromCustomer === true && READ_TYPES.has(String(m.type)) && typeof m.message === 'string' && m.message.trim()
    ? m.message
    : null;

/**
 * The trading desk's reading (docs/trading.md): each customer message, as the engine's emotion listener takes
 * it, is searched for the account's instruments; each one named is kept once with the message's sentiment,
 * the ticket's channel and the message's UTC day. Transactional: exactly once with its receipt; an account
 * without a watch list costs one small read.
 */
export function tradingMentionListener(): Listener {
  return {
    name: 'trading.mentions',
    kind: 'transactional',
    events: ['message.created'],
    wants: (e) => textOf(e.payload as Payload) !== null,
    async handle(e: StoredEvent, trx: Trx) {
      const m = e.payload as Payload;
      const text = textOf(m);
      const ticketId = Number(m.ticketId);
      const messageId = Number(m.id);
      if (text === null || !Number.isInteger(ticketId) || !Number.isInteger(messageId)) return;
      const list = await watchList(trx, e.accountId);
      if (list.length === 0) return;
      const found = findMentions(text, list);
      if (found.length === 0) return;
      const msg = await trx
        .selectFrom('messages as m')
        .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').on('t.account_id', '=', e.accountId))
        .select(['m.created_at', 't.channel'])
        .where('m.account_id', '=', e.accountId)
        .where('m.id', '=', messageId)
        .where('m.ticket_id', '=', ticketId)
        .where('m.deleted_at', 'is', null)
        .executeTakeFirst();
      // Deleted before it was read (or its ticket gone): nothing to keep.
      if (!msg) return;
      const at = Number(msg.created_at);
      const sentiment = sentimentOf(text);
      for (const instrumentId of found) {
        const had = await trx
          .selectFrom('trading_mentions')
          .select('id')
          .where('instrument_id', '=', instrumentId)
          .where('message_id', '=', messageId)
          .executeTakeFirst();
        if (had) continue;
        await trx
          .insertInto('trading_mentions')
          .values({
            account_id: e.accountId,
            instrument_id: instrumentId,
            message_id: messageId,
            ticket_id: ticketId,
            channel: msg.channel,
            sentiment,
            at,
            day: dayOf(at),
          })
          .execute();
      }
    },
  };
}
