import { CUSTOMER_ANALYSIS_STRINGS, CustomerAnalysis, CustomerAnalysisQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { forbidden } from '../../platform/http/errors.js';
import { customerAnalysis } from './analysis.js';
import { contactsVisibleTo } from './contacts.routes.js';

/** `/customer_analysis`: the period's customers, topics and feelings; hidden like contacts (hide_contacts). */
export function customerAnalysisRoutes(app: FastifyInstance, deps: { db: DB; now: () => number }): void {
  const { db, now } = deps;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/customer_analysis',
    {
      config: { auth: 'user' },
      schema: {
        querystring: CustomerAnalysisQuery,
        response: { 200: z.object({ result: z.literal('success'), data: CustomerAnalysis }) },
      },
    },
    async (req) => {
      if (!(await contactsVisibleTo(db, req.auth!))) throw forbidden(CUSTOMER_ANALYSIS_STRINGS.hidden);
      return {
        result: 'success' as const,
        data: await customerAnalysis(db, req.auth!.accountId, req.query.days, now()),
      };
    },
  );
}
