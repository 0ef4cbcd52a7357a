import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ErrorCode, MESSAGE_STRINGS, type MessageFile, UPLOAD_MAX_FILES, UPLOAD_MAX_MB } from '@parley/contracts';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import type { Insertable } from 'kysely';
import type Sharp from 'sharp';
import type { DB } from '../../platform/db/db.js';
import type { UploadsTable } from '../../platform/db/schema.js';
import { AppError } from '../../platform/http/errors.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import { requireWithinPlan } from '../accounts/index.js';
import { fileOf } from './commands/postMessage.js';
import type { IncomingFile } from './multipart.js';

const MB = 1024 * 1024;
export const UPLOAD_LIMITS = { fileSize: UPLOAD_MAX_MB * MB, files: UPLOAD_MAX_FILES };

/** Raster images that get a thumbnail and may be shown inline. */
const IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
/** Types a browser may render inline from our origin; everything else downloads (no HTML, no SVG). */
export const INLINE_TYPES = new Set([
  ...IMAGES,
  'application/pdf',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'video/mp4',
]);
const EXECUTABLE_TYPES = new Set([
  'application/x-msdownload',
  'application/vnd.microsoft.portable-executable',
  'application/x-elf',
  'application/x-executable',
  'application/x-mach-binary',
  'application/x-sharedlib',
  'application/x-msi',
  'application/x-ms-installer',
  'application/java-archive',
]);

/** A file's real type from its bytes, not its name; executables (and scripts with a #!) are refused. */
export async function sniff(buf: Buffer): Promise<string> {
  return typeOf(buf, await fileTypeFromBuffer(buf));
}

/** The same for a file on disk: reads only the bytes the check needs. */
export async function sniffFile(file: string): Promise<string> {
  const handle = await open(file, 'r');
  let head: Buffer;
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    head = buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (refusedHead(head)) throw fileTypeRefused();
  return typeOf(head, await fileTypeFromFile(file));
}

const refusedHead = (head: Buffer) => {
  const start = head.subarray(0, 4).toString('latin1');
  return start.startsWith('MZ') || start === '\x7fELF' || start.startsWith('#!');
};

function typeOf(head: Buffer, found: { mime: string } | undefined): string {
  if (refusedHead(head)) throw fileTypeRefused();
  if (found) {
    if (EXECUTABLE_TYPES.has(found.mime)) throw fileTypeRefused();
    return found.mime;
  }
  // No magic number: text when it has no NUL byte in its first 8 kB, else opaque bytes.
  return head.subarray(0, 8192).includes(0) ? 'application/octet-stream' : 'text/plain';
}
const fileTypeRefused = () => new AppError(400, ErrorCode.validation, MESSAGE_STRINGS.fileType);

/**
 * Characters a name never keeps: C0 and C1 controls, DEL, and the invisible formatting ones, the
 * bidirectional controls among them (U+202E shows `photo\u202Egpj.exe` as `photoexe.jpg`: a faked extension).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const HIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff/\\]/g;
/**
 * The longest name, as written in its download URL (`/files/<key>/<name>`, percent-encoded), that the router
 * takes as one path parameter (its maxParamLength, in platform/http/server.ts, is 300).
 */
export const NAME_URL_MAX = 240;
/** An extension kept whole when a long name is shortened (`.jpeg`, `.tar.gz` keeps `.gz`). */
const EXTENSION = /\.[^.\s]{1,15}$/u;

/** A file name safe to show and to put in a URL segment: no hidden characters, short enough to download. */
export function cleanName(name: string): string {
  const clean =
    path
      .basename(name || 'file')
      .replace(HIDDEN_CHARS, '')
      .trim() || 'file';
  if (encodeURIComponent(clean).length <= NAME_URL_MAX) return clean;
  const ext = EXTENSION.exec(clean)?.[0] ?? '';
  let room = NAME_URL_MAX - encodeURIComponent(ext).length;
  let stem = '';
  for (const ch of clean.slice(0, clean.length - ext.length)) {
    room -= encodeURIComponent(ch).length;
    if (room < 0) break;
    stem += ch;
  }
  return `${stem.trimEnd() || 'file'}${ext}`;
}

export const uploadPath = (dataDir: string, accountId: number, key: string) =>
  path.join(dataDir, 'uploads', String(accountId), key);

