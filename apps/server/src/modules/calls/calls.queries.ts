import type { CallFacts, CallTranscriptEntry, RecordingsQuery } from '@parley/contracts';
import { TRANSCRIPT_SOURCES } from '@parley/contracts';
import type { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';
import { checkFilterIds, parseEmotionCounts } from '../tickets/index.js';

/** REC-01: supervisors and admins read recordings. */
export const readsRecordings = (type: string) => type === 'admin' || type === 'supervisor';

/** Where a call's recording streams from. */
export const recordingUrl = (ticketId: number) => `/api/recordings/${ticketId}/audio`;

const FACTS = [
  'calls.ticket_id',
  'calls.call_id',
  'calls.started_at',
  'calls.ended_at',
  'calls.duration',
  'calls.recording_key',
  'calls.recording_name',
  'calls.energy',
  'calls.pace',
  'calls.personality',
  'tickets.ticket_number',
  'tickets.call_direction',
  'tickets.phone',
  'tickets.did',
  'tickets.name',
  'tickets.assignee',
  'tickets.department_id',
  'tickets.emotion',
  'tickets.emotion_2',
] as const;

function base(db: DB | Trx, accountId: number) {
  return db
    .selectFrom('calls')
    .innerJoin('tickets', (j) => j.onRef('tickets.id', '=', 'calls.ticket_id').on('tickets.account_id', '=', accountId))
    .where('calls.account_id', '=', accountId);
}

type Row = Awaited<ReturnType<ReturnType<typeof rows>['executeTakeFirstOrThrow']>>;
const rows = (db: DB | Trx, accountId: number) => base(db, accountId).select([...FACTS]);

/** A call's facts; the recording's address only for a viewer who reads recordings (REC-01). */
function facts(r: Row, withRecording: boolean): CallFacts {
  const ticketId = Number(r.ticket_id);
  const direction = r.call_direction;
  return {
    ticket_id: ticketId,
    ticket_number: Number(r.ticket_number),
    call_id: r.call_id,
    direction: direction === 'inbound' || direction === 'outbound' ? direction : '',
    number: r.phone,
    did: r.did,
    name: r.name,
    assignee: r.assignee,
    department_id: r.department_id === null ? null : Number(r.department_id),
    started_at: Number(r.started_at),
    ended_at: r.ended_at === null ? null : Number(r.ended_at),
    duration: Number(r.duration),
    has_recording: r.recording_key !== '',
    recording: r.recording_key !== '' && withRecording ? recordingUrl(ticketId) : null,
    recording_name: r.recording_name,
    emotion: r.emotion,
    emotion_2: parseEmotionCounts(r.emotion_2),
    energy: r.energy === null ? null : Number(r.energy),
    pace: r.pace === null ? null : Number(r.pace),
    personality: r.personality,
  };
}

/** The call of a CALL ticket of the account, or undefined. */
export async function callOfTicket(db: DB | Trx, accountId: number, ticketId: number, withRecording: boolean) {
  const r = await rows(db, accountId).where('calls.ticket_id', '=', ticketId).executeTakeFirst();
  return r ? facts(r, withRecording) : undefined;
}

/** CALL-32: a call's transcript, in the order it was spoken. */
export async function transcriptOf(db: DB, accountId: number, ticketId: number): Promise<CallTranscriptEntry[]> {
  const list = await db
    .selectFrom('call_transcripts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .orderBy('id')
    .execute();
  return list.map((t) => ({
    id: Number(t.id),
    source: (TRANSCRIPT_SOURCES as readonly string[]).includes(t.source)
      ? (t.source as CallTranscriptEntry['source'])
      : 'others',
    transcription: t.transcription,
    translated_transcription: t.translated_transcription,
    interim: Boolean(t.interim),
    data_id: t.data_id,
    energy: t.energy === null ? null : Number(t.energy),
    pace: t.pace === null ? null : Number(t.pace),
    emotion: t.emotion,
    personality: t.personality,
  }));
}

type Query = z.output<typeof import('@parley/contracts').RecordingsQuery>;

/** REC-07, REC-12: a page of the account's recorded calls, newest first, and how many match. */
export async function listRecordings(db: DB, accountId: number, q: Query, pageSize: number) {
  // Another account's department is a 400, as on the ticket list.
  await checkFilterIds(db, accountId, { depFilter: q.depFilter });
  let sel = base(db, accountId).where('calls.recording_key', '!=', '');
  if (q.type !== 'all') sel = sel.where('tickets.call_direction', '=', q.type);
  if (q.emotionFilter?.length) sel = sel.where('tickets.emotion', 'in', q.emotionFilter);
  if (q.start !== undefined) sel = sel.where('calls.started_at', '>=', q.start * 1000);
  if (q.end !== undefined) sel = sel.where('calls.started_at', '<=', q.end * 1000 + 999);
  if (q.depFilter?.length) sel = sel.where('tickets.department_id', 'in', q.depFilter);
  const [page, total] = await Promise.all([
    sel
      .select([...FACTS])
      .orderBy('calls.started_at', 'desc')
      .orderBy('calls.id', 'desc')
      .limit(pageSize)
      .offset(q.offset)
      .execute(),
    sel.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: page.map((r) => facts(r, true)), count: Number(total.n) };
}

export type { RecordingsQuery };
