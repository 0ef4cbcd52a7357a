import { ErrorCode, INTEGRATION_STRINGS, SESSION_COOKIE } from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { DB } from '../db/db.js';
import { AppError, forbidden, unauthorized } from '../http/errors.js';
import { isApiToken, resolveApiToken } from './apiTokens.js';
import { type AuthContext, resolveSession, SessionCache } from './sessions.js';

/** Every route says who may call it; a route without this fails start-up (see `requireRouteAuth`). */
export type RouteAuth = 'public' | 'optional' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** Open to a user who must still set up two-factor sign-in (the setup itself, sign-out). */
    tfaSetup?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /** Every route with its declared access, for tests that walk the whole API. */
    routeTable: { method: string; url: string; auth: RouteAuth }[];
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A write authenticated by the cookie must come from our own pages: the browser's Origin (or Referer)
 * must name this host. SameSite=Lax already stops most cross-site posts; this closes the rest (old
 * browsers, sibling subdomains). Bearer and token-parameter calls carry no ambient credential.
 * A write with neither header is refused: browsers send Origin on every POST, PUT, PATCH and DELETE,
 * our own pages' included, so only a client that hides where it comes from lacks both.
 * The socket handshake applies the same rule to a cookie (see realtime).
 */
export function crossSite(req: Pick<FastifyRequest, 'headers' | 'host'>): boolean {
  const source = req.headers.origin ?? req.headers.referer;
  if (!source) return true;
  try {
    // `req.host` is the Host header, or X-Forwarded-Host behind a trusted proxy that rewrites Host.
    return new URL(source).host !== req.host;
  } catch {
    return true;
  }
}

/**
 * The token from, in order: `Authorization: Bearer`, the HttpOnly cookie, then the documented `_token`
 * or `token` parameters of the body, query or path (AUTH-26).
 */
export function tokenFrom(req: FastifyRequest): string | undefined {
  return tokenAndSource(req)?.token;
}

function tokenAndSource(req: FastifyRequest): { token: string; cookie: boolean } | undefined {
  const h = req.headers.authorization;
  if (h?.startsWith('Bearer ')) return { token: h.slice(7).trim(), cookie: false };
  const c = req.cookies?.[SESSION_COOKIE];
  if (c) return { token: c, cookie: true };
  // Paths like `/department2/{token}` and `/ticket/load/{token}/...` carry it as a path parameter.
  for (const src of [req.body, req.query, req.params]) {
    if (src && typeof src === 'object') {
      const v = (src as Record<string, unknown>)._token ?? (src as Record<string, unknown>).token;
      if (typeof v === 'string' && v) return { token: v, cookie: false };
    }
  }
  return undefined;
}

/** The answer to any other call of a user the account requires two-factor sign-in of, until they set it up. */
export const TFA_SETUP_REQUIRED = 'Your account requires two-factor sign-in. Set it up to continue.';

const EXEMPT = [/^\/\*$/, /^\/api\/docs/];

export function installAuthGuard(app: FastifyInstance, db: DB, sessionCacheMs = 0, clock?: Clock): void {
  const sessions = new SessionCache(sessionCacheMs, undefined, clock);
  app.addHook('onClose', async () => sessions.close());
  app.decorateRequest('auth', null);
  app.decorate('routeTable', []);
  app.addHook('onRoute', (r) => {
    const auth = r.config?.auth;
    if (!auth) {
      if (EXEMPT.some((x) => x.test(r.url))) return;
      throw new Error(`route ${r.method} ${r.url} must declare config.auth`);
    }
    for (const method of [r.method].flat()) app.routeTable.push({ method, url: r.url, auth });
  });
  app.addHook('preValidation', async (req) => {
    const mode = req.routeOptions.config.auth;
    if (!mode || mode === 'public') return;
    const found = tokenAndSource(req);
    if (found?.cookie && UNSAFE.has(req.method) && crossSite(req)) throw forbidden('Cross-site request refused.');
    // An API token comes only as `Authorization: Bearer` (never a cookie or a parameter, which could leak).
    req.auth =
      found && !found.cookie && isApiToken(found.token)
        ? req.headers.authorization?.startsWith('Bearer ')
          ? await resolveApiToken(db, found.token, clock)
          : null
        : await resolveSession(db, found?.token, sessions);
    if (mode === 'optional') return;
    if (!req.auth) throw unauthorized();
    // The account requires two-factor sign-in: a password alone opens only the setup (and sign-out).
    if (req.auth.tfaSetupRequired && !req.routeOptions.config.tfaSetup)
      throw new AppError(403, 'TFA_SETUP_REQUIRED', TFA_SETUP_REQUIRED);
    // A read-only API token calls GET (and HEAD, OPTIONS) only: a write is refused before anything runs.
    if (req.auth.apiToken && UNSAFE.has(req.method) && !req.auth.apiToken.scopes.includes('write'))
      throw new AppError(403, ErrorCode.tokenScope, INTEGRATION_STRINGS.readOnlyToken);
    if (mode === 'admin' && req.auth.type !== 'admin') throw forbidden();
  });
}
