import { AuditItem, AuditQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';

/** Admins read their account's audit log, newest first, paged by `before` (an entry id). */
export function auditRoutes(app: FastifyInstance, deps: { db: DB }): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/audit',
    {
      config: { auth: 'admin' },
      schema: { querystring: AuditQuery, response: { 200: z.object({ data: z.array(AuditItem) }) } },
    },
    async (req) => {
      let q = deps.db
        .selectFrom('audit_log')
        .select(['id', 'actor', 'action', 'detail', 'ip', 'created_at'])
        .where('account_id', '=', req.auth!.accountId)
        .orderBy('id', 'desc')
        .limit(req.query.limit);
      if (req.query.before) q = q.where('id', '<', req.query.before);
      const rows = await q.execute();
      return {
        data: rows.map((r) => ({
          ...r,
          id: Number(r.id),
          created_at: Number(r.created_at),
          detail: JSON.parse(r.detail),
        })),
      };
    },
  );
}