/** Bytes the account stores now (files and thumbnails). */
async function usedBytes(db: DB | Trx, accountId: number): Promise<number> {
  const r = await db
    .selectFrom('uploads')
    .select((eb) => eb.fn.sum<number>('size').as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(r?.total ?? 0);
}

/**
 * MSG-35, MSG-37: stores uploaded files for an account: each sniffed from its bytes, within the plan's
 * storage, images with a 320 px JPEG thumbnail. All or nothing: a refused file stores none of the batch.
 *
 * The storage check and the rows are one transaction that first locks the account's row (a write to it:
 * Postgres holds the row lock to commit, SQLite runs one transaction at a time), so two uploads at once
 * cannot both see room that only one of them fits in. The bytes are moved into place before it (the
 * thumbnails written: slow work outside the lock) and removed again when the batch is refused.
 */
export async function storeUploads(
  db: DB,
  dataDir: string,
  who: { accountId: number; userId: number | null },
  ticketId: number | null,
  files: IncomingFile[],
): Promise<MessageFile[]> {
  if (files.length === 0) throw new AppError(400, ErrorCode.validation, MESSAGE_STRINGS.noFiles);
  const prepared: { name: string; path: string; size: number; mime: string; thumb: Buffer | null }[] = [];
  for (const f of files) {
    if (f.size > UPLOAD_LIMITS.fileSize)
      throw new AppError(413, ErrorCode.tooLarge, MESSAGE_STRINGS.fileTooLarge(UPLOAD_MAX_MB));
    const mime = await sniffFile(f.path);
    let thumb: Buffer | null = null;
    if (IMAGES.has(mime))
      thumb = await (createRequire(import.meta.url)('sharp') as typeof Sharp)(f.path, { animated: false })
        .resize(320, 320, { fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality: 75 })
        .toBuffer()
        .catch(() => null);
    prepared.push({ name: cleanName(f.name), path: f.path, size: f.size, mime, thumb });
  }
  const adding = prepared.reduce((n, f) => n + f.size + (f.thumb?.length ?? 0), 0);

  const dir = path.join(dataDir, 'uploads', String(who.accountId));
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  try {
    const rows: (Insertable<UploadsTable> & { thumb_key: string | null })[] = [];
    for (const f of prepared) {
      const key = randomBytes(18).toString('base64url');
      const thumbKey = f.thumb ? randomBytes(18).toString('base64url') : null;
      // The bytes are on disk already (the incoming folder, same file system): a rename, no copy.
      await rename(f.path, path.join(dir, key));
      written.push(path.join(dir, key));
      if (f.thumb && thumbKey) {
        await writeFile(path.join(dir, thumbKey), f.thumb);
        written.push(path.join(dir, thumbKey));
      }
      rows.push({
        account_id: who.accountId,
        ticket_id: ticketId,
        user_id: who.userId,
        key,
        name: f.name,
        mime: f.mime,
        size: f.size + (f.thumb?.length ?? 0),
        thumb_key: thumbKey,
        created_at: Date.now(),
      });
    }
    await runCommand(db, async (trx) => {
      await requireWithinPlan(trx, who.accountId, 'storageBytes', () => usedBytes(trx, who.accountId), adding);
      await trx.insertInto('uploads').values(rows).execute();
    });
    return rows.map((row, i) => ({ ...fileOf(row), size: prepared[i]!.size }));
  } catch (err) {
    for (const p of written) await rm(p, { force: true });
    throw err;
  }
}

/** Removes stored uploads again (a reply whose e-mail was refused): their rows and bytes. */
export async function discardUploads(db: DB, dataDir: string, accountId: number, files: MessageFile[]) {
  const keys = files.flatMap((f) => [keyOf(f.file), f.thumb ? keyOf(f.thumb) : null]).filter((k) => k !== null);
  if (keys.length === 0) return;
  await runCommand(db, (trx) =>
    trx.deleteFrom('uploads').where('account_id', '=', accountId).where('key', 'in', keys).execute(),
  );
  for (const k of keys) await rm(uploadPath(dataDir, accountId, k), { force: true });
}

/** The storage key in a file URL (`/files/<key>/<name>`), or null. */
export const keyOf = (url: string) => /^\/files\/([A-Za-z0-9_-]{16,64})\//.exec(url)?.[1] ?? null;

/** The stored file behind a URL key (the file or its thumbnail) if it is the account's. */
export async function findUpload(db: DB, accountId: number, key: string) {
  const row = await db
    .selectFrom('uploads')
    .select(['key', 'name', 'mime', 'thumb_key'])
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('key', '=', key), eb('thumb_key', '=', key)]))
    .executeTakeFirst();
  if (!row) return undefined;
  const isThumb = row.thumb_key === key;
  return { key, name: isThumb ? 'thumb.jpg' : row.name, mime: isThumb ? 'image/jpeg' : row.mime };
}
