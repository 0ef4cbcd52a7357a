import {
  CreateCustomStatusInput,
  CustomStatus,
  CustomStatusListAnswer,
  UserIdParams as IdParams,
  OnlineListAnswer,
  StatusUpdated,
  UpdateStatusInput,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { createCustomStatus } from './commands/createCustomStatus.js';
import { deleteCustomStatus } from './commands/deleteCustomStatus.js';
import { updateStatus } from './commands/updateStatus.js';
import { listCustomStatuses, onlineList } from './status.queries.js';

const success = z.literal('success');

/** The status menu, the online list and the account's custom statuses. */
export function statusRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;

  // STATUS-10, STATUS-11
  r.post(
    '/api/online_status/update',
    {
      config: { auth: 'user' },
      schema: { body: UpdateStatusInput, response: { 200: z.object({ result: success, data: StatusUpdated }) } },
    },
    async (req) => ({ result: 'success' as const, data: await updateStatus(db, req.auth!, req.body) }),
  );

  // STATUS-12, STATUS-13: the caller's own row, as a list of one.
  r.get(
    '/api/status/me/get',
    { config: { auth: 'user' }, schema: { response: { 200: OnlineListAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await onlineList(db, req.auth!.accountId, req.auth!.userId),
    }),
  );

  // STATUS-23: the spec's path has no /api prefix; the token comes as for any other call.
  r.get('/status/get', { config: { auth: 'user' }, schema: { response: { 200: OnlineListAnswer } } }, async (req) => ({
    result: 'success' as const,
    data: await onlineList(db, req.auth!.accountId),
  }));

  // STATUS-17, STATUS-18
  r.get(
    '/api/customstatus/get',
    { config: { auth: 'user' }, schema: { response: { 200: CustomStatusListAnswer } } },
    async (req) => ({ result: 'success' as const, data: await listCustomStatuses(db, req.auth!.accountId) }),
  );
  r.post(
    '/api/customstatus',
    {
      config: { auth: 'admin' },
      schema: { body: CreateCustomStatusInput, response: { 200: z.object({ result: success, data: CustomStatus }) } },
    },
    async (req) => ({ result: 'success' as const, data: await createCustomStatus(db, req.auth!, req.body) }),
  );
  r.delete(
    '/api/customstatus/:id',
    { config: { auth: 'admin' }, schema: { params: IdParams, response: { 200: z.object({ result: success }) } } },
    async (req) => {
      await deleteCustomStatus(db, req.auth!, req.params.id);
      return { result: 'success' as const };
    },
  );
}
