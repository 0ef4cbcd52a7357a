import {
  AccountSecurityInput,
  CreateUserInput,
  ResultAnswer,
  UpdateUserInput,
  UserIdParams,
  UserItem,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { createUser } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { checkDepartments } from './checkDepartments.js';
import { setAccountSecurity } from './commands/setAccountSecurity.js';
import { updateUser } from './commands/updateUser.js';
import { getUser, listUsers } from './users.queries.js';

/** Admins manage the account's users and its security settings. */
export function usersRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;

  r.get(
    '/api/users',
    { config: { auth: 'admin' }, schema: { response: { 200: z.object({ data: z.array(UserItem) }) } } },
    async (req) => ({ data: await listUsers(db, req.auth!.accountId) }),
  );

  r.get(
    '/api/users/:id',
    { config: { auth: 'admin' }, schema: { params: UserIdParams, response: { 200: UserItem } } },
    async (req) => {
      const u = await getUser(db, req.auth!.accountId, req.params.id);
      if (!u) throw notFound('There is no such user.');
      return u;
    },
  );

  r.post(
    '/api/users',
    { config: { auth: 'admin' }, schema: { body: CreateUserInput, response: { 200: UserItem } } },
    async (req) => {
      const auth = req.auth!;
      const { userId } = await runCommand(db, async (trx) => {
        await checkDepartments(trx, auth.accountId, req.body.departments);
        const created = await createUser(trx, { accountId: auth.accountId, ...req.body });
        await trx
          .updateTable('users')
          .set({ departments: JSON.stringify(req.body.departments) })
          .where('account_id', '=', auth.accountId)
          .where('id', '=', created.userId)
          .execute();
        await recordAudit(trx, {
          accountId: auth.accountId,
          userId: auth.userId,
          actor: auth.username,
          action: 'user.created',
          detail: { user: req.body.username, type: req.body.type },
          ip: req.ip,
        });
        return created;
      });
      return (await getUser(db, auth.accountId, userId))!;
    },
  );

  r.patch(
    '/api/users/:id',
    { config: { auth: 'admin' }, schema: { params: UserIdParams, body: UpdateUserInput, response: { 200: UserItem } } },
    async (req) => {
      const auth = req.auth!;
      await updateUser(db, { ...auth, ip: req.ip }, req.params.id, req.body);
      return (await getUser(db, auth.accountId, req.params.id))!;
    },
  );

  r.put(
    '/api/account/security',
    { config: { auth: 'admin' }, schema: { body: AccountSecurityInput, response: { 200: ResultAnswer } } },
    async (req) => {
      await setAccountSecurity(db, { ...req.auth!, ip: req.ip }, req.body);
      return { result: 'success' as const };
    },
  );
}
