import { Department, DepartmentInput, DepartmentListAnswer, UserIdParams } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import {
  createDepartment,
  deleteDepartment,
  departmentsOfUser,
  listDepartments,
  renameDepartment,
} from './departments.js';

/** HTTP routes of the module: list, a user's departments, create, rename, delete. */
export function departmentRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const one = z.object({ result: z.literal('success'), data: Department });
  const ok = z.object({ result: z.literal('success') });

  // A user's departments (TICKET-55): any user of the caller's account.
  r.get(
    '/department/:userId',
    {
      config: { auth: 'user' },
      schema: {
        params: z.object({ userId: z.coerce.number().int().positive() }),
        response: { 200: DepartmentListAnswer },
      },
    },
    async (req) => ({
      result: 'success' as const,
      data: await departmentsOfUser(db, req.auth!.accountId, req.params.userId),
    }),
  );
  // Every department of the account, by the session token in the path (TICKET-55).
  r.get(
    '/department2/:token',
    {
      config: { auth: 'user' },
      schema: { params: z.object({ token: z.string().max(200) }), response: { 200: DepartmentListAnswer } },
    },
    async (req) => ({ result: 'success' as const, data: await listDepartments(db, req.auth!.accountId) }),
  );
  r.get(
    '/api/departments',
    { config: { auth: 'user' }, schema: { response: { 200: DepartmentListAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await listDepartments(db, req.auth!.accountId),
    }),
  );
  r.post(
    '/api/departments',
    { config: { auth: 'admin' }, schema: { body: DepartmentInput, response: { 200: one } } },
    async (req) => ({ result: 'success' as const, data: await createDepartment(db, req.auth!, req.body) }),
  );
  r.patch(
    '/api/departments/:id',
    { config: { auth: 'admin' }, schema: { params: UserIdParams, body: DepartmentInput, response: { 200: one } } },
    async (req) => ({
      result: 'success' as const,
      data: await renameDepartment(db, req.auth!, req.params.id, req.body),
    }),
  );
  r.delete(
    '/api/departments/:id',
    { config: { auth: 'admin' }, schema: { params: UserIdParams, response: { 200: ok } } },
    async (req) => {
      await deleteDepartment(db, req.auth!, req.params.id);
      return { result: 'success' as const };
    },
  );
}
