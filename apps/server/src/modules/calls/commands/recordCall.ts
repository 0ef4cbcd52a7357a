import { readFile } from 'node:fs/promises';
import {
  CALL_STRINGS,
  type CallEndInput,
  type CallStartInput,
  dominantEmotion,
  type TicketUpdated,
  type VoiceAnalysis,
} from '@parley/contracts';
import type { z } from 'zod';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { analyseVoice, decodeWav, recordCallScam } from '../../ai/index.js';
import { keyOf, uploadPath } from '../../messages/index.js';
import type { Conversations } from '../../messages/messages.realtime.js';
import { actorOf, assignTicketIn, createTicket, ticketAudience, touchTicketItem } from '../../tickets/index.js';

type Start = z.output<typeof import('@parley/contracts').CallStartInput>;
type End = z.output<typeof import('@parley/contracts').CallEndInput>;
export type { CallEndInput, CallStartInput };

async function callRow(trx: Trx | DB, accountId: number, callId: string) {
  return trx
    .selectFrom('calls')
    .select(['id', 'ticket_id', 'started_at'])
    .where('account_id', '=', accountId)
    .where('call_id', '=', callId)
    .executeTakeFirst();
}

/**
 * A call began (CALL-01, CALL-15): the CALL ticket is created with its direction, the customer's number and
 * the DID, assigned to the user whose softphone reports it, and the call's row is kept under the call
 * server's id. The same `call_id` again answers the ticket it already has and changes nothing.
 */
export async function startCall(db: DB, conversations: Conversations, auth: AuthContext, input: Start) {
  return runCommand(db, async (trx) => {
    const known = await callRow(trx, auth.accountId, input.call_id);
    if (known) return Number(known.ticket_id);
    const now = Date.now();
    const who = input.name || input.number || 'unknown number';
    const ticketId = await createTicket(trx, conversations, {
      accountId: auth.accountId,
      channel: 'CALL',
      title: input.direction === 'inbound' ? `Call from ${who}` : `Call to ${who}`,
      name: input.name,
      phone: input.number,
      callDirection: input.direction,
      did: input.did,
      ref: input.call_id,
      fromCustomer: input.direction === 'inbound',
      at: now,
    });
    await trx
      .insertInto('calls')
      .values({
        account_id: auth.accountId,
        ticket_id: ticketId,
        call_id: input.call_id,
        user_id: auth.userId,
        started_at: now,
        ended_at: null,
        energy: null,
        pace: null,
      })
      .execute();
    await assignTicketIn(trx, conversations, actorOf(auth), { id: ticketId, assignee: [auth.username] });
    return ticketId;
  });
}

/** The recording named by `/files/<key>/...`: the account's own upload, audio; else a 400. */
async function recordingOf(db: DB, dataDir: string, accountId: number, url: string) {
  const key = keyOf(url);
  const row = key
    ? await db
        .selectFrom('uploads')
        .select(['key', 'name', 'mime'])
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirst()
    : undefined;
  if (!row) throw badRequest(CALL_STRINGS.badRecording);
  if (!row.mime.startsWith('audio/')) throw badRequest(CALL_STRINGS.recordingNotAudio);
  return { key: row.key, name: row.name, path: uploadPath(dataDir, accountId, row.key) };
}

/** The voice reading of a recording; null when it cannot be read here (not a WAV we decode). */
async function hear(path: string): Promise<VoiceAnalysis | null> {
  try {
    const r = analyseVoice(decodeWav(await readFile(path)));
    return Object.keys(r.percentage).length > 0 ? r : null;
  } catch {
    return null;
  }
}

/**
 * A call ended: its duration (the time since the start when not given), its recording (read for emotion,
 * energy and pace before the transaction opens; the ticket's `emotion` and `emotion_2` take the reading)
 * and its transcript (the one sent replaces any earlier one: an end sent twice keeps one copy). The ticket
 * moves (`updated_at`) and `updateTicket` tells the account. An unknown `call_id` is a 404, nothing changed.
 */
export async function endCall(db: DB, dataDir: string, auth: AuthContext, input: End) {
  const known = await callRow(db, auth.accountId, input.call_id);
  if (!known) throw notFound(CALL_STRINGS.notFound);
  const recording = input.recording ? await recordingOf(db, dataDir, auth.accountId, input.recording) : null;
  const voice = recording ? await hear(recording.path) : null;
  return runCommand(db, async (trx) => {
    const now = Date.now();
    const ticketId = Number(known.ticket_id);
    const duration = input.duration ?? Math.max(0, Math.round((now - Number(known.started_at)) / 1000));
    await trx
      .updateTable('calls')
      .set({
        ended_at: now,
        duration,
        ...(recording ? { recording_key: recording.key, recording_name: recording.name } : {}),
        ...(voice ? { energy: voice.energy, pace: voice.pace } : {}),
      })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', known.id)
      .execute();
    if (input.transcript.length > 0) {
      await trx
        .deleteFrom('call_transcripts')
        .where('account_id', '=', auth.accountId)
        .where('ticket_id', '=', ticketId)
        .execute();
      await trx
        .insertInto('call_transcripts')
        .values(
          input.transcript.map((t, i) => ({
            account_id: auth.accountId,
            ticket_id: ticketId,
            source: t.source,
            transcription: t.transcription,
            translated_transcription: t.translated_transcription,
            interim: t.interim ? 1 : 0,
            data_id: t.data_id,
            energy: t.energy,
            pace: t.pace,
            emotion: t.emotion,
            personality: t.personality,
            created_at: now + i,
          })),
        )
        .execute();
      // Scam Calls: the caller's words read for a scam, kept with the call.
      await recordCallScam(trx, auth.accountId, ticketId, input.transcript, now);
    }
    // The ticket moves and takes the recording's reading; `updateTicket` carries it to the account.
    const payload = await touchTicketItem(trx, auth.accountId, ticketId, {
      updated_at: now,
      ...(voice ? { emotion: dominantEmotion(voice.percentage), emotion_2: JSON.stringify(voice.percentage) } : {}),
    });
    if (!payload) throw notFound(CALL_STRINGS.notFound);
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'ticket.updated',
      payload: payload satisfies TicketUpdated,
      realtime: ticketAudience(auth.accountId, payload),
    });
    return ticketId;
  });
}
