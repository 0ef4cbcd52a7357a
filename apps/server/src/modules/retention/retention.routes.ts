import {
  ContactIdParams,
  EraseContactAnswer,
  EraseContactBody,
  OkAnswer,
  RetentionIdParams,
  RetentionPreviewAnswer,
  RetentionRuleAnswer,
  RetentionRuleInput,
  RetentionRuleListAnswer,
  RetentionRunAnswer,
  RetentionRunsAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { eraseContact, exportContact } from './contactData.js';
import {
  checkRule,
  createRule,
  deleteRule,
  listRules,
  listRuns,
  previewAccount,
  previewRule,
  runAccount,
  updateRule,
} from './rules.js';

export interface RetentionRouteDeps {
  db: DB;
  dataDir: string;
  /** The time rules measure age by (the server's clock). */
  now: () => number;
}

/**
 * Admins only: retention rules (list, add, change, remove), the preview of the next run (of every rule, or
 * of one not saved yet), "Run now" and the last runs; a contact's data export (ZIP) and erasure.
 */
export function retentionRoutes(app: FastifyInstance, deps: RetentionRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, dataDir, now } = deps;
  const ok = 'success' as const;
  const admin = { auth: 'admin' } as const;
  const tags = ['retention'];

  r.get(
    '/api/retention/rules',
    { config: admin, schema: { tags, response: { 200: RetentionRuleListAnswer } } },
    async (req) => ({
      result: ok,
      data: await listRules(db, req.auth!.accountId),
    }),
  );
  r.post(
    '/api/retention/rules',
    { config: admin, schema: { tags, body: RetentionRuleInput, response: { 200: RetentionRuleAnswer } } },
    async (req) => ({ result: ok, data: await createRule(db, req.auth!, req.body, now()) }),
  );
  r.put(
    '/api/retention/rules/:id',
    {
      config: admin,
      schema: { tags, params: RetentionIdParams, body: RetentionRuleInput, response: { 200: RetentionRuleAnswer } },
    },
    async (req) => ({ result: ok, data: await updateRule(db, req.auth!, req.params.id, req.body, now()) }),
  );
  r.delete(
    '/api/retention/rules/:id',
    { config: admin, schema: { tags, params: RetentionIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteRule(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );
  r.get(
    '/api/retention/preview',
    { config: admin, schema: { tags, response: { 200: RetentionPreviewAnswer } } },
    async (req) => ({
      result: ok,
      data: await previewAccount(db, req.auth!.accountId, now()),
    }),
  );
  // The preview of a rule before it is saved: nothing is written.
  r.post(
    '/api/retention/preview',
    { config: admin, schema: { tags, body: RetentionRuleInput, response: { 200: RetentionPreviewAnswer } } },
    async (req) => ({
      result: ok,
      data: [await previewRule(db, req.auth!.accountId, checkRule(req.body), null, now())],
    }),
  );
  r.get(
    '/api/retention/runs',
    { config: admin, schema: { tags, response: { 200: RetentionRunsAnswer } } },
    async (req) => ({
      result: ok,
      data: await listRuns(db, req.auth!.accountId),
    }),
  );
  r.post(
    '/api/retention/run',
    { config: admin, schema: { tags, response: { 200: RetentionRunAnswer } } },
    async (req) => ({
      result: ok,
      data: await runAccount(db, dataDir, req.auth!.accountId, 'manual', now(), {
        userId: req.auth!.userId,
        actor: req.auth!.username,
      }),
    }),
  );

  r.get(
    '/api/contacts/:id/export',
    { config: admin, schema: { tags, params: ContactIdParams } },
    async (req, reply) => {
      const { zip, fileName } = await exportContact(db, dataDir, req.auth!, req.params.id);
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .send(zip);
    },
  );
  r.post(
    '/api/contacts/:id/erase',
    {
      config: admin,
      schema: { tags, params: ContactIdParams, body: EraseContactBody, response: { 200: EraseContactAnswer } },
    },
    async (req) => ({ result: ok, ...(await eraseContact(db, dataDir, req.auth!, req.params.id, req.body.confirm)) }),
  );
}
