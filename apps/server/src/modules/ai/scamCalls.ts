import {
  type AiCue,
  SCAM_CALL_PAGE_SIZE,
  SCAM_CALL_STRINGS,
  SCAM_KINDS,
  type ScamCall,
  ScamCallsAnswer,
  ScamCallsQuery,
  type ScamKind,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { forbidden } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';
import { words } from './emotion.js';
import { analyseMessage } from './engine/analyse.js';

/** A transcript line as the call module keeps it. */
export interface CallLine {
  source: string;
  transcription: string;
  translated_transcription: string;
  interim: boolean | number;
}

/** The caller's final lines (not the agent's, not interim guesses), in English when translated. */
const callerLines = (lines: readonly CallLine[]) =>
  lines
    .filter((l) => l.source !== 'agent' && !l.interim)
    .map((l) => (l.translated_transcription || l.transcription).trim())
    .filter((t) => t.length > 0);

/**
 * The scam reading of a call: the offline engine reads what the caller said (each line its own sentence, so
 * a cue never joins two lines). The agent's lines are not read: "we will never ask for your PIN" is the
 * agent's warning, not the caller's ask. Null when nothing is flagged.
 */
export function readCallScam(
  lines: readonly CallLine[],
): { kind: ScamKind; confidence: number; cues: AiCue[]; excerpt: string } | null {
  const said = callerLines(lines);
  if (said.length === 0) return null;
  const scam = analyseMessage(said.join('\n')).scam;
  if (!scam.value) return null;
  const first = scam.cues.find((c) => c.cue.includes(' ') || c.cue.length > 2)?.cue ?? scam.cues[0]?.cue ?? '';
  const excerpt = said.find((t) => words(t).join(' ').includes(first)) ?? said[0]!;
  return { kind: scam.value, confidence: scam.confidence, cues: scam.cues, excerpt: excerpt.slice(0, 500) };
}

/**
 * Keeps the scam reading of a call whose transcript was just stored (in the same transaction): the row is
 * replaced when the call is flagged and removed when it no longer is (a transcript sent again).
 */
export async function recordCallScam(
  trx: Trx,
  accountId: number,
  ticketId: number,
  lines: readonly CallLine[],
  at = Date.now(),
): Promise<void> {
  const reading = readCallScam(lines);
  await trx.deleteFrom('call_scams').where('account_id', '=', accountId).where('ticket_id', '=', ticketId).execute();
  if (!reading) return;
  await trx
    .insertInto('call_scams')
    .values({
      account_id: accountId,
      ticket_id: ticketId,
      kind: reading.kind,
      confidence: Math.round(reading.confidence * 100),
      flagged_at: at,
    })
    .execute();
}

/** NAV-24, DECISIONS 20: Scam Calls is for admins of an account with the `scam_calls` feature. */
async function hasScamCalls(db: DB, accountId: number): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('features').where('id', '=', accountId).executeTakeFirst();
  try {
    const list = JSON.parse(row?.features ?? '[]') as unknown;
    return Array.isArray(list) && list.includes('scam_calls');
  } catch {
    return false;
  }
}

const NUMBERS_SHOWN = 10;

