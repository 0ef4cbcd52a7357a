import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ErrorCode, MESSAGE_STRINGS, UPLOAD_MAX_MB } from '@parley/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/errors.js';

/** A file part, written to disk as it arrived (never held in memory whole). */
export interface IncomingFile {
  name: string;
  /** Where its bytes are until they are stored (moved) or discarded. */
  path: string;
  size: number;
}

export interface MultipartBody {
  fields: Record<string, string | string[]>;
  files: IncomingFile[];
}

/** File fields we read: the spec's `attachment[]`, and `attachment` from simpler clients. */
const FILE_FIELDS = new Set(['attachment[]', 'attachment', 'file']);
/**
 * The text fields of one request together, like a JSON body's limit: the parser holds one field at a time
 * (at most 1 MB), and this bounds what a request keeps of them.
 */
const FIELDS_MAX_BYTES = 1024 * 1024;
/** An incoming file older than this is a leftover of a process that stopped mid-upload. */
const STALE_INCOMING_MS = 60 * 60 * 1000;

/** Where file parts are written while a request is read: under DATA_DIR/uploads, so storing is a rename. */
export const incomingDir = (dataDir: string) => path.join(dataDir, 'uploads', 'incoming');

/** Removes leftovers of requests that never finished (a crash mid-upload); recent ones may still be in use. */
export async function sweepIncoming(dataDir: string, now = Date.now()): Promise<void> {
  const dir = incomingDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info && now - info.mtimeMs > STALE_INCOMING_MS) await rm(file, { force: true });
  }
}

const toNothing = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/**
 * Reads a multipart body under the cap (`UploadGate`): fields (repeated ones as lists) and the files of the
 * known file fields, each streamed to a file of its own in the incoming folder. Parts under other names are
 * read through and dropped, neither kept nor written. When the answer is sent (or the connection closes),
 * the files not stored (storing moves them away) are removed and the caller's place is given back.
 */
export async function readMultipart(req: FastifyRequest, res: FastifyReply, deps: UploadDeps): Promise<MultipartBody> {
  const leave = deps.uploadGate.enter(req.auth!.accountId);
  const body: MultipartBody = { fields: {}, files: [] };
  const reading = readParts(req, deps.dataDir, body);
  let done = false;
  // After the answer, or a dropped connection (once the parser has let go of its files).
  const finish = () => {
    if (done) return;
    done = true;
    void reading
      .catch(() => {})
      .then(() => Promise.all(body.files.map((f) => rm(f.path, { force: true }))))
      .catch(() => {})
      .finally(leave);
  };
  res.raw.once('close', finish);
  if (res.raw.closed) finish();
  await reading;
  return body;
}

async function readParts(req: FastifyRequest, dataDir: string, out: MultipartBody): Promise<void> {
  const dir = incomingDir(dataDir);
  await mkdir(dir, { recursive: true });
  let fieldBytes = 0;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (!FILE_FIELDS.has(part.fieldname)) {
          await pipeline(part.file, toNothing());
          continue;
        }
        const file: IncomingFile = {
          name: part.filename,
          path: path.join(dir, randomBytes(18).toString('base64url')),
          size: 0,
        };
        out.files.push(file);
        const sink = createWriteStream(file.path);
        await pipeline(part.file, sink);
        if (part.file.truncated)
          throw new AppError(413, ErrorCode.tooLarge, MESSAGE_STRINGS.fileTooLarge(UPLOAD_MAX_MB));
        file.size = sink.bytesWritten;
      } else {
        const value = String(part.value);
        fieldBytes += Buffer.byteLength(part.fieldname) + Buffer.byteLength(value);
        if (part.valueTruncated || fieldBytes > FIELDS_MAX_BYTES)
          throw new AppError(413, ErrorCode.tooLarge, 'The form fields are too long.');
        const prev = out.fields[part.fieldname];
        out.fields[part.fieldname] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
      }
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code ?? '';
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new AppError(413, ErrorCode.tooLarge, MESSAGE_STRINGS.fileTooLarge(UPLOAD_MAX_MB));
    // A client that went away mid-body (its answer reaches no one, but it is no server error).
    const gone = code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error).message === 'aborted';
    if (code.startsWith('FST_') || gone) throw new AppError(400, ErrorCode.validation, 'The upload could not be read.');
    throw err;
  }
}

/** What a caller is told when their uploads, or everyone's, are at the cap. */
export const UPLOAD_BUSY = {
  account: 'Too many uploads at once: wait for one to finish, then try again.',
  server: 'The server is busy with other uploads: try again in a moment.',
};

/**
 * Caps the multipart requests read at once, per account and in this process: each holds a connection, a
 * parser and a file being written, and a burst of them (or one account's script) must not take the
 * server's memory or disk bandwidth. Past a cap the request answers 429 before its body is read.
 */
export class UploadGate {
  private total = 0;
  private readonly byAccount = new Map<number, number>();

  constructor(
    readonly perAccount: number,
    readonly perProcess: number,
  ) {}

  /** Takes a place for one upload of the account (429 when there is none); the function gives it back. */
  enter(accountId: number): () => void {
    const mine = this.byAccount.get(accountId) ?? 0;
    if (mine >= this.perAccount) throw new AppError(429, ErrorCode.rateLimited, UPLOAD_BUSY.account);
    if (this.total >= this.perProcess) throw new AppError(429, ErrorCode.rateLimited, UPLOAD_BUSY.server);
    this.byAccount.set(accountId, mine + 1);
    this.total++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total--;
      const n = (this.byAccount.get(accountId) ?? 1) - 1;
      if (n > 0) this.byAccount.set(accountId, n);
      else this.byAccount.delete(accountId);
    };
  }

  /** Uploads being read now (for tests and metrics). */
  get active(): number {
    return this.total;
  }
}

/** Where multipart routes keep files while reading, and the cap they share. */
export interface UploadDeps {
  dataDir: string;
  uploadGate: UploadGate;
}
