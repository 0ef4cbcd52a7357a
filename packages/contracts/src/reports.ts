import { z } from 'zod';

/** REPORT-12: tickets per page of the ticket summary; the page asks for more while a page holds this many. */
export const REPORT_PAGE_SIZE = 30;

/** REPORT-04 (design, docs/reports.md): the `:type` of `/report/:type/:status`. */
export const REPORT_TYPES = ['all', 'ticket', 'livechat'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const REPORT_TYPE_NAMES: Record<ReportType, string> = {
  all: 'All',
  ticket: 'Tickets',
  livechat: 'Live Chat',
};

/** REPORT-04 (design): the `:status` of `/report/:type/:status`, each the status code it stands for. */
export const REPORT_STATUSES = ['all', 'open', 'pending', 'resolved', 'closed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const REPORT_STATUS_CODES: Record<Exclude<ReportStatus, 'all'>, number> = {
  open: 0,
  pending: 1,
  resolved: 2,
  closed: 3,
};
export const REPORT_STATUS_NAMES: Record<ReportStatus, string> = {
  all: 'All',
  open: 'Open',
  pending: 'Pending',
  resolved: 'Resolved',
  closed: 'Closed',
};

/** The furthest a caller's UTC offset may be, in minutes (UTC-14 .. UTC+14). */
export const REPORT_MAX_TZ = 14 * 60;

export const REPORT_STRINGS = {
  title: 'Ticket Summary',
  badType: 'Unknown report type: use all, ticket or livechat.',
  badStatus: 'Unknown report status: use all, open, pending, resolved or closed.',
  badOffset: 'The offset must be a whole number of 0 or more.',
  badDate: 'Dates are YYYY-MM-DD and must be real days.',
  endBeforeStart: 'The end date cannot be before the start date.',
  endInFuture: 'The end date cannot be in the future.',
  badTz: `The time zone offset is a whole number of minutes from -${REPORT_MAX_TZ} to ${REPORT_MAX_TZ}.`,
  notAllowed: 'Only admins and users with the view_report permission can read reports.',
  /** Web: the date range inputs (REPORT-08 shows DD-MM-YYYY). */
  from: 'From',
  to: 'To',
  dateFormat: 'DD-MM-YYYY',
  badTypedDate: 'Type a date as DD-MM-YYYY.',
  futureDate: 'The end cannot be in the future.',
  startAfterEnd: 'The start cannot be after the end.',
  type: 'Type',
  status: 'Status',
  loadMore: 'Load more',
  empty: 'No tickets in this range.',
  sla: { breached: 'Breached', within: 'Within SLA', none: '—' },
} as const;

/** REPORT-06 (+ REPORT-07) column headers, in the order shown. */
export const REPORT_COLUMNS = [
  'Ticket number',
  'Title',
  'Channel',
  'Label',
  'Closed status',
  'Assignee',
  'Department',
  'Created',
  'Updated',
  'SLA',
] as const;
export const REPORT_LIVECHAT_COLUMNS = ['Rating', 'Reason'] as const;

/** A YYYY-MM-DD that is a real calendar day. */
export function isReportDay(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

const day = z.string().refine(isReportDay, REPORT_STRINGS.badDate);

/**
 * REPORT-10, REPORT-11: `GET /report/generate`. token may also come as the cookie or a Bearer header; tz is
 * ours (design): the caller's offset from UTC in minutes east (UTC+2 is 120), so the days and the headings are
 * the caller's days. The range is whole days, both ends included.
 */
export const ReportQuery = z.object({
  token: z.string().max(200).optional(),
  type: z.enum(REPORT_TYPES, { message: REPORT_STRINGS.badType }),
  status: z.enum(REPORT_STATUSES, { message: REPORT_STRINGS.badStatus }),
  offset: z.coerce
    .number({ message: REPORT_STRINGS.badOffset })
    .int(REPORT_STRINGS.badOffset)
    .min(0, REPORT_STRINGS.badOffset)
    .max(10_000_000, REPORT_STRINGS.badOffset)
    .default(0),
  startDate: day,
  endDate: day,
  tz: z.coerce
    .number({ message: REPORT_STRINGS.badTz })
    .int(REPORT_STRINGS.badTz)
    .min(-REPORT_MAX_TZ, REPORT_STRINGS.badTz)
    .max(REPORT_MAX_TZ, REPORT_STRINGS.badTz)
    .default(0),
});
export type ReportQuery = z.infer<typeof ReportQuery>;

/** REPORT-06, REPORT-07: one ticket of the summary. Times are ms; rating and reason only on live chats. */
export const ReportRow = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  /** The names of the ticket's labels (removed labels left out). */
  label: z.array(z.string()),
  /** The status code (TICKET-23) and its name, custom statuses by their own names. */
  closed: z.number(),
  status: z.string(),
  assignee: z.array(z.string()),
  department: z.string(),
  created: z.number(),
  updated: z.number(),
  /** breached: an SLA wait of the ticket ran out; within: an SLA timed it and none ran out; '' none applied. */
  sla: z.enum(['breached', 'within', '']),
  rating: z.number().nullable().optional(),
  reason: z.string().optional(),
});
export type ReportRow = z.infer<typeof ReportRow>;

/** REPORT-11: data is the page's tickets grouped by heading (the created day, D/M/YYYY); count the tickets. */
export const ReportAnswer = z.object({
  result: z.literal('success'),
  data: z.record(z.string(), z.array(ReportRow)),
  count: z.number(),
});
export type ReportAnswer = z.infer<typeof ReportAnswer>;

/** The heading of a group: the day of `ms` at UTC offset `tz` minutes, as D/M/YYYY. */
export function reportHeading(ms: number, tz: number): string {
  const d = new Date(ms + tz * 60_000);
  return `${d.getUTCDate()}/${d.getUTCMonth() + 1}/${d.getUTCFullYear()}`;
}

/** The first ms of YYYY-MM-DD at UTC offset `tz` minutes. */
export function reportDayStart(day: string, tz: number): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) - tz * 60_000;
}
