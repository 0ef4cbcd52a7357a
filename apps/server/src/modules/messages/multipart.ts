import { ErrorCode, MESSAGE_STRINGS, UPLOAD_MAX_MB } from '@parley/contracts';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/errors.js';

export interface MultipartBody {
  fields: Record<string, string | string[]>;
  files: { name: string; data: Buffer }[];
}

/** File fields we read: the spec's `attachment[]`, and `attachment` from simpler clients. */
const FILE_FIELDS = new Set(['attachment[]', 'attachment', 'file']);

/** Reads a whole multipart body: fields (repeated ones as lists) and files (in memory, within the limits). */
export async function readMultipart(req: FastifyRequest): Promise<MultipartBody> {
  const out: MultipartBody = { fields: {}, files: [] };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (FILE_FIELDS.has(part.fieldname)) out.files.push({ name: part.filename, data });
      } else {
        const value = String(part.value);
        const prev = out.fields[part.fieldname];
        out.fields[part.fieldname] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new AppError(413, ErrorCode.tooLarge, MESSAGE_STRINGS.fileTooLarge(UPLOAD_MAX_MB));
    if (code.startsWith('FST_')) throw new AppError(400, ErrorCode.validation, 'The upload could not be read.');
    throw err;
  }
  return out;
}
