import type {
  AuxAnswer,
  CallReportAnswer,
  CsatAnswer,
  DashboardItem,
  ExportLinkAnswer,
  IntervalAnswer,
  PerformanceAnswer,
  PublicDashboardAnswer,
  ReportAnswer,
  ReportInterval,
  ReportStatus,
  ReportType,
} from '@parley/contracts';
import { api } from '../../lib/http';

/** One ticket summary request: the path's type and status, and the range as YYYY-MM-DD days (REPORT-10). */
export interface SummaryFilter {
  type: ReportType;
  status: ReportStatus;
  startDate: string;
  endDate: string;
}

/** The browser's offset from UTC in minutes east, so the server's days and headings are the user's days. */
const tz = () => -new Date().getTimezoneOffset();

export const reportsApi = {
  /** REPORT-11: one page of 30 tickets from `offset` (REPORT-12). */
  summary: (f: SummaryFilter, offset: number) => {
    const q = new URLSearchParams({
      type: f.type,
      status: f.status,
      offset: String(offset),
      startDate: f.startDate,
      endDate: f.endDate,
      tz: String(tz()),
    });
    return api<ReportAnswer>('GET', `/report/generate?${q}`);
  },
  /** REPORT-15: what was made, first answered and resolved per bucket and chart group. */
  interval: (r: ReportDays, interval: ReportInterval) =>
    api<IntervalAnswer>('GET', `/api/report/interval?${rangeQuery(r, { interval: String(interval) })}`),
  /** REPORT-17: each user's time per status. */
  aux: (r: ReportDays) => api<AuxAnswer>('GET', `/api/report/aux?${rangeQuery(r)}`),
  /** REPORT-19: ratings by chart group and agent. */
  csat: (r: ReportDays) => api<CsatAnswer>('GET', `/api/report/csat?${rangeQuery(r)}`),
  /** The call report: calls started in the range, in all, per day, agent and DID. */
  calls: (r: ReportDays) => api<CallReportAnswer>('GET', `/api/report/call?${rangeQuery(r)}`),
  /** Volume, response and resolution times, SLA and CSAT in all, by group, agent and team. */
  performance: (r: ReportDays) => api<PerformanceAnswer>('GET', `/api/report/performance?${rangeQuery(r)}`),
  /**
   * REPORT-23: a short-lived export link with the dates and the step as path parts; the file downloads from
   * it without the session.
   */
  exportLink: async (r: ReportDays, interval: ReportInterval, file: string) => {
    const { token } = await api<ExportLinkAnswer>('POST', '/api/report/export');
    return `/api/report/export/${encodeURIComponent(token)}/${r.startDate}/${r.endDate}/${interval}/${file}?tz=${tz()}`;
  },
};

export const dashboardsApi = {
  list: () => api<{ data: DashboardItem[] }>('GET', '/api/report/dashboards').then((r) => r.data),
  create: (name: string) => api<{ data: DashboardItem; token: string }>('POST', '/api/report/dashboards', { name }),
  remove: (id: number) => api<unknown>('DELETE', `/api/report/dashboards/${id}`),
  /** The public page's figures, in the viewer's days. */
  page: (token: string) =>
    api<PublicDashboardAnswer>('GET', `/api/public/dashboard/${encodeURIComponent(token)}?tz=${tz()}`),
};

/** A report's range as the YYYY-MM-DD days sent (REPORT-10). */
export interface ReportDays {
  startDate: string;
  endDate: string;
}
const rangeQuery = (r: ReportDays, more: Record<string, string> = {}) =>
  new URLSearchParams({ startDate: r.startDate, endDate: r.endDate, tz: String(tz()), ...more });
