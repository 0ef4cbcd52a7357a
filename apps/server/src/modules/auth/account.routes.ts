import {
  ChangePasswordInput,
  ResultAnswer,
  SessionItem,
  TwoFactorDisableInput,
  TwoFactorEnableAnswer,
  TwoFactorEnableInput,
  TwoFactorSetupAnswer,
  TwoFactorSetupInput,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listSessions } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { changePassword, disableTwoFactor, enableTwoFactor, startTwoFactorSetup } from './commands/changeSecurity.js';
import { endSession } from './commands/endSession.js';

/** My sessions, my password and my two-factor setup. */
export function myAccountRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;

  r.get(
    '/api/user/sessions',
    { config: { auth: 'user' }, schema: { response: { 200: z.object({ data: z.array(SessionItem) }) } } },
    async (req) => {
      const auth = req.auth!;
      const rows = await listSessions(db, auth);
      return { data: rows.map((s) => ({ ...s, current: s.id === auth.sessionId })) };
    },
  );

  r.delete(
    '/api/user/sessions/:id',
    {
      config: { auth: 'user' },
      schema: { params: z.object({ id: z.coerce.number().int().positive() }), response: { 200: ResultAnswer } },
    },
    async (req) => {
      await endSession(db, req.auth!, req.params.id, req.ip);
      return { result: 'success' as const };
    },
  );

  // Changing the password ends every other session of the user.
  r.post(
    '/api/user/password',
    { config: { auth: 'user' }, schema: { body: ChangePasswordInput, response: { 200: ResultAnswer } } },
    async (req) => {
      await changePassword(db, req.auth!, req.body, req.ip);
      return { result: 'success' as const, description: 'Your password was changed. Your other sessions were ended.' };
    },
  );

  // Step 1: with the password, a new secret (not active yet) and its QR code.
  r.post(
    '/api/user/2fa/setup',
    {
      config: { auth: 'user', tfaSetup: true },
      schema: { body: TwoFactorSetupInput, response: { 200: TwoFactorSetupAnswer } },
    },
    async (req) => startTwoFactorSetup(db, req.auth!, req.body.password),
  );

  // Step 2: a code from the app proves the secret was stored; backup codes are shown once.
  r.post(
    '/api/user/2fa/enable',
    {
      config: { auth: 'user', tfaSetup: true },
      schema: { body: TwoFactorEnableInput, response: { 200: TwoFactorEnableAnswer } },
    },
    async (req) => ({
      result: 'success' as const,
      backup_codes: await enableTwoFactor(db, req.auth!, req.body.code, req.ip),
    }),
  );

  r.post(
    '/api/user/2fa/disable',
    { config: { auth: 'user' }, schema: { body: TwoFactorDisableInput, response: { 200: ResultAnswer } } },
    async (req) => {
      await disableTwoFactor(db, req.auth!, req.body.password, req.ip);
      return { result: 'success' as const };
    },
  );
}
