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

/**
 * REPORT-21, REPORT-22 (design): the chart groups of the omnichannel report and the channels in each. The spec's
 * five (email, chatbot, livechat, social media, mobile messaging) take the channels it names; Microsoft 365
 * e-mail joins email, Instagram posts and mentions join social media, Instagram messages, Telegram and SMS join
 * mobile messaging, and calls and manual tickets get groups of their own.
 */
export const REPORT_GROUPS = ['email', 'chatbot', 'livechat', 'social', 'mobile', 'call', 'manual'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];
export const REPORT_GROUP_NAMES: Record<ReportGroup, string> = {
  email: 'Email',
  chatbot: 'Chat Bot',
  livechat: 'Live Chat',
  social: 'Social Media',
  mobile: 'Mobile Messaging',
  call: 'Call',
  manual: 'Manual',
};
export const REPORT_GROUP_CHANNELS: Record<ReportGroup, readonly string[]> = {
  email: ['EMAIL', 'GRAPH_EMAIL'],
  chatbot: ['WAUCHAT'],
  livechat: ['LIVECHAT', 'livechat'],
  social: ['FB_PAGE_POST', 'TW_MENTION', 'IG_POST', 'IG_MENTION'],
  mobile: ['FB_PM', 'TW_DM', 'LINE_DM', 'WHATSAPP', 'IG_PM', 'TELEGRAM', 'SMS'],
  call: ['CALL'],
  manual: ['MANUAL'],
};

/** The chart group of a channel code; null for Workspace chats and codes no group takes. */
export function reportGroupOf(channel: string): ReportGroup | null {
  for (const g of REPORT_GROUPS) if (REPORT_GROUP_CHANNELS[g].includes(channel)) return g;
  return null;
}

/**
 * REPORT-13, REPORT-14: the interval report's steps, sent as minutes: 15 and 30 minutes, 1 hour
 * (60) and a day (1440, shown "Day").
 */
export const REPORT_INTERVALS = [15, 30, 60, 1440] as const;
export type ReportInterval = (typeof REPORT_INTERVALS)[number];
export const REPORT_INTERVAL_NAMES: Record<ReportInterval, string> = {
  15: '15 minutes',
  30: '30 minutes',
  60: '1 hour',
  1440: 'Day',
};
/** The most buckets an interval report may have (a month of 15 minutes is 2,976). */
export const REPORT_MAX_BUCKETS = 3_000;

export const OMNI_STRINGS = {
  title: 'Omnichannel Report',
  badInterval: 'The interval is 15, 30, 60 or 1440 minutes.',
  tooManyBuckets: `That range has too many steps of this interval (at most ${REPORT_MAX_BUCKETS}): choose a longer step or a shorter range.`,
  interval: 'Interval',
  volume: 'Conversations',
  received: 'Received',
  answered: 'First answered',
  resolved: 'Resolved',
  perGroup: 'By channel',
  perAgent: 'By agent',
  perTeam: 'By team',
  activity: 'Agent activity',
  satisfaction: 'Customer satisfaction',
  firstResponse: 'First response',
  resolution: 'Resolution',
  slaMet: 'SLA met',
  csat: 'CSAT',
  reopened: 'Reopened',
  p50: 'p50',
  p90: 'p90',
  estimated: 'Over this many conversations the response and resolution times are estimated, within a few percent.',
  noData: 'No conversations in this range.',
  noActivity: 'No status recorded in this range.',
  noRatings: 'No ratings in this range.',
  export: 'Export',
  exportCsv: 'CSV',
  exportXlsx: 'Excel (XLSX)',
  ticketSummary: 'Ticket summary',
  unassigned: 'Unassigned',
  noTeam: 'No department',
  rating: (n: number) => `${n} star${n === 1 ? '' : 's'}`,
  average: 'Average',
  badExportToken: 'This export link has expired or is not valid. Export again from the report.',
} as const;

const intervalParam = z.coerce
  .number({ message: OMNI_STRINGS.badInterval })
  .refine((n): n is ReportInterval => (REPORT_INTERVALS as readonly number[]).includes(n), OMNI_STRINGS.badInterval);

/** REPORT-17, REPORT-19: the range of the aux, csat and performance reports (both ends included). */
export const ReportRangeQuery = ReportQuery.pick({ token: true, startDate: true, endDate: true, tz: true });
export type ReportRangeQuery = z.infer<typeof ReportRangeQuery>;
/** REPORT-15: the interval report's query. */
export const IntervalQuery = ReportRangeQuery.extend({ interval: intervalParam });
export type IntervalQuery = z.infer<typeof IntervalQuery>;

