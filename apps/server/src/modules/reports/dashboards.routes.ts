import {
  DASHBOARD_DAYS,
  DASHBOARD_LIMIT,
  DASHBOARD_STRINGS,
  DashboardCreateAnswer,
  DashboardCreateInput,
  DashboardListAnswer,
  ErrorCode,
  OkAnswer,
  PublicDashboardAnswer,
  REPORT_STRINGS,
  ReportQuery,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { hashToken, newToken } from '../../platform/auth/tokens.js';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { recordAudit } from '../audit/index.js';
import { takeHits } from '../auth/index.js';
import { requireViewReport } from '../users/index.js';
import { intervalReport, performanceReport } from './omnichannel.queries.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const IdParams = z.object({ id: z.coerce.number().int().positive() });
const TokenParams = z.object({ token: z.string().min(1).max(100) });

/**
 * SHELL-07, SHELL-08 (design): public read-only dashboards. A reader of reports makes a link (its secret shown
 * once, kept as SHA-256), lists and removes them; anyone with the link sees the account's last seven days in
 * aggregate (totals, conversations per day by channel group, figures per group): no names, no conversations,
 * no way into the workspace. Removing the row revokes the link at once.
 */
export function dashboardRoutes(app: FastifyInstance, deps: { db: DB; now?: () => number }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const now = () => (deps.now ?? Date.now)();
  const list = async (accountId: number) =>
    (
      await db
        .selectFrom('report_dashboards')
        .select(['id', 'name', 'created_by', 'created_at'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute()
    ).map((d) => ({ id: Number(d.id), name: d.name, created_by: d.created_by, created_at: Number(d.created_at) }));

  r.get(
    '/api/report/dashboards',
    { config: { auth: 'user' }, schema: { response: { 200: DashboardListAnswer } } },
    async (req) => {
      await requireViewReport(db, req.auth!, REPORT_STRINGS.notAllowed);
      return { result: 'success' as const, data: await list(req.auth!.accountId) };
    },
  );
  r.post(
    '/api/report/dashboards',
    { config: { auth: 'user' }, schema: { body: DashboardCreateInput, response: { 200: DashboardCreateAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await requireViewReport(db, auth, REPORT_STRINGS.notAllowed);
      const token = newToken();
      const at = now();
      const id = await db.transaction().execute(async (trx) => {
        const count = await trx
          .selectFrom('report_dashboards')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', auth.accountId)
          .executeTakeFirstOrThrow();
        if (Number(count.n) >= DASHBOARD_LIMIT) throw new AppError(409, ErrorCode.conflict, DASHBOARD_STRINGS.tooMany);
        const row = await trx
          .insertInto('report_dashboards')
          .values({
            account_id: auth.accountId,
            name: req.body.name,
            token_hash: hashToken(token),
            created_by: auth.username,
            created_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await recordAudit(trx, {
          accountId: auth.accountId,
          userId: auth.userId,
          actor: auth.username,
          action: 'dashboard.shared',
          detail: { id: Number(row.id), name: req.body.name },
        });
        return Number(row.id);
      });
      const data = { id, name: req.body.name, created_by: auth.username, created_at: at };
      return { result: 'success' as const, data, token };
    },
  );
  r.delete(
    '/api/report/dashboards/:id',
    { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: OkAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await requireViewReport(db, auth, REPORT_STRINGS.notAllowed);
      await db.transaction().execute(async (trx) => {
        const gone = await trx
          .deleteFrom('report_dashboards')
          .where('account_id', '=', auth.accountId)
          .where('id', '=', req.params.id)
          .executeTakeFirst();
        if (Number(gone.numDeletedRows) === 0) throw notFound(DASHBOARD_STRINGS.notFound);
        await recordAudit(trx, {
          accountId: auth.accountId,
          userId: auth.userId,
          actor: auth.username,
          action: 'dashboard.removed',
          detail: { id: req.params.id },
        });
      });
      return { result: 'success' as const };
    },
  );

  // The public page's data: the last seven days up to today in the viewer's time (`tz`).
  r.get(
    '/api/public/dashboard/:token',
    {
      config: { auth: 'public' },
      schema: {
        params: TokenParams,
        querystring: ReportQuery.pick({ tz: true }),
        response: { 200: PublicDashboardAnswer },
      },
    },
    async (req) => {
      const allowed = await takeHits(db, [{ key: `dashboard:ip:${req.ip}`, max: 600, windowMs: 60 * MINUTE_MS }]);
      if (!allowed) throw new AppError(429, ErrorCode.rateLimited, 'Too many requests: try again in a while.');
      const d = await db
        .selectFrom('report_dashboards as d')
        .innerJoin('accounts as a', 'a.id', 'd.account_id')
        .select(['d.account_id', 'd.name', 'a.name as company'])
        .where('d.token_hash', '=', hashToken(req.params.token))
        .executeTakeFirst();
      if (!d) throw notFound(DASHBOARD_STRINGS.notFound);
      const at = now();
      const tz = req.query.tz;
      const day = (ms: number) => new Date(ms + tz * MINUTE_MS).toISOString().slice(0, 10);
      const range = { startDate: day(at - (DASHBOARD_DAYS - 1) * DAY_MS), endDate: day(at), tz };
      const who = { accountId: Number(d.account_id) };
      const perDay = await intervalReport(db, who, { ...range, interval: 1440 }, at);
      const perf = await performanceReport(db, who, range, at);
      const { name: _all, ...total } = perf.total;
      return {
        result: 'success' as const,
        name: d.name,
        company: d.company,
        startDate: range.startDate,
        endDate: range.endDate,
        generatedAt: at,
        total,
        groups: perf.groups,
        days: perDay.data,
      };
    },
  );
}
