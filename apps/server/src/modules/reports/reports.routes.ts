import {
  ANALYTICS_STRINGS,
  AnalyticsAnswer,
  AnalyticsInput,
  AuxAnswer,
  CallReportAnswer,
  CsatAnswer,
  ExportLinkAnswer,
  ExportParams,
  ExportQuery,
  IntervalAnswer,
  IntervalQuery,
  NotConfiguredAnswer,
  OMNI_STRINGS,
  PerformanceAnswer,
  REPORT_EXPORT_TTL_MS,
  REPORT_STRINGS,
  ReportAnswer,
  ReportQuery,
  ReportRangeQuery,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import { hashToken, newToken } from '../../platform/auth/tokens.js';
import type { DB } from '../../platform/db/db.js';
import { unauthorized } from '../../platform/http/errors.js';
import { requireViewReport } from '../users/index.js';
import { callReport } from './calls.queries.js';
import { exportReport } from './export.js';
import { auxReport, csatReport, intervalReport, performanceReport } from './omnichannel.queries.js';
import { ticketSummary } from './reports.queries.js';

/** REPORT-01: admins, and users with the view_report permission (supervisors have it by default). */
const assertViewReport = (db: DB, auth: AuthContext) => requireViewReport(db, auth, REPORT_STRINGS.notAllowed);

/**
 * The user an export link was made for, while the link works and they may still read reports (an admin, or
 * view_report; still active): their account, else null.
 */
async function exportReader(db: DB, token: string, now: number): Promise<{ accountId: number } | null> {
  const row = await db
    .selectFrom('report_export_tokens as e')
    .innerJoin('users as u', (j) => j.onRef('u.id', '=', 'e.user_id').onRef('u.account_id', '=', 'e.account_id'))
    .select(['e.account_id', 'u.type', 'u.permission', 'u.active'])
    .where('e.token_hash', '=', hashToken(token))
    .where('e.expires_at', '>', now)
    .executeTakeFirst();
  if (!row || Number(row.active) !== 1) return null;
  let permissions: unknown = [];
  try {
    permissions = JSON.parse(row.permission);
  } catch {}
  const allowed = row.type === 'admin' || (Array.isArray(permissions) && permissions.includes('view_report'));
  return allowed ? { accountId: Number(row.account_id) } : null;
}

/**
 * REPORT-11: the ticket summary, one page of 30 tickets (REPORT-12) of the caller's account. REPORT-15,
 * REPORT-17, REPORT-19 and our performance report: the omnichannel report's parts, read from the facts.
 */
export function reportRoutes(app: FastifyInstance, deps: { db: DB; now?: () => number; analyticsUrl?: string }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const now = () => (deps.now ?? Date.now)();
  r.get(
    '/api/report/interval',
    { config: { auth: 'user' }, schema: { querystring: IntervalQuery, response: { 200: IntervalAnswer } } },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
      return intervalReport(deps.db, { accountId: req.auth!.accountId }, req.query, now());
    },
  );
  /** A 10-minute secret of a reader of reports, kept as its SHA-256: it opens the export links. */
  const exportSecret = async (auth: AuthContext, at: number) => {
    const token = newToken();
    await deps.db.deleteFrom('report_export_tokens').where('expires_at', '<=', at).execute();
    await deps.db
      .insertInto('report_export_tokens')
      .values({
        account_id: auth.accountId,
        user_id: auth.userId,
        token_hash: hashToken(token),
        expires_at: at + REPORT_EXPORT_TTL_MS,
      })
      .execute();
    return { token, expiresAt: at + REPORT_EXPORT_TTL_MS };
  };
  // REPORT-25: the analytics page's address, only where ANALYTICS_URL is set (else "not configured", once).
  r.post(
    '/api/report/analytics',
    {
      config: { auth: 'user' },
      schema: { body: AnalyticsInput, response: { 200: z.union([AnalyticsAnswer, NotConfiguredAnswer]) } },
    },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
      if (!deps.analyticsUrl)
        return { result: 'not_configured' as const, description: ANALYTICS_STRINGS.notConfigured };
      const { token, expiresAt } = await exportSecret(req.auth!, now());
      const url = new URL(deps.analyticsUrl);
      url.searchParams.set('token', token);
      url.searchParams.set('feature', req.body.feature);
      url.searchParams.set('dark', req.body.dark ? '1' : '0');
      return { result: 'success' as const, url: url.toString(), expiresAt };
    },
  );
  // REPORT-23: the export link carries a short-lived secret instead of the session (a link is copied, kept
  // in a browser's history and a download manager): made here by a signed-in reader, good for 10 minutes.
  r.post(
    '/api/report/export',
    { config: { auth: 'user' }, schema: { response: { 200: ExportLinkAnswer } } },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
      return { result: 'success' as const, ...(await exportSecret(req.auth!, now())) };
    },
  );
  r.get(
    '/api/report/export/:token/:startDate/:endDate/:interval/:file',
    { config: { auth: 'public' }, schema: { params: ExportParams, querystring: ExportQuery } },
    async (req, reply) => {
      const at = now();
      const who = await exportReader(deps.db, req.params.token, at);
      if (!who) throw unauthorized(OMNI_STRINGS.badExportToken);
      const { startDate, endDate, interval, file } = req.params;
      const q = { startDate, endDate, interval, tz: req.query.tz };
      const out = await exportReport(deps.db, who, q, file, at);
      const name = `${file.replace(/\.(csv|xlsx)$/, '')}-${startDate}-${endDate}.${file.split('.').pop()}`;
      return reply
        .header('content-type', out.type)
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('cache-control', 'no-store')
        .send(out.body);
    },
  );
  r.get(
    '/api/report/aux',
    { config: { auth: 'user' }, schema: { querystring: ReportRangeQuery, response: { 200: AuxAnswer } } },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
      return auxReport(deps.db, { accountId: req.auth!.accountId }, req.query, now());
    },
  );
  // The call report (/report/call): the calls started in the range, from the stored calls.
  r.get(
    '/api/report/call',
    { config: { auth: 'user' }, schema: { querystring: ReportRangeQuery, response: { 200: CallReportAnswer } } },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
      return callReport(deps.db, { accountId: req.auth!.accountId }, req.query, now());
    },
  );
  r.get(
    '/api/report/csat',
    { config: { auth: 'user' }, schema: { querystring: ReportRangeQuery, response: { 200: CsatAnswer } } },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
      return csatReport(deps.db, { accountId: req.auth!.accountId }, req.query, now());
    },
  );
  r.get(
    '/api/report/performance',
    { config: { auth: 'user' }, schema: { querystring: ReportRangeQuery, response: { 200: PerformanceAnswer } } },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
      return performanceReport(deps.db, { accountId: req.auth!.accountId }, req.query, now());
    },
  );
  r.get(
    '/report/generate',
    { config: { auth: 'user' }, schema: { querystring: ReportQuery, response: { 200: ReportAnswer } } },
    async (req) => {
      // REPORT-01
      await requireViewReport(deps.db, req.auth!, REPORT_STRINGS.notAllowed);
      const page = await ticketSummary(
        deps.db,
        { accountId: req.auth!.accountId },
        req.query,
        (deps.now ?? Date.now)(),
      );
      return { result: 'success' as const, ...page };
    },
  );
}
