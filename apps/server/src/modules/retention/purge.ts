import { rm } from 'node:fs/promises';
import { ANONYMISED, LIVECHAT_CODES, type RetentionAction, type RetentionTarget, SENDERS } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import { keyOf, uploadPath } from '../messages/index.js';

const DAY = 24 * 3600 * 1000;
/** Items removed per transaction: a big account never holds one long transaction. */
export const BATCH = 200;
/** Batches per rule and run; what is left goes on the next day's run (and the preview says so). */
export const MAX_BATCHES = 50;
/** The most one rule removes in one run. */
export const RUN_CAP = BATCH * MAX_BATCHES;
/** The status code of a closed ticket: the only one a rule removes (a resolved ticket may still reopen). */
const CLOSED = 3;
/** Live chat states still under way: never touched. */
const LIVE_STATES = ['queued', 'chatting'];

export interface RuleSpec {
  target: RetentionTarget;
  action: RetentionAction;
  days: number;
  channel: string;
}

export const cutoffOf = (rule: Pick<RuleSpec, 'days'>, now: number) => now - rule.days * DAY;

/** The stored spellings of a channel filter ('' for every customer channel). */
const channelsOf = (channel: string): string[] | null =>
  channel === '' ? null : channel === 'LIVECHAT' ? [...LIVECHAT_CODES] : [channel];

/**
 * The items a rule removes now, oldest id first, with a ticket number where there is one: the same query
 * backs the preview and the run, so a run removes exactly what the preview listed.
 */
export async function eligible(
  db: DB | Trx,
  accountId: number,
  rule: RuleSpec,
  now: number,
  limit: number,
): Promise<{ id: number; ticketNumber: number | null }[]> {
  const cutoff = cutoffOf(rule, now);
  const channels = channelsOf(rule.channel);
  if (rule.target === 'closed_tickets') {
    let q = db
      .selectFrom('tickets')
      .select(['id', 'ticket_number'])
      .where('account_id', '=', accountId)
      .where('closed', '=', CLOSED)
      .where('updated_at', '<', cutoff);
    q = channels ? q.where('channel', 'in', channels) : q.where('channel', '!=', 'chat');
    if (rule.action === 'anonymise') q = q.where('anonymised_at', 'is', null);
    const rows = await q.orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ id: Number(r.id), ticketNumber: Number(r.ticket_number) }));
  }
  if (rule.target === 'recordings') {
    let q = db
      .selectFrom('calls as c')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'c.ticket_id').onRef('t.account_id', '=', 'c.account_id'))
      .select(['c.id', 't.ticket_number'])
      .where('c.account_id', '=', accountId)
      .where('c.recording_key', '!=', '')
      .where((eb) => eb(eb.fn.coalesce('c.ended_at', 'c.started_at'), '<', cutoff));
    if (channels) q = q.where('t.channel', 'in', channels);
    const rows = await q.orderBy('c.id').limit(limit).execute();
    return rows.map((r) => ({ id: Number(r.id), ticketNumber: Number(r.ticket_number) }));
  }
  if (rule.target === 'visitor_data') {
    let q = db
      .selectFrom('livechats as l')
      .leftJoin('tickets as t', (j) => j.onRef('t.id', '=', 'l.ticket_id').onRef('t.account_id', '=', 'l.account_id'))
      .select(['l.id', 't.ticket_number'])
      .where('l.account_id', '=', accountId)
      .where('l.state', 'not in', LIVE_STATES)
      .where((eb) => eb(eb.fn.coalesce('l.ended_at', 'l.queued_at'), '<', cutoff));
    if (rule.action === 'anonymise') q = q.where('l.anonymised_at', 'is', null);
    const rows = await q.orderBy('l.id').limit(limit).execute();
    return rows.map((r) => ({
      id: Number(r.id),
      ticketNumber: r.ticket_number === null ? null : Number(r.ticket_number),
    }));
  }
  const rows = await db
    .selectFrom('audit_log')
    .select('id')
    .where('account_id', '=', accountId)
    .where('created_at', '<', cutoff)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: Number(r.id), ticketNumber: null }));
}

/** What one batch removed: counts for the run's log, and the stored files to remove once it committed. */
export interface Removed {
  tickets: number;
  messages: number;
  files: string[];
}
const none = (): Removed => ({ tickets: 0, messages: 0, files: [] });