/** A page of the account's flagged calls, newest first, with the most flagged numbers. */
export async function scamCallsPage(
  db: DB,
  accountId: number,
  q: { offset: number; kind: string; number: string },
): Promise<Omit<ScamCallsAnswer, 'result'>> {
  const base = () => {
    let b = db
      .selectFrom('call_scams as s')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 's.ticket_id').on('t.account_id', '=', accountId))
      .where('s.account_id', '=', accountId);
    if (q.kind) b = b.where('s.kind', '=', q.kind);
    if (q.number) b = b.where('t.phone', '=', q.number);
    return b;
  };
  const rows = await base()
    .leftJoin('calls as c', (j) => j.onRef('c.ticket_id', '=', 's.ticket_id').on('c.account_id', '=', accountId))
    .select([
      's.ticket_id',
      's.kind',
      's.confidence',
      's.flagged_at',
      't.ticket_number',
      't.call_direction',
      't.phone',
      't.name',
      't.assignee',
      't.created_at',
      'c.started_at',
      'c.duration',
    ])
    .orderBy('s.flagged_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(SCAM_CALL_PAGE_SIZE)
    .offset(q.offset)
    .execute();
  const total = Number(
    (
      await base()
        .select((e) => e.fn.countAll().as('n'))
        .executeTakeFirst()
    )?.n ?? 0,
  );

  const flaggedFrom = () =>
    db
      .selectFrom('call_scams as s')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 's.ticket_id').on('t.account_id', '=', accountId))
      .where('s.account_id', '=', accountId)
      .where('t.phone', '!=', '')
      .groupBy('t.phone')
      .select((e) => ['t.phone', e.fn.countAll().as('n'), e.fn.max('s.flagged_at').as('last')]);
  const phones = [...new Set(rows.map((r) => r.phone).filter((p) => p !== ''))];
  const perNumber = new Map<string, number>();
  if (phones.length > 0)
    for (const r of await flaggedFrom().where('t.phone', 'in', phones).execute()) perNumber.set(r.phone, Number(r.n));
  const numbers =
    q.offset === 0
      ? (await flaggedFrom().execute())
          .map((r) => ({ number: r.phone, calls: Number(r.n), last_at: Number(r.last) }))
          .sort((a, b) => b.calls - a.calls || b.last_at - a.last_at || a.number.localeCompare(b.number))
          .slice(0, NUMBERS_SHOWN)
      : [];

  // The words come from the transcript as it is now (a retention rule may have removed it).
  const ids = rows.map((r) => Number(r.ticket_id));
  const lines = new Map<number, CallLine[]>();
  if (ids.length > 0) {
    const got = await db
      .selectFrom('call_transcripts')
      .select(['ticket_id', 'source', 'transcription', 'translated_transcription', 'interim'])
      .where('account_id', '=', accountId)
      .where('ticket_id', 'in', ids)
      .orderBy('ticket_id')
      .orderBy('id')
      .execute();
    for (const l of got) {
      const list = lines.get(Number(l.ticket_id)) ?? [];
      list.push(l);
      lines.set(Number(l.ticket_id), list);
    }
  }
  const data: ScamCall[] = rows.map((r) => {
    const id = Number(r.ticket_id);
    const reading = readCallScam(lines.get(id) ?? []);
    const direction = r.call_direction;
    return {
      ticket_id: id,
      ticket_number: Number(r.ticket_number),
      direction: direction === 'inbound' || direction === 'outbound' ? direction : '',
      number: r.phone,
      name: r.name,
      assignee: r.assignee,
      started_at: Number(r.started_at ?? r.created_at),
      duration: Number(r.duration ?? 0),
      kind: (SCAM_KINDS as readonly string[]).includes(r.kind) ? (r.kind as ScamKind) : 'known_phrasing',
      confidence: Math.min(1, Math.max(0, Number(r.confidence) / 100)),
      flagged_at: Number(r.flagged_at),
      cues: reading?.cues ?? [],
      excerpt: reading?.excerpt ?? '',
      number_flags: perNumber.get(r.phone) ?? 1,
    };
  });
  return { data, numbers, total };
}

/**
 * CALL-45, CALL-46: `GET /api/call_verification`, the Scam Calls feed: the account's calls the offline engine
 * flagged from the caller's words, newest first, a kind or a number at a time. Admins only (the guard), and
 * only on an account with the `scam_calls` feature (403 otherwise, nothing read).
 */
export function scamCallsRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/call_verification',
    { config: { auth: 'admin' }, schema: { querystring: ScamCallsQuery, response: { 200: ScamCallsAnswer } } },
    async (req) => {
      const auth = req.auth!;
      if (!(await hasScamCalls(deps.db, auth.accountId))) throw forbidden(SCAM_CALL_STRINGS.notAllowed);
      return { result: 'success' as const, ...(await scamCallsPage(deps.db, auth.accountId, req.query)) };
    },
  );
}
