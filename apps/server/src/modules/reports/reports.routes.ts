import { REPORT_STRINGS, ReportAnswer, ReportQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { forbidden } from '../../platform/http/errors.js';
import { hasPermission } from '../users/index.js';
import { ticketSummary } from './reports.queries.js';

/** REPORT-01: admins, and users with the view_report permission (supervisors have it by default). */
async function assertViewReport(db: DB, auth: AuthContext): Promise<void> {
  if (auth.type === 'admin') return;
  if (!(await hasPermission(db, auth, 'view_report'))) throw forbidden(REPORT_STRINGS.notAllowed);
}

/** REPORT-11: the ticket summary, one page of 30 tickets (REPORT-12) of the caller's account. */
export function reportRoutes(app: FastifyInstance, deps: { db: DB; now?: () => number }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/report/generate',
    { config: { auth: 'user' }, schema: { querystring: ReportQuery, response: { 200: ReportAnswer } } },
    async (req) => {
      await assertViewReport(deps.db, req.auth!);
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
