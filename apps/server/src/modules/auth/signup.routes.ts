import {
  ACCOUNT_TYPES,
  ErrorCode,
  type HostVariant,
  isLocalHost,
  PasswordResetConfirm,
  PasswordResetRequest,
  PLANS,
  ResultAnswer,
  SignInAnswer,
  SignUpInput,
  TRIAL_DAYS,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { createSession } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import type { Mailer } from '../../platform/mail.js';
import { runCommand } from '../../platform/outbox/index.js';
import { createAccount, createUser } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { resetPassword } from './commands/changeSecurity.js';
import { setSessionCookies } from './cookies.js';
import { consumeOneTimeToken, issueOneTimeToken } from './oneTimeTokens.js';
import { takeHits } from './throttle.js';

const OAuthAnswer = z.object({
  result: z.enum(['success', 'failed']),
  token: z.string().optional(),
  description: z.string().optional(),
});

const RESET_TTL_MS = 60 * 60 * 1000;
const HANDOFF_TTL_MS = 2 * 60 * 1000;
export const RESET_SENT = 'If an account uses that address, we have sent it a link to reset the password.';

export interface SignupDeps {
  db: DB;
  mailer: Mailer;
  publicUrl?: string;
  /** HOST_VARIANTS: the hosts this installation answers on, besides PUBLIC_URL. */
  hostVariants?: Record<string, HostVariant>;
  /** SIGNUP_ENABLED and the hourly limits of sign-ups and reset requests (see config.ts). */
  limits?: Partial<SignupLimits>;
}

export interface SignupLimits {
  signupEnabled: boolean;
  signupPerIp: number;
  resetPerAddress: number;
  resetPerIp: number;
}
const DEFAULT_LIMITS: SignupLimits = { signupEnabled: true, signupPerIp: 5, resetPerAddress: 3, resetPerIp: 10 };
const HOUR_MS = 3600_000;

export const SIGNUP_DISABLED =
  'Sign-up is turned off on this server. Ask an administrator of your workspace for an account.';
export const SIGNUP_TOO_MANY = 'Too many sign-ups from your network. Please try again in an hour.';
export const RESET_TOO_MANY = 'Too many password-reset requests. Please try again in an hour.';

/**
 * The base of links in e-mails, from configured hosts only: the Host header is whatever the sender wrote,
 * and a reset link on an attacker's host hands them the token. PUBLIC_URL when set; else the request's host
 * when HOST_VARIANTS names it or it is a local name (localhost, 127.x.x.x, ::1: the reader's own machine);
 * else the map's first combined host (or its first host); with no map, http://localhost at the port the
 * request came to, and `warn` is called (the caller logs once that PUBLIC_URL should be set).
 */
export function linkBase(
  req: Pick<FastifyRequest, 'protocol' | 'host'> & { socket: { localPort?: number } },
  o: { publicUrl?: string; hostVariants?: Record<string, HostVariant>; warn?: () => void },
): string {
  if (o.publicUrl) return o.publicUrl.replace(/\/$/, '');
  const host = (req.host ?? '').toLowerCase();
  const bare = host.replace(/:\d+$/, '');
  const named = Object.keys(o.hostVariants ?? {});
  const valid = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host);
  if (valid && (isLocalHost(host) || named.includes(host) || named.includes(bare))) return `${req.protocol}://${host}`;
  const first = Object.entries(o.hostVariants ?? {}).find(([, v]) => v === 'combined')?.[0] ?? named[0];
  if (first) return `${req.protocol}://${first}`;
  o.warn?.();
  return `http://localhost:${req.socket.localPort ?? 3000}`;
}

