import { createRequire } from 'node:module';
import { PassThrough, Readable } from 'node:stream';
import { channelName, csvField, type IntervalQuery, REPORT_GROUP_NAMES, reportGroupOf } from '@parley/contracts';
import type ExcelJS from 'exceljs';
import type { DB } from '../../platform/db/db.js';
import { callRows } from './calls.queries.js';
import { intervalReport } from './omnichannel.queries.js';
import { type Reader, reportRange } from './reports.queries.js';

const MINUTE_MS = 60_000;
const PAGE = 1_000;

/** The files an export link gives (REPORT-24, design). */
export const EXPORT_FILES = ['conversations.csv', 'intervals.csv', 'report.xlsx', 'calls.csv'] as const;
export type ExportFile = (typeof EXPORT_FILES)[number];

export const CONVERSATION_COLUMNS = [
  'Ticket number',
  'Title',
  'Channel',
  'Group',
  'Department',
  'Assignee',
  'Created',
  'First response (minutes)',
  'Resolution (minutes)',
  'Reopened',
  'SLA breached',
  'CSAT',
] as const;
export const INTERVAL_COLUMNS = ['Start', 'Group', 'Received', 'First answered', 'Resolved'] as const;
export const CALL_COLUMNS = [
  'Ticket number',
  'Started',
  'Direction',
  'Number',
  'DID',
  'Agent',
  'Duration (seconds)',
  'Answered',
  'Recorded',
] as const;

type Cell = string | number | null;

const local = (ms: number, tz: number) => new Date(ms + tz * MINUTE_MS).toISOString().slice(0, 16).replace('T', ' ');
const minutes = (ms: unknown) => (ms === null || ms === undefined ? null : Math.round(Number(ms) / 600) / 100);

/**
 * The conversations made in the range, one row each, oldest first, read a page at a time by key (created,
 * ticket id) so memory stays flat however many there are.
 */
async function* conversationRows(db: DB, who: Reader, q: IntervalQuery, now: number): AsyncGenerator<Cell[]> {
  const [from, to] = reportRange(q, now);
  const departments = new Map(
    (await db.selectFrom('departments').select(['id', 'name']).where('account_id', '=', who.accountId).execute()).map(
      (d) => [Number(d.id), d.name],
    ),
  );
  let after: [number, number] = [from - 1, 0];
  for (;;) {
    const [at, id] = after;
    const page = await db
      .selectFrom('report_ticket_facts as f')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'f.ticket_id').onRef('t.account_id', '=', 'f.account_id'))
      .select([
        'f.ticket_id',
        'f.created_at',
        't.ticket_number',
        't.title',
        'f.channel',
        'f.department_id',
        'f.assignee',
        'f.first_response_ms',
        'f.resolution_ms',
        'f.reopen_count',
        'f.sla_breached',
        'f.csat',
      ])
      .where('f.account_id', '=', who.accountId)
      .where('f.created_at', '>=', from)
      .where('f.created_at', '<', to)
      .where((eb) =>
        eb.or([eb('f.created_at', '>', at), eb.and([eb('f.created_at', '=', at), eb('f.ticket_id', '>', id)])]),
      )
      .orderBy('f.created_at')
      .orderBy('f.ticket_id')
      .limit(PAGE)
      .execute();
    for (const r of page) {
      const group = reportGroupOf(r.channel);
      yield [
        Number(r.ticket_number),
        r.title,
        channelName(r.channel),
        group ? REPORT_GROUP_NAMES[group] : '',
        r.department_id === null ? '' : (departments.get(Number(r.department_id)) ?? ''),
        r.assignee,
        local(Number(r.created_at), q.tz),
        minutes(r.first_response_ms),
        minutes(r.resolution_ms),
        Number(r.reopen_count),
        Number(r.sla_breached) ? 'Yes' : 'No',
        r.csat === null ? null : Number(r.csat),
      ];
    }
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = [Number(last.created_at), Number(last.ticket_id)];
  }
}

