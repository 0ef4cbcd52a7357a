import { REPORT_STRINGS, ReportAnswer, ReportQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { requireViewReport } from '../users/index.js';
import { ticketSummary } from './reports.queries.js';

/** REPORT-11: the ticket summary, one page of 30 tickets (REPORT-12) of the caller's account. */
export function reportRoutes(app: FastifyInstance, deps: { db: DB; now?: () => number }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
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
