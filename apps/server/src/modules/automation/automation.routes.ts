import {
  AutomationDryRunAnswer,
  AutomationIdParams,
  AutomationOrderInput,
  AutomationRuleAnswer,
  AutomationRuleInput,
  AutomationRuleListAnswer,
  AutomationRunsAnswer,
  AutomationRunsQuery,
  OkAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { listRules, listRuns } from './automation.queries.js';
import { createRule, deleteRule, reorderRules, updateRule } from './commands/saveRule.js';
import { dryRun } from './dryRun.js';

/** Automation rules: admins list, add, change, reorder, switch off and delete them, read the run log, dry-run. */
export function automationRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const ok = 'success' as const;
  const admin = { auth: 'admin' as const };

  r.get(
    '/api/automation/rules',
    { config: admin, schema: { response: { 200: AutomationRuleListAnswer } } },
    async (req) => ({
      result: ok,
      data: await listRules(db, req.auth!.accountId),
    }),
  );
  r.post(
    '/api/automation/rules',
    { config: admin, schema: { body: AutomationRuleInput, response: { 200: AutomationRuleAnswer } } },
    async (req) => ({ result: ok, data: await createRule(db, req.auth!, req.body) }),
  );
  r.put(
    '/api/automation/rules/order',
    { config: admin, schema: { body: AutomationOrderInput, response: { 200: OkAnswer } } },
    async (req) => {
      await reorderRules(db, req.auth!, req.body.ids);
      return { result: ok };
    },
  );
  r.put(
    '/api/automation/rules/:id',
    {
      config: admin,
      schema: { params: AutomationIdParams, body: AutomationRuleInput, response: { 200: AutomationRuleAnswer } },
    },
    async (req) => ({ result: ok, data: await updateRule(db, req.auth!, req.params.id, req.body) }),
  );
  r.delete(
    '/api/automation/rules/:id',
    { config: admin, schema: { params: AutomationIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteRule(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );
  r.get(
    '/api/automation/runs',
    { config: admin, schema: { querystring: AutomationRunsQuery, response: { 200: AutomationRunsAnswer } } },
    async (req) => ({ result: ok, data: await listRuns(db, req.auth!.accountId, req.query.rule_id) }),
  );
  r.post(
    '/api/automation/dry-run',
    { config: admin, schema: { body: AutomationRuleInput, response: { 200: AutomationDryRunAnswer } } },
    async (req) => ({ result: ok, data: await dryRun(db, req.auth!.accountId, req.body) }),
  );
}