/** Upload keys (files and thumbnails) of the given tickets: their uploads, message files and recordings. */
async function ticketFileKeys(trx: Trx, accountId: number, ids: number[]): Promise<string[]> {
  const keys = new Set<string>();
  const uploads = await trx
    .selectFrom('uploads')
    .select(['key', 'thumb_key'])
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .execute();
  for (const u of uploads) for (const k of [u.key, u.thumb_key]) if (k) keys.add(k);
  const messages = await trx
    .selectFrom('messages')
    .select('files')
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .where('files', '!=', '[]')
    .execute();
  for (const m of messages) {
    let files: { file?: unknown; thumb?: unknown }[] = [];
    try {
      files = JSON.parse(m.files);
    } catch {}
    for (const f of Array.isArray(files) ? files : [])
      for (const u of [f.file, f.thumb]) {
        const k = typeof u === 'string' ? keyOf(u) : null;
        if (k) keys.add(k);
      }
  }
  const calls = await trx
    .selectFrom('calls')
    .select('recording_key')
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .where('recording_key', '!=', '')
    .execute();
  for (const c of calls) keys.add(c.recording_key);
  return [...keys];
}

/** Removes the upload rows of the keys (and their thumbnails' keys); answers every key to remove on disk. */
async function dropUploads(trx: Trx, accountId: number, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await trx
    .selectFrom('uploads')
    .select(['key', 'thumb_key'])
    .where('account_id', '=', accountId)
    .where('key', 'in', keys)
    .execute();
  await trx.deleteFrom('uploads').where('account_id', '=', accountId).where('key', 'in', keys).execute();
  return [...new Set([...keys, ...rows.flatMap((r) => (r.thumb_key ? [r.thumb_key] : []))])];
}

/**
 * Deletes tickets for good: their files, the rows that name them without a foreign key, then the tickets
 * (messages, notes, reactions, reads, SLA timers, report facts and the rest go with them by cascade; the
 * search index and the counters by the database's triggers). Report rollups keep their anonymous counts.
 */
export async function deleteTickets(trx: Trx, accountId: number, ids: number[]): Promise<Removed> {
  if (ids.length === 0) return none();
  const files = await dropUploads(trx, accountId, await ticketFileKeys(trx, accountId, ids));
  const { n } = await trx
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .executeTakeFirstOrThrow();
  await trx.deleteFrom('notifications').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await trx.deleteFrom('sla_breaches').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await trx.deleteFrom('livechats').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await trx.deleteFrom('form_entries').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await trx.deleteFrom('case_tickets').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await trx
    .deleteFrom('channel_message_ids')
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .execute();
  await trx
    .deleteFrom('scheduled_messages')
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .execute();
  await trx.deleteFrom('automation_runs').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await trx
    .updateTable('calendar_events')
    .set({ ticket_id: null })
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .execute();
  const r = await trx.deleteFrom('tickets').where('account_id', '=', accountId).where('id', 'in', ids).execute();
  return { tickets: Number(r[0]?.numDeletedRows ?? 0), messages: Number(n), files };
}

/**
 * Anonymises tickets: the customer's name, e-mail, phone, free fields and contact link go; every customer
 * message's text and sender become the placeholder; every file (and recording) of the ticket is removed; the
 * live chat's visitor details and the call transcripts go. The team's own messages and notes stay.
 */
export async function anonymiseTickets(trx: Trx, accountId: number, ids: number[], now: number): Promise<Removed> {
  if (ids.length === 0) return none();
  const files = await dropUploads(trx, accountId, await ticketFileKeys(trx, accountId, ids));
  await trx
    .updateTable('tickets')
    .set({
      title: ANONYMISED,
      name: ANONYMISED,
      email: '',
      phone: '',
      other: '{}',
      contact_id: null,
      channel_peer: null,
      anonymised_at: now,
    })
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  const users = trx.selectFrom('users').select('username').where('account_id', '=', accountId);
  const r = await trx
    .updateTable('messages')
    .set({
      message: ANONYMISED,
      sender: ANONYMISED,
      sender_name: ANONYMISED,
      translated_text: '{}',
      email_meta: null,
      context: '',
    })
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .where('type', '!=', 'system')
    .where('sender', 'not in', [SENDERS.server, SENDERS.translatebot, ANONYMISED])
    .where('sender', 'not in', users)
    .execute();
  await trx
    .updateTable('messages')
    .set({ files: '[]' })
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .where('files', '!=', '[]')
    .execute();
  await trx
    .updateTable('calls')
    .set({ recording_key: '', recording_name: '' })
    .where('account_id', '=', accountId)
    .where('ticket_id', 'in', ids)
    .execute();
  await trx.deleteFrom('call_transcripts').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await trx.deleteFrom('form_entries').where('account_id', '=', accountId).where('ticket_id', 'in', ids).execute();
  await anonymiseVisitors(
    trx,
    accountId,
    (
      await trx
        .selectFrom('livechats')
        .select('id')
        .where('account_id', '=', accountId)
        .where('ticket_id', 'in', ids)
        .execute()
    ).map((x) => Number(x.id)),
    now,
  );
  return { tickets: ids.length, messages: Number(r[0]?.numUpdatedRows ?? 0), files };
}