/** What happened in one bucket of one chart group. */
export const IntervalCounts = z.object({ received: z.number(), answered: z.number(), resolved: z.number() });
export type IntervalCounts = z.infer<typeof IntervalCounts>;
/**
 * REPORT-15, REPORT-20 (design): data maps each bucket's start (`YYYY-MM-DD HH:mm` in the caller's time) to the
 * chart groups that had anything in it, each to its counts. Every bucket of the range is there, quiet ones
 * with no groups. received: conversations made; answered: first answers given; resolved: resolutions.
 */
export const IntervalAnswer = z.object({
  result: z.literal('success'),
  interval: z.number(),
  data: z.record(z.string(), z.record(z.string(), IntervalCounts)),
});
export type IntervalAnswer = z.infer<typeof IntervalAnswer>;

/**
 * REPORT-17, REPORT-20 (design): data maps each user's username to their display name and the ms spent in each
 * status within the range (a status still going counts up to now).
 */
export const AuxAnswer = z.object({
  result: z.literal('success'),
  data: z.record(z.string(), z.object({ name: z.string(), statuses: z.record(z.string(), z.number()) })),
});
export type AuxAnswer = z.infer<typeof AuxAnswer>;

/** A rating from 1 to 5 -> how many conversations got it. */
const RatingCounts = z.record(z.string(), z.number());
/**
 * REPORT-19, REPORT-20 (design): the ratings of conversations made in the range, by chart group and by agent
 * (the first assignee), each a map of rating to count; `average` and `count` over all of them.
 */
export const CsatAnswer = z.object({
  result: z.literal('success'),
  data: z.record(z.string(), RatingCounts),
  agents: z.record(z.string(), RatingCounts),
  average: z.number().nullable(),
  count: z.number(),
});
export type CsatAnswer = z.infer<typeof CsatAnswer>;

/** How a set of conversations went. Durations are ms (null when none); slaMet and csat null when none. */
export const Performance = z.object({
  name: z.string(),
  conversations: z.number(),
  answered: z.number(),
  resolved: z.number(),
  reopened: z.number(),
  firstResponseP50: z.number().nullable(),
  firstResponseP90: z.number().nullable(),
  resolutionP50: z.number().nullable(),
  resolutionP90: z.number().nullable(),
  /** The share (0-1) of the conversations with no SLA target breached. */
  slaMet: z.number().nullable(),
  /** The average rating 1-5 and how many rated. */
  csat: z.number().nullable(),
  rated: z.number(),
});
export type Performance = z.infer<typeof Performance>;
/**
 * Ours (design, docs/reports.md): `GET /api/report/performance`, the conversations made in the range in all,
 * by chart group, by agent (the first assignee; '' unassigned) and by team (the department id; '0' none).
 */
export const PerformanceAnswer = z.object({
  result: z.literal('success'),
  /**
   * Ours: true when the range held too many conversations to rank each one's times: the p50/p90 are then read
   * from hourly histograms of the times, within a few percent.
   */
  estimated: z.boolean(),
  total: Performance,
  groups: z.record(z.string(), Performance),
  agents: z.record(z.string(), Performance),
  teams: z.record(z.string(), Performance),
});
export type PerformanceAnswer = z.infer<typeof PerformanceAnswer>;

/** REPORT-03, REPORT-04 (design, docs/reports.md "Call report"): the call report's words. */
export const CALL_REPORT_STRINGS = {
  title: 'Call Report',
  calls: 'Calls',
  inbound: 'Inbound',
  outbound: 'Outbound',
  answered: 'Answered',
  missed: 'Missed',
  talkTime: 'Talk time',
  averageTalk: 'Average call',
  longest: 'Longest call',
  recorded: 'Recorded',
  perDay: 'Calls per day',
  perAgent: 'By agent',
  perNumber: 'By number called (DID)',
  agent: 'Agent',
  number: 'DID',
  description: 'Description',
  noCalls: 'No calls in this range.',
  unassigned: 'Unassigned',
  noDid: 'No DID',
  exportCsv: 'Export CSV',
} as const;

/** How a set of calls went. Durations in seconds; `averageSeconds` over answered calls (null when none). */
export const CallFigures = z.object({
  calls: z.number(),
  inbound: z.number(),
  outbound: z.number(),
  /** Calls with a duration over 0. */
  answered: z.number(),
  /** Inbound calls that ended with no talk (duration 0). */
  missed: z.number(),
  talkSeconds: z.number(),
  averageSeconds: z.number().nullable(),
  longestSeconds: z.number(),
  recorded: z.number(),
});
export type CallFigures = z.infer<typeof CallFigures>;
/**
 * Ours (design, docs/reports.md "Call report"): `GET /api/report/call`, the calls started in the range, from
 * the stored calls: in all, per day of the caller's time (every day of the range), per agent (the user who
 * took or made the call; '' none) and per DID (the account's number; '' none).
 */
