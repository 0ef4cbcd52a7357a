import type { ReportAnswer, ReportStatus, ReportType } from '@parley/contracts';
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
};
