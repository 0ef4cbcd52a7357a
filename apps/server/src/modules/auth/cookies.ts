import { REFRESH_COOKIE, SESSION_COOKIE, SESSION_TTL_DAYS } from '@parley/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * AUTH-10, AUTH-11: two HttpOnly cookies on `/`, SameSite=Lax, for one year; Secure when the request
 * came over https (directly or, with TRUST_PROXY, through a proxy).
 */
export function setSessionCookies(req: FastifyRequest, reply: FastifyReply, token: string, refresh: string): void {
  const opts = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: req.protocol === 'https',
    maxAge: SESSION_TTL_DAYS * 24 * 3600,
  };
  reply.setCookie(SESSION_COOKIE, token, opts);
  reply.setCookie(REFRESH_COOKIE, refresh, opts);
}

export function clearSessionCookies(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
  reply.clearCookie(REFRESH_COOKIE, { path: '/' });
}
