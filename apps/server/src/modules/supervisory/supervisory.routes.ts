import { SUPERVISORY_STRINGS, SupervisoryAnswer } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { requireViewReport } from '../users/index.js';
import { supervisorySnapshot } from './supervisory.queries.js';

/** The supervisory board's snapshot of the caller's account: agents, the live-chat queue, SLA risks. */
export function supervisoryRoutes(app: FastifyInstance, deps: { db: DB; now?: () => number }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/supervisory',
    { config: { auth: 'user' }, schema: { response: { 200: SupervisoryAnswer } } },
    async (req) => {
      await requireViewReport(deps.db, req.auth!, SUPERVISORY_STRINGS.notAllowed);
      const data = await supervisorySnapshot(deps.db, req.auth!.accountId, (deps.now ?? Date.now)());
      return { result: 'success' as const, data };
    },
  );
}
