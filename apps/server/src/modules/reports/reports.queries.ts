import {
  ErrorCode,
  isLiveChatChannel,
  LIVECHAT_CODES,
  REPORT_PAGE_SIZE,
  REPORT_STATUS_CODES,
  REPORT_STRINGS,
  type ReportQuery,
  type ReportRow,
  reportDayStart,
  reportHeading,
  ticketStatusName,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';

/** Who reads the report: only their account's tickets are ever read. */
export interface Reader {
  accountId: number;
}

const DAY_MS = 86_400_000;
const badRequest = (text: string) => new AppError(400, ErrorCode.validation, text);

const jsonList = (s: string): unknown[] => {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
};

/**
 * The range as [from, to) in ms: startDate's first moment to the moment after endDate, in the caller's days
 * (UTC offset `tz`). The end may be today but not later (REPORT-09); the range may be one day (minimum
 * nights 0).
 */
export function reportRange(q: Pick<ReportQuery, 'startDate' | 'endDate' | 'tz'>, now: number): [number, number] {
  if (q.endDate < q.startDate) throw badRequest(REPORT_STRINGS.endBeforeStart);
  const today = new Date(now + q.tz * 60_000).toISOString().slice(0, 10);
  if (q.endDate > today) throw badRequest(REPORT_STRINGS.endInFuture);
  return [reportDayStart(q.startDate, q.tz), reportDayStart(q.endDate, q.tz) + DAY_MS];
}

/**
 * REPORT-05, REPORT-06, REPORT-07, REPORT-11, REPORT-12: one page of 30 tickets created in the range, newest
 * first, grouped under their created day (D/M/YYYY). `type` picks tickets (every channel but live chat),
 * live chats or both; Workspace chats are internal and never in it. `status` picks one status code or all
 * (custom statuses too). count is the tickets of this page: the page asks for more while it is 30.
 */
export async function ticketSummary(
  db: DB,
  who: Reader,
  q: ReportQuery,
  now: number,
): Promise<{ data: Record<string, ReportRow[]>; count: number }> {
  const [from, to] = reportRange(q, now);
  let query = db
    .selectFrom('tickets as t')
    .select([
      't.id',
      't.ticket_number',
      't.title',
      't.channel',
      't.label',
      't.closed',
      't.assignee',
      't.department_id',
      't.created_at',
      't.updated_at',
    ])
    .where('t.account_id', '=', who.accountId)
    .where('t.channel', '<>', WORKSPACE_CHANNEL)
    .where('t.created_at', '>=', from)
    .where('t.created_at', '<', to);
  if (q.type === 'livechat') query = query.where('t.channel', 'in', LIVECHAT_CODES);
  if (q.type === 'ticket') query = query.where('t.channel', 'not in', LIVECHAT_CODES);
  if (q.status !== 'all') query = query.where('t.closed', '=', REPORT_STATUS_CODES[q.status]);
  const tickets = await query
    .orderBy('t.created_at', 'desc')
    .orderBy('t.id', 'desc')
    .limit(REPORT_PAGE_SIZE)
    .offset(q.offset)
    .execute();
  if (tickets.length === 0) return { data: {}, count: 0 };

  const ids = tickets.map((t) => Number(t.id));
  const labelIds = [...new Set(tickets.flatMap((t) => jsonList(t.label).map(Number).filter(Number.isInteger)))];
  const departmentIds = [...new Set(tickets.map((t) => t.department_id).filter((d): d is number => d !== null))];
  const chatIds = tickets.filter((t) => isLiveChatChannel(t.channel)).map((t) => Number(t.id));
  const [labels, departments, statuses, breaches, timers, resolutionTimers, chats, surveys] = await Promise.all([
    labelIds.length
      ? db
          .selectFrom('labels')
          .select(['id', 'name'])
          .where('account_id', '=', who.accountId)
          .where('id', 'in', labelIds)
          .where('removed', '=', 0)
          .execute()
      : [],
    departmentIds.length
      ? db
          .selectFrom('departments')
          .select(['id', 'name'])
          .where('account_id', '=', who.accountId)
          .where('id', 'in', departmentIds)
          .execute()
      : [],
    db.selectFrom('ticket_statuses').select(['status_code', 'name']).where('account_id', '=', who.accountId).execute(),
    db
      .selectFrom('sla_breaches')
      .select('ticket_id')
      .distinct()
      .where('account_id', '=', who.accountId)
      .where('ticket_id', 'in', ids)
      .execute(),
    db
      .selectFrom('sla_timers')
      .select('ticket_id')
      .distinct()
      .where('account_id', '=', who.accountId)
      .where('ticket_id', 'in', ids)
      .execute(),
    db
      .selectFrom('sla_resolution_timers')
      .select('ticket_id')
      .distinct()
      .where('account_id', '=', who.accountId)
      .where('ticket_id', 'in', ids)
      .execute(),
    chatIds.length
      ? db
          .selectFrom('livechats')
          .select(['ticket_id', 'rating', 'reason', 'id'])
          .where('account_id', '=', who.accountId)
          .where('ticket_id', 'in', chatIds)
          .orderBy('id', 'asc')
          .execute()
      : [],
    db
      .selectFrom('ticket_surveys')
      .select(['ticket_id', 'rating', 'comment'])
      .where('account_id', '=', who.accountId)
      .where('ticket_id', 'in', ids)
      .where('rating', 'is not', null)
      .execute(),
  ]);
  const labelName = new Map(labels.map((l) => [Number(l.id), l.name]));
  const departmentName = new Map(departments.map((d) => [Number(d.id), d.name]));
  const breached = new Set(breaches.map((b) => Number(b.ticket_id)));
  const timed = new Set([...timers, ...resolutionTimers].map((b) => Number(b.ticket_id)));
  // A ticket's latest live chat (a visitor may come back to the same ticket) carries its rating.
  const chatOf = new Map(chats.map((c) => [Number(c.ticket_id), c]));
  // A ticket's answered satisfaction survey is its CSAT too (a live chat's own rating comes first).
  const surveyOf = new Map(surveys.map((v) => [Number(v.ticket_id), v]));

  const data: Record<string, ReportRow[]> = {};
  for (const t of tickets) {
    const id = Number(t.id);
    const created = Number(t.created_at);
    const row: ReportRow = {
      id,
      ticket_number: Number(t.ticket_number),
      title: t.title,
      channel: t.channel,
      label: jsonList(t.label)
        .map((l) => labelName.get(Number(l)))
        .filter((n): n is string => n !== undefined),
      closed: Number(t.closed),
      status: ticketStatusName(Number(t.closed), statuses),
      assignee: t.assignee
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
      department: t.department_id === null ? '' : (departmentName.get(Number(t.department_id)) ?? ''),
      created,
      updated: Number(t.updated_at),
      sla: breached.has(id) ? 'breached' : timed.has(id) ? 'within' : '',
    };
    const survey = surveyOf.get(id);
    if (isLiveChatChannel(t.channel) || survey) {
      const chat = chatOf.get(id);
      row.rating = chat?.rating ?? (survey ? Number(survey.rating) : null);
      row.reason = chat?.rating != null ? chat.reason : (survey?.comment ?? chat?.reason ?? '');
    }
    const heading = reportHeading(created, q.tz);
    const group = data[heading] ?? [];
    group.push(row);
    data[heading] = group;
  }
  return { data, count: tickets.length };
}
