import { StatusUpdated, UpdateStatusInput } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { updateStatus } from './commands/updateStatus.js';

export function statusRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/api/online_status/update',
    {
      config: { auth: 'user' },
      schema: {
        body: UpdateStatusInput,
        response: { 200: z.object({ result: z.literal('success'), data: StatusUpdated }) },
      },
    },
    async (req) => ({ result: 'success' as const, data: await updateStatus(deps.db, req.auth!, req.body) }),
  );
}
