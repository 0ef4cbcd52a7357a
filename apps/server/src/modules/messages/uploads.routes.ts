import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ENCRYPTION_STRINGS, ErrorCode, UploadAnswer } from '@parley/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { isEncrypted } from '../encryption/index.js';
import type { MessageDeps } from './messages.routes.js';
import { readableTicket } from './messages.routes.js';
import { type IncomingFile, readMultipart } from './multipart.js';
import { findUpload, INLINE_TYPES, storeUploads, uploadPath } from './uploads.js';

/** Stores the files of a multipart request for the caller (ticket checked when given). */
export async function uploadFrom(
  deps: MessageDeps,
  req: FastifyRequest,
  files: IncomingFile[],
  ticket?: string | string[],
) {
  const auth = req.auth!;
  let ticketId: number | null = null;
  if (ticket !== undefined && ticket !== '') {
    const parsed = z.coerce
      .number()
      .int()
      .positive()
      .safeParse(Array.isArray(ticket) ? ticket[0] : ticket);
    if (!parsed.success) throw new AppError(400, ErrorCode.validation, 'ticket_id must be a ticket number id.');
    const t = await readableTicket(deps.db, deps.conversations, req, parsed.data);
    ticketId = parsed.data;
    // CRYPT-05, CRYPT-11: files are not encrypted yet, so none is taken into an encrypted conversation.
    if (isEncrypted(t.encryption_method)) throw new AppError(400, ErrorCode.validation, ENCRYPTION_STRINGS.noFiles);
  }
  return storeUploads(deps.db, deps.dataDir, { accountId: auth.accountId, userId: auth.userId }, ticketId, files);
}

/** MSG-35..37: uploads, and the files served to members of their account only. */
export function uploadRoutes(app: FastifyInstance, deps: MessageDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/api/upload', { config: { auth: 'user' }, schema: { response: { 200: UploadAnswer } } }, async (req, res) => {
    if (!req.isMultipart()) throw new AppError(400, ErrorCode.validation, 'Send the files as multipart/form-data.');
    const body = await readMultipart(req, res, deps);
    const stored = await uploadFrom(deps, req, body.files, body.fields.ticket_id);
    return {
      result: 'success' as const,
      file: stored.map((f) => f.file),
      fileType: stored.map((f) => f.fileType),
      fileName: stored.map((f) => f.fileName),
      thumb: stored.map((f) => f.thumb),
      size: stored.map((f) => f.size),
    };
  });

  r.get(
    '/files/:key/:name',
    {
      config: { auth: 'user' },
      schema: { params: z.object({ key: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/), name: z.string().max(300) }) },
    },
    async (req, reply) => sendUpload(deps.db, deps.dataDir, req.auth!.accountId, req.params.key, reply),
  );
}

/** Answers a stored file of the account (the file or its thumbnail), or 404; also the public KB images. */
export async function sendUpload(db: DB, dataDir: string, accountId: number, key: string, reply: FastifyReply) {
  const f = await findUpload(db, accountId, key);
  if (!f) throw notFound('File not found.');
  const file = uploadPath(dataDir, accountId, f.key);
  const info = await stat(file).catch(() => null);
  if (!info) throw notFound('File not found.');
  const inline = INLINE_TYPES.has(f.mime);
  return reply
    .type(inline ? f.mime : 'application/octet-stream')
    .header('content-length', info.size)
    .header('cache-control', 'private, max-age=86400')
    .header('content-security-policy', "default-src 'none'; img-src 'self'; media-src 'self'; sandbox")
    .header(
      'content-disposition',
      `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(f.name)}`,
    )
    .send(createReadStream(file));
}
