import type { HostVariant } from '@parley/contracts';
import {
  AuthCheckAnswer,
  AuthCheckInput,
  CreateWorkspaceInput,
  chatViewAllowed,
  REFRESH_COOKIE,
  ResultAnswer,
  SetupState,
  SignInAnswer,
  SignInInput,
  SignOutQuery,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type AuthContext, refreshSession, revokeOtherSessions, revokeSession } from '../../platform/auth/sessions.js';
import { hashToken } from '../../platform/auth/tokens.js';
import type { DB } from '../../platform/db/db.js';
import { variantFor } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { type AppVersion, authCheck } from './authCheck.js';
import { createWorkspace, setupNeeded } from './commands/createWorkspace.js';
import { signIn } from './commands/signIn.js';
import { clearSessionCookies, setSessionCookies } from './cookies.js';

export function authRoutes(
  app: FastifyInstance,
  deps: {
    db: DB;
    hostVariants: Record<string, HostVariant>;
    version: AppVersion;
    sipWsUrl?: string;
    /** SIGNUP_ENABLED: the signed-out pages offer sign-up only when it is on. */
    signupEnabled?: boolean;
  },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const client = (req: { headers: Record<string, unknown>; ip: string }) => ({
    userAgent: String(req.headers['user-agent'] ?? ''),
    ip: req.ip,
  });

  r.get('/api/setup', { config: { auth: 'public' }, schema: { response: { 200: SetupState } } }, async () => ({
    needed: await setupNeeded(db),
    signup: deps.signupEnabled ?? true,
  }));

  r.post(
    '/api/setup',
    { config: { auth: 'public' }, schema: { body: CreateWorkspaceInput, response: { 200: SignInAnswer } } },
    async (req, reply) => {
      const s = await createWorkspace(db, req.body, client(req));
      setSessionCookies(req, reply, s.token, s.refreshToken);
      return {
        result: 'success' as const,
        token: s.token,
        refresh_token: s.refreshToken,
        description: 'Workspace created.',
      };
    },
  );

  r.post(
    '/api/auth2',
    {
      config: { auth: 'public' },
      schema: { body: SignInInput, response: { 200: SignInAnswer, 401: SignInAnswer, 429: SignInAnswer } },
    },
    async (req, reply) => {
      const s = await signIn(db, req.body, client(req));
      if (!s.ok) return reply.code(s.status).send({ result: 'failed', description: s.description });
      setSessionCookies(req, reply, s.token, s.refreshToken);
      return { result: 'success' as const, token: s.token, refresh_token: s.refreshToken, description: 'Signed in.' };
    },
  );

  // AUTH-21: an unknown or ended session answers `result: failed`; the web app clears its cookie and reloads.
  r.post(
    '/api/auth/check',
    { config: { auth: 'optional' }, schema: { body: AuthCheckInput.nullish(), response: { 200: AuthCheckAnswer } } },
    async (req, reply) => {
      const variant = variantFor(deps.hostVariants, req.host);
      // SHELL-28: the call-branded host sends tickets to the full product, at its first combined host.
      const combined = Object.entries(deps.hostVariants).find(([, v]) => v === 'combined')?.[0];
      // The same port as this request when the map names the host alone (it compares hosts without ports).
      const port = /:\d+$/.exec(req.host)?.[0] ?? '';
      const productUrl = combined ? `${req.protocol}://${combined}${/:\d+$/.test(combined) ? '' : port}` : '';
      const check = async (auth: AuthContext) => {
        const answer = await authCheck(db, auth, variant, deps.version, deps.sipWsUrl);
        return answer.productDetails
          ? {
              ...answer,
              productDetails: {
                ...answer.productDetails,
                product_url: productUrl,
                chat_allowed: chatViewAllowed(req.host, Object.keys(deps.hostVariants)),
              },
            }
          : answer;
      };
      if (req.auth) return check(req.auth);
      // The access token expired or is missing: a valid refresh token renews both (rotation).
      const refresh = req.body?.refresh_token ?? req.cookies[REFRESH_COOKIE];
      const r = await refreshSession(db, refresh);
      if (r.ok && r.token === null) return check(r.auth);
      if (r.ok) {
        setSessionCookies(req, reply, r.token, r.refreshToken);
        return { ...(await check(r.auth)), token: r.token, refresh_token: r.refreshToken };
      }
      if (r.reason === 'reused') await noteReusedRefresh(db, refresh!, req.ip);
      clearSessionCookies(reply);
      return {
        result: 'failed' as const,
        description: 'Your session has ended. Please sign in again.',
        token: '',
        refresh_token: '',
      };
    },
  );

  // AUTH-29: current=1 (the default) ends this session; current=0 ends every other session of the user.
  r.delete(
    '/api/user/signout',
    {
      config: { auth: 'user', tfaSetup: true },
      schema: { querystring: SignOutQuery, response: { 200: ResultAnswer } },
    },
    async (req, reply) => {
      const auth = req.auth!;
      const others = req.query.current === '0' || req.query.current === 'false';
      if (others) {
        await revokeOtherSessions(db, auth);
        return { result: 'success' as const, description: 'Signed out of your other sessions.' };
      }
      await revokeSession(db, auth);
      clearSessionCookies(reply);
      return { result: 'success' as const, description: 'Signed out.' };
    },
  );
}

/** A copied refresh token came back after rotation: the session was revoked; the account's admins can see it. */
async function noteReusedRefresh(db: DB, refresh: string, ip: string): Promise<void> {
  const h = hashToken(refresh);
  const s = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.account_id', 's.user_id', 'u.username', 's.id'])
    .where('s.previous_refresh_hash', '=', h)
    .executeTakeFirst();
  if (!s) return;
  await recordAudit(db, {
    accountId: Number(s.account_id),
    userId: Number(s.user_id),
    actor: s.username,
    action: 'session.refresh_reused',
    detail: { session: Number(s.id) },
    ip,
  });
}
