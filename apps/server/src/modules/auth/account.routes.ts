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
import {
  forgetResolvedSessions,
  listSessions,
  revokeOtherSessions,
  revokeUserSession,
} from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { hashPassword, verifyPassword } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { newBackupCodes, newTotp, useTotp } from './twoFactor.js';

const WRONG_PASSWORD = 'Your current password is not correct.';

/** My sessions, my password and my two-factor setup. */
export function myAccountRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;

  const passwordOf = async (accountId: number, userId: number) =>
    await db
      .selectFrom('users')
      .select(['password_hash', 'username', 'totp_secret', 'totp_enabled'])
      .where('account_id', '=', accountId)
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();

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
      const auth = req.auth!;
      if (!(await revokeUserSession(db, auth, req.params.id))) throw notFound('There is no such session.');
      await recordAudit(db, {
        accountId: auth.accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'session.revoked',
        detail: { session: req.params.id },
        ip: req.ip,
      });
      return { result: 'success' as const };
    },
  );

  // Changing the password ends every other session of the user.
  r.post(
    '/api/user/password',
    { config: { auth: 'user' }, schema: { body: ChangePasswordInput, response: { 200: ResultAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const u = await passwordOf(auth.accountId, auth.userId);
      if (!(await verifyPassword(u.password_hash, req.body.current)))
        throw new AppError(400, 'WRONG_PASSWORD', WRONG_PASSWORD);
      const hash = await hashPassword(req.body.password);
      const at = Date.now();
      await db
        .updateTable('users')
        .set({ password_hash: hash, password_changed_at: at, updated_at: at })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', auth.userId)
        .execute();
      await revokeOtherSessions(db, auth);
      await recordAudit(db, {
        accountId: auth.accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'password.changed',
        ip: req.ip,
      });
      return { result: 'success' as const, description: 'Your password was changed. Your other sessions were ended.' };
    },
  );

  // Step 1: with the password (a session alone must not lock its owner out), a new secret (not active yet)
  // and its QR code.
  r.post(
    '/api/user/2fa/setup',
    {
      config: { auth: 'user', tfaSetup: true },
      schema: { body: TwoFactorSetupInput, response: { 200: TwoFactorSetupAnswer } },
    },
    async (req) => {
      const auth = req.auth!;
      const u = await passwordOf(auth.accountId, auth.userId);
      if (u.totp_enabled) throw new AppError(409, 'TFA_ALREADY_ENABLED', 'Two-factor sign-in is already on.');
      if (!(await verifyPassword(u.password_hash, req.body.password)))
        throw new AppError(400, 'WRONG_PASSWORD', WRONG_PASSWORD);
      const t = await newTotp('Parley', u.username);
      await db
        .updateTable('users')
        .set({ totp_secret: t.secret })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', auth.userId)
        .execute();
      return t;
    },
  );

  // Step 2: a code from the app proves the secret was stored; backup codes are shown once.
  r.post(
    '/api/user/2fa/enable',
    {
      config: { auth: 'user', tfaSetup: true },
      schema: { body: TwoFactorEnableInput, response: { 200: TwoFactorEnableAnswer } },
    },
    async (req) => {
      const auth = req.auth!;
      const u = await passwordOf(auth.accountId, auth.userId);
      if (u.totp_enabled) throw new AppError(409, 'TFA_ALREADY_ENABLED', 'Two-factor sign-in is already on.');
      if (!u.totp_secret) throw new AppError(400, 'TFA_NOT_SET_UP', 'Start the two-factor setup first.');
      const used = await useTotp(
        db,
        { accountId: auth.accountId, userId: auth.userId, secret: u.totp_secret },
        req.body.code,
      );
      if (!used)
        throw new AppError(400, 'TFA_BAD_CODE', 'That code is not right. Check the time on your phone and try again.');
      const { codes, hashes } = newBackupCodes();
      await db
        .updateTable('users')
        .set({ totp_enabled: 1, backup_codes: JSON.stringify(hashes), updated_at: Date.now() })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', auth.userId)
        .execute();
      // A required setup is done: the next call must not meet a session resolved before it.
      forgetResolvedSessions();
      await recordAudit(db, {
        accountId: auth.accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'tfa.enabled',
        ip: req.ip,
      });
      return { result: 'success' as const, backup_codes: codes };
    },
  );

  r.post(
    '/api/user/2fa/disable',
    { config: { auth: 'user' }, schema: { body: TwoFactorDisableInput, response: { 200: ResultAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const u = await passwordOf(auth.accountId, auth.userId);
      if (!(await verifyPassword(u.password_hash, req.body.password)))
        throw new AppError(400, 'WRONG_PASSWORD', WRONG_PASSWORD);
      await db
        .updateTable('users')
        .set({ totp_enabled: 0, totp_secret: null, backup_codes: '[]', updated_at: Date.now() })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', auth.userId)
        .execute();
      forgetResolvedSessions();
      await recordAudit(db, {
        accountId: auth.accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'tfa.disabled',
        ip: req.ip,
      });
      return { result: 'success' as const };
    },
  );
}