/** Blanks the visitor's details of live chats (name, e-mail, phone, IC, first message, page and browser). */
async function anonymiseVisitors(trx: Trx, accountId: number, ids: number[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('livechats')
    .set({
      name: ANONYMISED,
      email: '',
      phone: '',
      ic: '',
      message: ANONYMISED,
      page: '',
      browser: '',
      anonymised_at: now,
    })
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  const visitors = trx
    .selectFrom('livechats')
    .select('visitor_id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids);
  await trx
    .updateTable('livechat_visitors')
    .set({ name: ANONYMISED })
    .where('account_id', '=', accountId)
    .where('id', 'in', visitors)
    .execute();
}

/** One batch of one rule, in the caller's transaction: the items `eligible` answered. */
async function applyBatch(trx: Trx, accountId: number, rule: RuleSpec, ids: number[], now: number): Promise<Removed> {
  if (rule.target === 'closed_tickets')
    return rule.action === 'delete' ? deleteTickets(trx, accountId, ids) : anonymiseTickets(trx, accountId, ids, now);
  if (rule.target === 'recordings') {
    const calls = await trx
      .selectFrom('calls')
      .select(['id', 'ticket_id', 'recording_key'])
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    const files = await dropUploads(
      trx,
      accountId,
      calls.map((c) => c.recording_key),
    );
    await trx
      .updateTable('calls')
      .set({ recording_key: '', recording_name: '' })
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    const tickets = calls.map((c) => Number(c.ticket_id));
    if (rule.action === 'delete')
      await trx
        .deleteFrom('call_transcripts')
        .where('account_id', '=', accountId)
        .where('ticket_id', 'in', tickets)
        .execute();
    else
      await trx
        .updateTable('call_transcripts')
        .set({ transcription: ANONYMISED, translated_transcription: '' })
        .where('account_id', '=', accountId)
        .where('ticket_id', 'in', tickets)
        .where('source', '!=', 'agent')
        .execute();
    return { tickets: 0, messages: 0, files };
  }
  if (rule.target === 'visitor_data') {
    if (rule.action === 'anonymise') await anonymiseVisitors(trx, accountId, ids, now);
    else {
      const visitors = (
        await trx
          .selectFrom('livechats')
          .select('visitor_id')
          .where('account_id', '=', accountId)
          .where('id', 'in', ids)
          .execute()
      ).map((v) => Number(v.visitor_id));
      await trx.deleteFrom('livechats').where('account_id', '=', accountId).where('id', 'in', ids).execute();
      // A visitor with no chat left is removed too (one still chatting keeps its row).
      if (visitors.length > 0)
        await trx
          .deleteFrom('livechat_visitors')
          .where('account_id', '=', accountId)
          .where('id', 'in', visitors)
          .where((eb) =>
            eb.not(
              eb.exists(
                eb.selectFrom('livechats as l').select('l.id').whereRef('l.visitor_id', '=', 'livechat_visitors.id'),
              ),
            ),
          )
          .execute();
    }
    return none();
  }
  await trx.deleteFrom('audit_log').where('account_id', '=', accountId).where('id', 'in', ids).execute();
  return none();
}

/** Removes stored files from disk, once the rows that named them are gone. */
export async function removeFiles(dataDir: string, accountId: number, keys: string[]): Promise<void> {
  for (const k of keys) await rm(uploadPath(dataDir, accountId, k), { force: true });
}

/**
 * Runs one rule: batches of `BATCH` items, each its own transaction (files removed after each commits), up to
 * `RUN_CAP` items. Answers how many items it removed or anonymised.
 */
export async function runRule(
  db: DB,
  dataDir: string,
  accountId: number,
  rule: RuleSpec,
  now: number,
): Promise<number> {
  let done = 0;
  for (let b = 0; b < MAX_BATCHES; b++) {
    const { count, files } = await runCommand(db, async (trx) => {
      const items = await eligible(trx, accountId, rule, now, BATCH);
      const removed = await applyBatch(
        trx,
        accountId,
        rule,
        items.map((i) => i.id),
        now,
      );
      return { count: items.length, files: removed.files };
    });
    await removeFiles(dataDir, accountId, files);
    done += count;
    if (count < BATCH) break;
  }
  return done;
}
