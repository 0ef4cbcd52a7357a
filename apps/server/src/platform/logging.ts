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

const SECRET_PARAMS = /([?&](?:_token|token|refresh_token|password)=)[^&]*/gi;

/** Query-string tokens (`?_token=`) are part of the URL, so the URL itself is scrubbed too. */
export const scrubUrl = (url: string) => url.replace(SECRET_PARAMS, '$1[redacted]');

/** The request fields a log line needs, without headers that carry credentials. */
export function serializeRequest(req: FastifyRequest) {
  return { method: req.method, url: scrubUrl(req.url), remoteAddress: req.ip };
}