export const CallReportAnswer = z.object({
  result: z.literal('success'),
  total: CallFigures,
  days: z.array(
    z.object({
      day: z.string(),
      inbound: z.number(),
      outbound: z.number(),
      answered: z.number(),
      missed: z.number(),
    }),
  ),
  agents: z.array(CallFigures.extend({ username: z.string(), name: z.string() })),
  dids: z.array(CallFigures.extend({ did: z.string(), description: z.string() })),
});
export type CallReportAnswer = z.infer<typeof CallReportAnswer>;

/** REPORT-23 (design): how long an export link works after it was made. */
export const REPORT_EXPORT_TTL_MS = 10 * 60_000;
/** Ours: `POST /api/report/export` makes a short-lived secret for the export link's path. */
export const ExportLinkAnswer = z.object({ result: z.literal('success'), token: z.string(), expiresAt: z.number() });
export type ExportLinkAnswer = z.infer<typeof ExportLinkAnswer>;
/** REPORT-23, REPORT-24 (design): the export link's path parts, `/api/report/export/:token/:startDate/:endDate/:interval/:file`. */
export const ExportParams = z.object({
  token: z.string().min(1).max(100),
  startDate: day,
  endDate: day,
  interval: intervalParam,
  file: z.enum(['conversations.csv', 'intervals.csv', 'report.xlsx', 'calls.csv'], {
    message: 'The file is conversations.csv, intervals.csv, report.xlsx or calls.csv.',
  }),
});
export type ExportParams = z.infer<typeof ExportParams>;
/** The export's own query: the caller's UTC offset in minutes (as the reports take it). */
export const ExportQuery = ReportQuery.pick({ tz: true });

/** SHELL-07, SHELL-08 (design, docs/reports.md): public read-only dashboards. */
export const DASHBOARD_STRINGS = {
  share: 'Share as dashboard',
  title: 'Public dashboards',
  intro:
    "A public dashboard shows this report's figures for the last 7 days to anyone with its link, without signing in: the totals, conversations per day by channel group and the figures per group. No names, no conversations. Remove a link to stop it working.",
  name: 'Name',
  namePlaceholder: 'Wallboard',
  create: 'Create link',
  created: 'Copy this link now: it is shown only once.',
  copy: 'Copy',
  copied: 'Copied',
  remove: 'Remove',
  none: 'No public dashboards yet.',
  notFound: 'This dashboard link is not valid or was removed.',
  badName: 'Give the dashboard a name of 1 to 100 characters.',
  tooMany: 'An account can have at most 20 public dashboards: remove one first.',
  lastDays: 'Last 7 days',
  updated: (time: string) => `Updated ${time}`,
  perDay: 'Conversations per day',
} as const;
export const DASHBOARD_LIMIT = 20;
/** How many days up to today a public dashboard shows. */
export const DASHBOARD_DAYS = 7;

export const DashboardItem = z.object({
  id: z.number(),
  name: z.string(),
  created_by: z.string(),
  created_at: z.number(),
});
export type DashboardItem = z.infer<typeof DashboardItem>;
export const DashboardListAnswer = z.object({ result: z.literal('success'), data: z.array(DashboardItem) });
export const DashboardCreateInput = z.object({
  name: z
    .string({ message: DASHBOARD_STRINGS.badName })
    .trim()
    .min(1, DASHBOARD_STRINGS.badName)
    .max(100, DASHBOARD_STRINGS.badName),
});
/** The new link's secret, shown once; the public page is `/dashboard/{token}`. */
export const DashboardCreateAnswer = z.object({ result: z.literal('success'), data: DashboardItem, token: z.string() });
/** What a public dashboard shows: aggregates only. */
export const PublicDashboardAnswer = z.object({
  result: z.literal('success'),
  name: z.string(),
  company: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  generatedAt: z.number(),
  total: Performance.omit({ name: true }),
  groups: z.record(z.string(), Performance),
  days: z.record(z.string(), z.record(z.string(), IntervalCounts)),
});
export type PublicDashboardAnswer = z.infer<typeof PublicDashboardAnswer>;

/**
 * REPORT-25, REPORT-26 (design): the analytics page framed on the omnichannel report. Its address is
 * ANALYTICS_URL with `token` (a 10-minute secret that also opens the report's export links, so the page can
 * read the figures), `feature` (which report it is about) and `dark` (1 or 0, the viewer's colour scheme).
 */
export const ANALYTICS_FEATURES = ['omnichannel', 'csat', 'aux'] as const;
export const AnalyticsInput = z.object({
  feature: z.enum(ANALYTICS_FEATURES, { message: 'The feature is omnichannel, csat or aux.' }),
  dark: z.boolean().default(false),
});
export const AnalyticsAnswer = z.object({ result: z.literal('success'), url: z.string(), expiresAt: z.number() });
export const ANALYTICS_STRINGS = {
  title: 'Analytics',
  notConfigured: 'No analytics page is set up on this installation (ANALYTICS_URL).',
} as const;
