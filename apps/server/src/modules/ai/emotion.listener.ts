import {
  addCounts,
  dominantEmotion,
  type NewContextEvent,
  type NewEmotionEvent,
  type NewMessageEvent,
  type TextEmotionEvent,
} from '@parley/contracts';
import { appendEvents, type Listener, type NewEvent, type StoredEvent, type Trx } from '../../platform/outbox/index.js';
import { staffAudience } from '../messages/index.js';
import { type EmotionReader, ruleReader } from './emotion.js';

const READ_TYPES = new Set(['text', 'text/html']);
const parseCounts = (s: string): Record<string, number> => {
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
};

/**
 * RT-24, RT-25 (text), AI-10, AI-14: each customer message (a visitor's, an e-mail's: `fromCustomer`) of
 * type text or text/html is read when it is delivered: its `emotion_2` and `context` are stored on it, its
 * counts are added to its ticket's `emotion_2` (and `emotion`, the dominant one), and the staff of the
 * conversation get `textEmotion` (the message's reading), `newEmotion` (the ticket's) and, when the message
 * says what it is about, `newContext`. Transactional: exactly once, so a ticket's counts never count a
 * message twice. Agents' messages and the server's are not read (the skip reads no row).
 */
export function emotionListener(reader: EmotionReader = ruleReader): Listener {
  return {
    name: 'ai.emotion',
    kind: 'transactional',
    events: ['message.created'],
    async handle(e: StoredEvent, trx: Trx) {
      const m = e.payload as Partial<NewMessageEvent> & { fromCustomer?: boolean };
      if (m.fromCustomer !== true || !READ_TYPES.has(String(m.type))) return;
      if (typeof m.message !== 'string' || !m.message.trim()) return;
      const ticketId = Number(m.ticketId);
      const messageId = Number(m.id);
      if (!Number.isInteger(ticketId) || !Number.isInteger(messageId)) return;
      const t = await trx
        .selectFrom('tickets')
        .select(['id', 'channel', 'emotion_2'])
        .where('account_id', '=', e.accountId)
        .where('id', '=', ticketId)
        .executeTakeFirst();
      if (!t) return;
      const reading = reader.read(m.message);
      const stored = await trx
        .updateTable('messages')
        .set({ emotion_2: JSON.stringify(reading.emotion_2), context: reading.context })
        .where('account_id', '=', e.accountId)
        .where('id', '=', messageId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      // Deleted before it was read: nothing to count.
      if (Number(stored.numUpdatedRows) === 0) return;
      const emotion_2 = addCounts(parseCounts(t.emotion_2), reading.emotion_2);
      const emotion = dominantEmotion(emotion_2);
      await trx
        .updateTable('tickets')
        .set({ emotion, emotion_2: JSON.stringify(emotion_2) })
        .where('account_id', '=', e.accountId)
        .where('id', '=', ticketId)
        .execute();
      const rooms = await staffAudience(trx, { id: ticketId, accountId: e.accountId, channel: t.channel });
      const events: NewEvent[] = [
        {
          accountId: e.accountId,
          type: 'message.emotion',
          payload: {
            ticketId,
            messageId,
            source: 'customer',
            emotion: dominantEmotion(reading.emotion_2),
            emotion_2: reading.emotion_2,
          } satisfies TextEmotionEvent,
          realtime: { name: 'textEmotion', rooms },
        },
        {
          accountId: e.accountId,
          type: 'ticket.emotion',
          payload: {
            ticketId,
            messageId,
            message_emotion_2: reading.emotion_2,
            emotion,
            emotion_2,
          } satisfies NewEmotionEvent,
          realtime: { name: 'newEmotion', rooms },
        },
      ];
      if (reading.context)
        events.push({
          accountId: e.accountId,
          type: 'message.context',
          payload: { ticketId, messageId, context: reading.context } satisfies NewContextEvent,
          realtime: { name: 'newContext', rooms },
        });
      await appendEvents(trx, e.accountId, events);
    },
  };
}
