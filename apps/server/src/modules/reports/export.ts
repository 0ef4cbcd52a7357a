import { createRequire } from 'node:module';
import { PassThrough, Readable } from 'node:stream';
import { channelName, csvField, type IntervalQuery, REPORT_GROUP_NAMES, reportGroupOf } from '@parley/contracts';
import type ExcelJS from 'exceljs';
import type { DB } from '../../platform/db/db.js';
import { intervalReport } from './omnichannel.queries.js';
import { type Reader, reportRange } from './reports.queries.js';

const MINUTE_MS = 60_000;
const PAGE = 1_000;

/** The files an export link gives (REPORT-24, design). */
export const EXPORT_FILES = ['conversations.csv', 'intervals.csv', 'report.xlsx'] as const;
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
    for await (const r of conversationRows(db, who, q, now)) conversations.addRow(r).commit();
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
  if (file === 'intervals.csv') {
    const rows = await intervalRows(db, who, q, now);
    return { type: 'text/csv; charset=utf-8', body: Readable.from(csv(INTERVAL_COLUMNS, rows)) };
  }
  return {
    type: 'text/csv; charset=utf-8',
    body: Readable.from(csv(CONVERSATION_COLUMNS, conversationRows(db, who, q, now))),
  };
}
