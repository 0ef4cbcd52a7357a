import { AuditAnswer, AuditQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';

/**
 * Admins read their account's audit log, newest first, paged by `before` (an entry id) or by a numbered
 * `page` (SHELL-51: the settings screen's pager), which also answers the total `count`.
 */
export function auditRoutes(app: FastifyInstance, deps: { db: DB }): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/audit',
    {
      config: { auth: 'admin' },
      schema: { querystring: AuditQuery, response: { 200: AuditAnswer } },
    },
    async (req) => {
      const accountId = req.auth!.accountId;
      let q = deps.db
        .selectFrom('audit_log')
        .select(['id', 'actor', 'action', 'detail', 'ip', 'created_at'])
        .where('account_id', '=', accountId)
        .orderBy('id', 'desc')
        .limit(req.query.limit);
      if (req.query.before) q = q.where('id', '<', req.query.before);
      if (req.query.page) q = q.offset((req.query.page - 1) * req.query.limit);
      const [rows, total] = await Promise.all([
        q.execute(),
        req.query.page
          ? deps.db
              .selectFrom('audit_log')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('account_id', '=', accountId)
              .executeTakeFirst()
          : undefined,
      ]);
      return {
        ...(total ? { count: Number(total.n) } : {}),
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
