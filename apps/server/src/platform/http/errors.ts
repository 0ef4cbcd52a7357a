import { type ApiError, ErrorCode } from '@parley/contracts';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';

/** An error a command or route throws on purpose: it becomes a 4xx with this code and text. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A request the server will not act on as it is: 400 VALIDATION_FAILED with what is wrong. */
export const badRequest = (what: string) => new AppError(400, ErrorCode.validation, what);
export const notFound = (what = 'Not found.') => new AppError(404, ErrorCode.notFound, what);
export const forbidden = (what = 'You do not have permission to do that.') =>
  new AppError(403, ErrorCode.forbidden, what);
export const unauthorized = (what = 'Sign in required.') => new AppError(401, ErrorCode.unauthorized, what);
export const conflict = (what: string) => new AppError(409, ErrorCode.conflict, what);

export function failure(code: string, description: string, issues?: ApiError['issues']): ApiError {
  return issues ? { result: 'failed', code, description, issues } : { result: 'failed', code, description };
}

/** One JSON error shape for the whole API; no stack trace ever leaves the server. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const issues = err.validation.map((v) => ({
        path: [err.validationContext ?? 'body', ...v.instancePath.split('/').filter(Boolean)].join('.'),
        message: v.message ?? 'is invalid',
      }));
      const first = issues[0];
      return reply.code(400).send(failure(ErrorCode.validation, first ? first.message : 'Invalid request.', issues));
    }
    if (err instanceof AppError) return reply.code(err.status).send(failure(err.code, err.message));
    if (isResponseSerializationError(err)) {
      req.log.error({ err }, 'response did not match its contract');
      return reply.code(500).send(failure(ErrorCode.internal, 'Something went wrong on our side.'));
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const [code, text] = clientError(err, status);
      return reply.code(status).send(failure(code, text));
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send(failure(ErrorCode.internal, 'Something went wrong on our side.'));
  });
}

/**
 * Errors Fastify meets before routing (a URL that does not decode, a path parameter that is too long): without
 * this they would answer in Fastify's own shape, not ours.
 */
export function frameworkError(err: FastifyError, _req: unknown, reply: FastifyReply): void {
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  const description =
    err.code === 'FST_ERR_BAD_URL' ? 'The address is not valid.' : 'The address is too long or not valid.';
  reply.code(status).send(failure(status === 404 ? ErrorCode.notFound : ErrorCode.validation, description));
}

/** Fastify's own 4xx errors (body parsing, content type, limits) in our words. */
function clientError(err: FastifyError, status: number): [string, string] {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return [ErrorCode.tooLarge, 'The request body is too large.'];
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError)
    return [ErrorCode.badJson, 'The request body is not valid JSON.'];
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return [ErrorCode.validation, 'Send the body as application/json.'];
  if (status === 401) return [ErrorCode.unauthorized, err.message];
  if (status === 403) return [ErrorCode.forbidden, err.message];
  if (status === 404) return [ErrorCode.notFound, err.message];
  if (status === 429) return [ErrorCode.rateLimited, err.message];
  return [ErrorCode.validation, err.message];
}