/** Sign-up (a trial account), password reset by e-mail link, and the one-time sign-in hand-off. */
export function signupRoutes(app: FastifyInstance, deps: SignupDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  let warned = false;
  const warnNoPublicUrl = () => {
    if (warned) return;
    warned = true;
    app.log.warn(
      'PUBLIC_URL is not set and the request came to a host HOST_VARIANTS does not name: e-mail links point at localhost. Set PUBLIC_URL.',
    );
  };

  // PLAN-03: a trial account is account_type 0, plan 0; it ends after TRIAL_DAYS.
  r.post(
    '/api/signup',
    { config: { auth: 'public' }, schema: { body: SignUpInput, response: { 200: SignInAnswer } } },
    async (req, reply) => {
      if (!limits.signupEnabled) throw new AppError(403, 'SIGNUP_DISABLED', SIGNUP_DISABLED);
      // Counted before the username is looked at: a taken username answers 409 (the form needs it to
      // ask for another), so the limit is what keeps probing for usernames slow.
      const allowed = await takeHits(db, [{ key: `signup:ip:${req.ip}`, max: limits.signupPerIp, windowMs: HOUR_MS }]);
      if (!allowed) throw new AppError(429, ErrorCode.rateLimited, SIGNUP_TOO_MANY);
      const s = await runCommand(db, async (trx) => {
        const { accountId } = await createAccount(trx, {
          name: req.body.company,
          accountType: ACCOUNT_TYPES.trial,
          plan: PLANS.trial,
        });
        await trx
          .updateTable('accounts')
          .set({ trial_ends_at: Date.now() + TRIAL_DAYS * 24 * 3600 * 1000 })
          .where('id', '=', accountId)
          .execute();
        const { userId } = await createUser(trx, { accountId, ...req.body, type: 'admin' });
        await recordAudit(trx, { accountId, userId, actor: req.body.username, action: 'account.created', ip: req.ip });
        return createSession(trx, {
          accountId,
          userId,
          userAgent: String(req.headers['user-agent'] ?? ''),
          ip: req.ip,
        });
      });
      setSessionCookies(req, reply, s.token, s.refreshToken);
      return {
        result: 'success' as const,
        token: s.token,
        refresh_token: s.refreshToken,
        description: 'Account created.',
      };
    },
  );

  r.post(
    '/api/password_reset',
    { config: { auth: 'public' }, schema: { body: PasswordResetRequest, response: { 200: ResultAnswer } } },
    async (req) => {
      const email = req.body.email.toLowerCase();
      // Known address or not, the same limits, the same answer and the same time: the links are made and
      // sent after the answer, so neither the work nor a failing mail server tells whether it exists.
      const allowed = await takeHits(db, [
        { key: `reset:address:${email}`, max: limits.resetPerAddress, windowMs: HOUR_MS },
        { key: `reset:ip:${req.ip}`, max: limits.resetPerIp, windowMs: HOUR_MS },
      ]);
      if (!allowed) throw new AppError(429, ErrorCode.rateLimited, RESET_TOO_MANY);
      const base = linkBase(req, { ...deps, warn: warnNoPublicUrl });
      void sendResetLinks(email, base, req.ip).catch((err) => req.log.error({ err }, 'password-reset mail failed'));
      return { result: 'success' as const, description: RESET_SENT };
    },
  );

  async function sendResetLinks(email: string, base: string, ip: string): Promise<void> {
    const users = await db
      .selectFrom('users')
      .select(['id', 'account_id', 'username', 'email'])
      // Addresses are matched as people type them: `Ann@Example.com` is `ann@example.com`.
      .where(sql`lower(email)`, '=', email)
      .where('active', '=', 1)
      .execute();
    for (const u of users) {
      const token = await runCommand(db, (trx) =>
        issueOneTimeToken(trx, {
          accountId: Number(u.account_id),
          userId: Number(u.id),
          purpose: 'reset',
          ttlMs: RESET_TTL_MS,
        }),
      );
      const link = `${base}/password_reset?token=${encodeURIComponent(token)}`;
      await deps.mailer.send({
        to: u.email,
        subject: 'Reset your Parley password',
        text: `Someone asked to reset the password of ${u.username}.\n\nOpen this link within an hour to choose a new one:\n${link}\n\nIf it was not you, ignore this e-mail; your password stays as it is.`,
      });
      await runCommand(db, (trx) =>
        recordAudit(trx, {
          accountId: Number(u.account_id),
          userId: Number(u.id),
          actor: u.username,
          action: 'password.reset_requested',
          ip,
        }),
      );
    }
  }

  r.post(
    '/api/password_reset/confirm',
    { config: { auth: 'public' }, schema: { body: PasswordResetConfirm, response: { 200: ResultAnswer } } },
    async (req) => {
      await resetPassword(db, req.body.token, req.body.password, req.ip);
      return { result: 'success' as const, description: 'Your password was changed. Sign in with the new one.' };
    },
  );

  // AUTH-13: hand a session to another device or app: a signed-in user asks for a token valid two minutes...
  r.post(
    '/api/oauth/token',
    {
      config: { auth: 'user' },
      schema: { response: { 200: z.object({ result: z.literal('success'), token: z.string() }) } },
    },
    async (req) => {
      const auth = req.auth!;
      const token = await runCommand(db, (trx) =>
        issueOneTimeToken(trx, { ...auth, purpose: 'handoff', ttlMs: HANDOFF_TTL_MS }),
      );
      return { result: 'success' as const, token };
    },
  );

  // ...and the other device exchanges it once for its own session (AUTH-12).
  r.post(
    '/api/oauth/verify',
    {
      config: { auth: 'public' },
      schema: {
        body: z.object({ token: z.string().min(10).max(200) }),
        response: { 200: OAuthAnswer },
      },
    },
    async (req, reply) => {
      const who = await runCommand(db, (trx) => consumeOneTimeToken(trx, req.body.token, 'handoff'));
      const active = who
        ? await db
            .selectFrom('users')
            .select(['username'])
            .where('account_id', '=', who.accountId)
            .where('id', '=', who.userId)
            .where('active', '=', 1)
            .executeTakeFirst()
        : undefined;
      if (!who || !active) throw new AppError(401, 'HANDOFF_EXPIRED', 'This sign-in link has expired.');
      const s = await runCommand(db, async (trx) => {
        await recordAudit(trx, {
          ...who,
          actor: active.username,
          action: 'signin.succeeded',
          detail: { via: 'hand-off' },
          ip: req.ip,
        });
        return createSession(trx, { ...who, userAgent: String(req.headers['user-agent'] ?? ''), ip: req.ip });
      });
      setSessionCookies(req, reply, s.token, s.refreshToken);
      return { result: 'success' as const, token: s.token };
    },
  );
}
