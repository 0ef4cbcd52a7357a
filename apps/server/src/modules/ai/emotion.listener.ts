import fs from 'node:fs/promises';
import {
  addCounts,
  dominantEmotion,
  looksLikeEnvelope,
  type MessageFile,
  type NewContextEvent,
  type NewEmotionEvent,
  type NewMessageEvent,
  type TextEmotionEvent,
  type VoiceEmotionEvent,
} from '@parley/contracts';
import { appendEvents, type Listener, type NewEvent, type StoredEvent, type Trx } from '../../platform/outbox/index.js';
import { type Conversations, keyOf, uploadPath } from '../messages/index.js';
import { parseEmotionCounts } from '../tickets/index.js';
import { type EmotionReader, ruleReader, type TextReading } from './emotion.js';
import { analyseMessage } from './engine/analyse.js';
import { messageFindings } from './findings.js';
import { analyseVoice, decodeWav } from './voice.js';

const READ_TYPES = new Set(['text', 'text/html']);
/** What file sniffing calls a WAV file. */
const WAV_TYPES = new Set(['audio/wav', 'audio/x-wav', 'audio/vnd.wave', 'audio/wave']);

type Payload = Partial<NewMessageEvent> & { fromCustomer?: boolean };
/** A customer's text to read; never an encrypted conversation's ciphertext (CRYPT-11). */
const textOf = (m: Payload) =>
  m.fromCustomer === true &&
  READ_TYPES.has(String(m.type)) &&
  typeof m.message === 'string' &&
  m.message.trim() &&
  !looksLikeEnvelope(m.message)
    ? m.message
    : null;
const recordingOf = (m: Payload): MessageFile | undefined =>
  Array.isArray(m.files) ? m.files.find((f) => WAV_TYPES.has(f.fileType)) : undefined;

export interface EmotionOptions {
  /** Where uploads are kept (a recording is read from there). */
  dataDir: string;
  /** Who hears a conversation (the staff part of it gets the readings). */
  conversations: Conversations;
  reader?: EmotionReader;
}

/**
 * RT-24, RT-25, AI-10, AI-14: messages are read when they are delivered.
 * - Text: each customer message (`fromCustomer`: today a live chat visitor's) of type text or text/html gets
 *   `emotion_2` and `context`; its counts are added to its ticket's `emotion_2` (and `emotion`, the dominant
 *   one); the staff get `textEmotion` (the message's reading), `newEmotion` (the ticket's) and, when the
 *   message says what it is about, `newContext`.
 * - Voice: a WAV recording attached to any message (a customer's voice note, an agent's call recording) is
 *   heard (`analyseVoice`); the staff get `voiceEmotion`, and a message with no text keeps the voice reading
 *   as its `emotion_2`. Voice does not change the ticket's counts (another set of names, REC-06).
 * Transactional: exactly once, so a ticket never counts a message twice. A message with neither (an agent's
 * text, the server's) is not wanted (`wants`): no receipt, no row read.
 */
export function emotionListener(o: EmotionOptions): Listener {
  const reader = o.reader ?? ruleReader;
  return {
    name: 'ai.emotion',
    kind: 'transactional',
    events: ['message.created'],
    // Agents' texts and the server's messages: no receipt, no transaction (most messages of a busy desk).
    wants: (e) => textOf(e.payload as Payload) !== null || recordingOf(e.payload as Payload) !== undefined,
    // A recording is read and decoded before the relay's transaction opens: SQLite's write lock (and the
    // ticket row on Postgres) is held only for the short write that follows.
    prepare: async (e) => {
      const recording = recordingOf(e.payload as Payload);
      return recording ? hear(o.dataDir, e.accountId, recording) : null;
    },
    async handle(e: StoredEvent, trx: Trx, prepared?: unknown) {
      const m = e.payload as Payload;
      const text = textOf(m);
      const recording = recordingOf(m);
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
      const reading = text === null ? null : reader.read(text);
      const findings = text === null ? null : messageFindings(analyseMessage(text));
      const voice = recording ? ((prepared as Heard | undefined) ?? null) : null;
      const keep: TextReading | null = reading ?? (voice ? { emotion_2: voice.percentage, context: '' } : null);
      if (!keep) return;
      const stored = await trx
        .updateTable('messages')
        .set({
          emotion_2: JSON.stringify(keep.emotion_2),
          context: keep.context,
          // AI-02: the engine's findings, kept with the message so history shows them.
          ...(findings ? storedFindings(findings) : {}),
        })
        .where('account_id', '=', e.accountId)
        .where('id', '=', messageId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      // Deleted before it was read: nothing to count.
      if (Number(stored.numUpdatedRows) === 0) return;
      const rooms = await o.conversations.staffAudience(trx, {
        id: ticketId,
        accountId: e.accountId,
        channel: t.channel,
      });
      const events: NewEvent[] = [];
      if (reading && findings)
        events.push(...(await textEvents(trx, e.accountId, t, messageId, reading, findings, rooms)));
      if (voice)
        events.push({
          accountId: e.accountId,
          type: 'message.voice_emotion',
          payload: {
            ticketId,
            messageId,
            source: m.fromCustomer === true ? 'customer' : 'agent',
            emotion: dominantEmotion(voice.percentage),
            emotion_2: voice.percentage,
            energy: voice.energy,
            pace: voice.pace,
          } satisfies VoiceEmotionEvent,
          realtime: { name: 'voiceEmotion', rooms },
        });
      await appendEvents(trx, e.accountId, events);
    },
  };
}

function storedFindings(f: Findings) {
  return {
    recommendation: f.recommendation,
    aiqon_results: JSON.stringify(f.aiqon_results),
    scam_results: JSON.stringify(f.scam_results),
  };
}

type Findings = ReturnType<typeof messageFindings>;

type Heard = Awaited<ReturnType<typeof hear>>;

/** The voice reading of a stored recording; null when it cannot be read (gone, or a WAV we do not decode). */
async function hear(dataDir: string, accountId: number, f: MessageFile) {
  const key = keyOf(f.file);
  if (!key) return null;
  try {
    const reading = analyseVoice(decodeWav(await fs.readFile(uploadPath(dataDir, accountId, key))));
    return Object.keys(reading.percentage).length > 0 ? reading : null;
  } catch {
    return null;
  }
}

/** Adds a text reading to the ticket's counts; the three text events. */
async function textEvents(
  trx: Trx,
  accountId: number,
  t: { id: number | bigint; emotion_2: string },
  messageId: number,
  reading: TextReading,
  findings: Findings,
  rooms: string[],
): Promise<NewEvent[]> {
  const ticketId = Number(t.id);
  const emotion_2 = addCounts(parseEmotionCounts(t.emotion_2), reading.emotion_2);
  const emotion = dominantEmotion(emotion_2);
  await trx
    .updateTable('tickets')
    .set({ emotion, emotion_2: JSON.stringify(emotion_2) })
    .where('account_id', '=', accountId)
    .where('id', '=', ticketId)
    .execute();
  const events: NewEvent[] = [
    {
      accountId,
      type: 'message.emotion',
      payload: {
        ticketId,
        messageId,
        source: 'customer',
        emotion: dominantEmotion(reading.emotion_2),
        emotion_2: reading.emotion_2,
        ...findings,
      } satisfies TextEmotionEvent,
      realtime: { name: 'textEmotion', rooms },
    },
    {
      accountId,
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
      accountId,
      type: 'message.context',
      payload: { ticketId, messageId, context: reading.context } satisfies NewContextEvent,
      realtime: { name: 'newContext', rooms },
    });
  return events;
}
