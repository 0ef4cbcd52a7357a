import type { FastifyRequest } from 'fastify';

/** Anything that may hold a secret is removed before a log line is written. */
export const REDACT = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    // The same names at the top of a line (`log.info({ token })`) and one level down.
    'password',
    'token',
    'refresh_token',
    '_token',
    'tfa',
    'password_hash',
    '*.password',
    '*.token',
    '*.refresh_token',
    '*._token',
    '*.tfa',
    '*.password_hash',
  ],
  censor: '[redacted]',
};

/**
 * Secrets, and the customer's or agent's words that the AI routes take in their query string
 * (`/api/wauchat?message=`, `/api/wauchat/recommendation?text=&translation=`): neither belongs in a log.
 */
const SECRET_PARAMS = new Set(['_token', 'token', 'refresh_token', 'password', 'message', 'text', 'translation']);

/** A parameter name as the query parser sees it: `%5Ftoken` and `_token` are the same parameter. */
function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** A route pattern's parameter name (`:token`, `:token(^\\w+$)`), lower-cased, or undefined. */
const paramOf = (segment: string) => /^:([A-Za-z0-9_]+)/.exec(segment)?.[1]?.toLowerCase();

/**
 * Path parameters named like a secret (`/ticket/load/:token/...`, `/agent/:token`): the segment in the
 * same place of the path is replaced, whatever route declares one.
 */
function scrubPath(path: string, route: string | undefined): string {
  if (!route) return path;
  const pattern = route.split('/');
  const secret = pattern.map((segment) => SECRET_PARAMS.has(paramOf(segment) ?? ''));
  if (!secret.includes(true)) return path;
  return path
    .split('/')
    .map((part, i) => (secret[i] && part !== '' ? '[redacted]' : part))
    .join('/');
}

/**
 * Query-string tokens (`?_token=`) are part of the URL, so the URL itself is scrubbed too; given the
 * matched route's pattern, so are path parameters that carry a token.
 */
export function scrubUrl(url: string, route?: string): string {
  const q = url.indexOf('?');
  const path = scrubPath(q < 0 ? url : url.slice(0, q), route);
  if (q < 0) return path;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      return eq >= 0 && SECRET_PARAMS.has(paramName(name)) ? `${name}=[redacted]` : part;
    });
  return `${path}?${params.join('&')}`;
}

/** The route pattern a request matched (undefined before routing or for a 404). */
function routeOf(req: FastifyRequest): string | undefined {
  try {
    return req.routeOptions?.url;
  } catch {
    return undefined;
  }
}

/** The request fields a log line needs, without headers that carry credentials. */
export function serializeRequest(req: FastifyRequest) {
  return { method: req.method, url: scrubUrl(req.url, routeOf(req)), remoteAddress: req.ip };
}
