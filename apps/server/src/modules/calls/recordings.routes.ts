import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  CALL_STRINGS,
  CallDetailParams,
  ErrorCode,
  RECORDING_PAGE_SIZE,
  RecordingsAnswer,
  RecordingsQuery,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import { AppError, forbidden, notFound } from '../../platform/http/errors.js';
import { uploadPath } from '../messages/index.js';
import { listRecordings, readsRecordings } from './calls.queries.js';
import type { CallDeps } from './calls.routes.js';

/** REC-01: supervisors and admins only. */
function assertReadsRecordings(auth: AuthContext): void {
  if (!readsRecordings(auth.type)) throw forbidden(CALL_STRINGS.recordingsNotAllowed);
}

/**
 * One byte range of `bytes=a-b`, `bytes=a-` or `bytes=-n` within a file of `size` bytes; null for none
 * (no header, or several ranges, which are answered whole); 'bad' when it lies outside the file.
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null | 'bad' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return header.includes(',') ? null : 'bad';
  const [, a, b] = m;
  if (a === '' && b === '') return 'bad';
  if (a === '') {
    const n = Number(b);
    if (n === 0 || size === 0) return 'bad';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size || end < start) return 'bad';
  return { start, end };
}

/**
 * REC-01 .. REC-12: the account's recorded calls (`GET /api/recordings`, 30 a page) and a recording's audio
 * (`GET /api/recordings/{ticketId}/audio`), streamed with Range support so players can seek.
 */
export function recordingRoutes(app: FastifyInstance, deps: CallDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  r.get(
    '/api/recordings',
    { config: { auth: 'user' }, schema: { querystring: RecordingsQuery, response: { 200: RecordingsAnswer } } },
    async (req) => {
      assertReadsRecordings(req.auth!);
      return listRecordings(db, req.auth!.accountId, req.query, RECORDING_PAGE_SIZE);
    },
  );
  r.get(
    '/api/recordings/:id/audio',
    { config: { auth: 'user' }, schema: { params: CallDetailParams } },
    async (req, reply) => {
      const auth = req.auth!;
      assertReadsRecordings(auth);
      const row = await db
        .selectFrom('calls')
        .innerJoin('uploads', (j) =>
          j.onRef('uploads.key', '=', 'calls.recording_key').on('uploads.account_id', '=', auth.accountId),
        )
        .select(['uploads.key', 'uploads.mime', 'uploads.name'])
        .where('calls.account_id', '=', auth.accountId)
        .where('calls.ticket_id', '=', req.params.id)
        .executeTakeFirst();
      if (!row) throw notFound(CALL_STRINGS.noRecording);
      const file = uploadPath(deps.dataDir, auth.accountId, row.key);
      const info = await stat(file).catch(() => null);
      if (!info) throw notFound(CALL_STRINGS.noRecording);
      const range = byteRange(req.headers.range, info.size);
      reply
        .type(row.mime.startsWith('audio/') ? row.mime : 'application/octet-stream')
        .header('accept-ranges', 'bytes')
        .header('cache-control', 'private, max-age=86400')
        .header('content-security-policy', "default-src 'none'; media-src 'self'; sandbox")
        .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(row.name)}`);
      if (range === 'bad') {
        reply.header('content-range', `bytes */${info.size}`);
        throw new AppError(416, ErrorCode.validation, CALL_STRINGS.badRange);
      }
      if (!range) return reply.header('content-length', info.size).send(createReadStream(file));
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${info.size}`)
        .header('content-length', range.end - range.start + 1)
        .send(createReadStream(file, { start: range.start, end: range.end }));
    },
  );
}
