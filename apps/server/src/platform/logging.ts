import type { FastifyRequest } from 'fastify';

/** Anything that may hold a secret is removed before a log line is written. */
export const REDACT = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    '*.password',
    '*.token',
    '*.refresh_token',
    '*._token',
    '*.tfa',
    '*.password_hash',
  ],
  censor: '[redacted]',
};

const SECRET_PARAMS = new Set(['_token', 'token', 'refresh_token', 'password']);

/** A parameter name as the query parser sees it: `%5Ftoken` and `_token` are the same parameter. */
function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** Query-string tokens (`?_token=`) are part of the URL, so the URL itself is scrubbed too. */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq < 0 ? part : part.slice(0, eq);
      return eq >= 0 && SECRET_PARAMS.has(paramName(name)) ? `${name}=[redacted]` : part;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** The request fields a log line needs, without headers that carry credentials. */
export function serializeRequest(req: FastifyRequest) {
  return { method: req.method, url: scrubUrl(req.url), remoteAddress: req.ip };
}