/** The call report's calls, one row each, oldest first, read 1,000 at a time by key. */
async function* callExportRows(db: DB, who: Reader, q: IntervalQuery, now: number): AsyncGenerator<Cell[]> {
  const [from, to] = reportRange(q, now);
  let after: [number, number] = [from - 1, 0];
  for (;;) {
    const page = await callRows(db, who, from, to, after, PAGE);
    for (const c of page)
      yield [
        c.ticketNumber,
        local(c.startedAt, q.tz),
        c.direction === 'outbound' ? 'Outbound' : 'Inbound',
        c.number,
        c.did,
        c.username,
        c.duration,
        c.duration > 0 ? 'Yes' : 'No',
        c.recorded ? 'Yes' : 'No',
      ];
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = [last.startedAt, last.id];
  }
}

/** The interval report's rows as the screen draws them: each bucket and group with anything in it. */
async function intervalRows(db: DB, who: Reader, q: IntervalQuery, now: number): Promise<Cell[][]> {
  const report = await intervalReport(db, who, q, now);
  return Object.entries(report.data).flatMap(([start, groups]) =>
    Object.entries(groups).map(([g, c]) => [
      start,
      REPORT_GROUP_NAMES[g as keyof typeof REPORT_GROUP_NAMES] ?? g,
      c.received,
      c.answered,
      c.resolved,
    ]),
  );
}

const csvLine = (cells: readonly Cell[]) => `${cells.map((c) => csvField(c === null ? '' : String(c))).join(',')}\r\n`;

async function* csv(header: readonly string[], rows: AsyncIterable<Cell[]> | Iterable<Cell[]>): AsyncGenerator<string> {
  // A byte-order mark so spreadsheet programs read UTF-8.
  yield `\uFEFF${csvLine(header)}`;
  let chunk = '';
  for await (const r of rows) {
    chunk += csvLine(r);
    if (chunk.length > 64_000) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/**
 * Resolves once `out` holds no more than its high-water mark, or closed. Polled (every 10 ms while full): a
 * 'data' listener would set a stream nobody reads yet flowing and lose what it holds.
 */
async function drained(out: PassThrough): Promise<void> {
  // The zip stream is piped into `out`: its buffer fills while the client is slower than the writer.
  while (!out.destroyed && out.readableLength + out.writableLength > out.readableHighWaterMark)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A workbook with two sheets, Intervals and Conversations, written by ExcelJS's streaming writer: each row is
 * committed (written out and dropped) as it comes, so 100,000 conversations take no more memory than ten.
 */
function xlsx(db: DB, who: Reader, q: IntervalQuery, now: number): Readable {
  const out = new PassThrough();
  // Loaded on the first export: ExcelJS adds ~30 MB to a server that never exports.
  const { stream } = createRequire(import.meta.url)('exceljs') as typeof ExcelJS;
  const book = new stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  (async () => {
    const intervals = book.addWorksheet('Intervals');
    intervals.addRow([...INTERVAL_COLUMNS]).commit();
    for (const r of await intervalRows(db, who, q, now)) intervals.addRow(r).commit();
    intervals.commit();
    const conversations = book.addWorksheet('Conversations');
    conversations.addRow([...CONVERSATION_COLUMNS]).commit();
    let n = 0;
    for await (const r of conversationRows(db, who, q, now)) {
      conversations.addRow(r).commit();
      // ExcelJS writes on whatever the reader does: past 500 rows, wait while the download has not taken
      // what was written, so a slow client holds the server's memory at a buffer, not the whole file.
      if (++n % 500 === 0) await drained(out);
    }
    conversations.commit();
    await book.commit();
  })().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}

/**
 * REPORT-23, REPORT-24: one export file of the account's report over the range at the step. The range is
 * checked before anything is written, so a bad one is a 400, not a broken download.
 */
export async function exportReport(
  db: DB,
  who: Reader,
  q: IntervalQuery,
  file: ExportFile,
  now: number,
): Promise<{ type: string; body: Readable }> {
  reportRange(q, now);
  if (file === 'report.xlsx')
    return { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', body: xlsx(db, who, q, now) };
  if (file === 'calls.csv')
    return { type: 'text/csv; charset=utf-8', body: Readable.from(csv(CALL_COLUMNS, callExportRows(db, who, q, now))) };
  if (file === 'intervals.csv') {
    const rows = await intervalRows(db, who, q, now);
    return { type: 'text/csv; charset=utf-8', body: Readable.from(csv(INTERVAL_COLUMNS, rows)) };
  }
  return {
    type: 'text/csv; charset=utf-8',
    body: Readable.from(csv(CONVERSATION_COLUMNS, conversationRows(db, who, q, now))),
  };
}
