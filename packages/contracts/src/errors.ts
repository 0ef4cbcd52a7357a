import { z } from 'zod';

/** The one error shape every API answer uses when something went wrong. */
export const ApiError = z.object({
  result: z.literal('failed'),
  code: z.string(),
  description: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ApiError = z.infer<typeof ApiError>;

/** Stable machine-readable error codes; `description` carries the human text. */
export const ErrorCode = {
  validation: 'VALIDATION_FAILED',
  badJson: 'BAD_JSON',
  tooLarge: 'PAYLOAD_TOO_LARGE',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  conflict: 'CONFLICT',
  rateLimited: 'RATE_LIMITED',
  internal: 'INTERNAL',
  /** An SMTP server refused or could not take an e-mail (502; the description carries its response). */
  mailFailed: 'MAIL_FAILED',
  /** A payment provider's webhook whose signature does not verify (400; nothing is read from its body). */
  badSignature: 'BAD_SIGNATURE',
  /** An API token without the scope the call needs (403; a read-only token on a write). */
  tokenScope: 'TOKEN_SCOPE',
} as const;
